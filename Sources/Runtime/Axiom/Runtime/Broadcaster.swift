import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers: state changes, breaker transitions, feature levels.
///
/// Each subscriber gets its own stream holding the newest `bufferSize` values, so a slow reader never blocks
/// the publisher. Streams end when the broadcaster finishes or when the subscriber stops iterating.
package final class Broadcaster<Element: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())
    private let bufferSize: Int

    /// Creates a broadcaster whose subscribers each buffer the newest `bufferSize` values.
    package init(bufferSize: Int = 64) { self.bufferSize = max(1, bufferSize) }

    /// A new subscription. Values published from now on arrive on it; it ends at ``finish()``.
    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        let id: Int? = state.withTrackedLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withTrackedLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// A new subscription that first yields `current`, read after subscribing so that nothing published in
    /// between is lost, then every value published from now on.
    package func subscribe(startingWith current: @autoclosure () -> Element) -> AsyncStream<Element> {
        let updates = subscribe()
        let first = current()
        return AsyncStream { continuation in
            continuation.yield(first)
            let forward = Task {
                for await value in updates { continuation.yield(value) }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// How many subscriptions are open.
    package var subscriberCount: Int { state.withTrackedLock { $0.subscribers.count } }

    /// Publishes a value to every open subscription.
    package func publish(_ value: Element) {
        let subscribers = state.withTrackedLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(value) }
    }

    /// Ends every subscription; later subscriptions end at once.
    package func finish() {
        let subscribers = state.withTrackedLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
