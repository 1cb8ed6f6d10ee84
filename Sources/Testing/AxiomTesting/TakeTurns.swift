import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Calls `body` `rounds` times on each of two threads that take turns, one call per turn, and returns when both are
/// done: every call is made on the other thread than the call before. That is what a series counted from two cores
/// at once looks like to `MetricsObserver`, which stripes a series after
/// `MetricsObserver.turnsBeforeStriping` turns; a test can count that way and check that no count is lost.
///
/// The threads are real threads of their own (not tasks, whose threads the pool chooses).
package func takeTurnsOnTwoThreads(rounds: Int, _ body: @escaping @Sendable () -> Void) {
    let turn = Atomic<Int>(0)
    let threads = (0..<2).map { player in
        startThread {
            for _ in 0..<rounds {
                while turn.load(ordering: .acquiring) % 2 != player { sched_yield() }
                body()
                turn.add(1, ordering: .releasing)
            }
        }
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// The closure a thread runs, passed to it as its one argument.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

private func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    let argument = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { argument in
            Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, argument)
    precondition(result == 0, "pthread_create failed: \(result)")
    return thread
}
