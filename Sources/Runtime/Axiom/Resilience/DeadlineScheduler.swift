import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// How a timeout stage limits a call without a task per call:
//
//   stage ──register(deadline, current task)──▶ FIFO of entries ◀──wakes at the head's deadline── timer task
//     │ runs `next` inline                                             │ overdue entry: mark it, cancel its task
//   stage ◀──deregister: was it fired?──────────────────────────────────┘
//
// One stage has one limit, so deadlines arrive in order and a FIFO is a priority queue. The timer task is started
// by the first call, sleeps until the earliest deadline (or, with nothing to watch, for one more limit), and ends
// once it has had nothing to watch for a whole limit; the happy path is one coarse clock reading and two short
// critical sections.

/// Where a deadline scheduler reads "now": nanoseconds on a monotonic scale that only differences are taken of.
///
/// On the system clocks the happy path reads `CLOCK_MONOTONIC_COARSE` (the kernel's last tick, a few ns through
/// the vDSO, no `rdtsc`) instead of the precise clock (about 30 ns, a third of the stage's cost). The timer's
/// precision is a tick anyway: it is a task woken by a sleep. The register and the timer read the same scale,
/// and each deadline is padded by the coarse clock's resolution, so a call is never cut off before its limit
/// and at most a tick after it. The coarse scale stops while the machine is suspended (a `ContinuousClock` does
/// not); the timer sleeps on the stage's clock and re-checks, so a suspension delays a timeout, never hastens
/// it. On any other clock (a test's `ManualClock`) readings come from the clock itself, exactly as before.
struct DeadlineTime: Sendable {
    let clock: RuntimeClock
    /// True when readings come from `CLOCK_MONOTONIC_COARSE`.
    let coarse: Bool
    /// What a deadline is padded by: the coarse clock's resolution, 0 on other clocks.
    let padding: Int64

    init(_ clock: RuntimeClock) {
        self.clock = clock
        #if os(Linux)
        var resolution = timespec()
        if clock.base is ContinuousClock || clock.base is SuspendingClock,
            clock_getres(CLOCK_MONOTONIC_COARSE, &resolution) == 0
        {
            coarse = true
            padding = Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec)
            return
        }
        #endif
        coarse = false
        padding = 0
    }

    /// Now, in nanoseconds of this scale.
    @inline(__always)
    func now() -> Int64 {
        #if os(Linux)
        if coarse {
            var reading = timespec()
            clock_gettime(CLOCK_MONOTONIC_COARSE, &reading)
            return Int64(reading.tv_sec) &* 1_000_000_000 &+ Int64(reading.tv_nsec)
        }
        #endif
        return clock.now().wholeNanoseconds
    }
}

/// The shared timer of one timeout stage: cancels the tasks whose calls are overdue.
@usableFromInline
final class DeadlineScheduler: Sendable {
    struct Entry {
        let id: UInt64
        /// Nanoseconds of the scheduler's ``DeadlineTime``.
        let deadline: Int64
        /// The address of the call's task while it is watched; nil once the call ended.
        var task: UInt?
        var fired = false
    }

    struct State {
        var entries: [Entry] = []
        var head = 0
        var nextID: UInt64 = 1
        var timerRunning = false
        /// When the last call registered, in nanoseconds of the scheduler's ``DeadlineTime``.
        var lastActivity: Int64 = 0
    }

    /// A registered call.
    @usableFromInline
    struct Ticket: Sendable {
        let id: UInt64
        /// Where the entry was appended; still right unless the storage was compacted meanwhile.
        let index: Int
    }

    let limit: Duration
    let time: DeadlineTime
    /// `limit` in nanoseconds, padded by the time scale's resolution.
    let span: Int64
    private let state: Mutex<State>

    /// The stage's clock, which the timer sleeps on.
    var clock: RuntimeClock { time.clock }

    init(clock: RuntimeClock, limit: Duration) {
        self.limit = limit
        self.time = DeadlineTime(clock)
        let (span, overflow) = max(limit.wholeNanoseconds, 0).addingReportingOverflow(time.padding)
        self.span = overflow ? .max : span
        var initial = State()
        initial.entries.reserveCapacity(64)
        state = Mutex(initial)
    }

    /// Watches the current task until ``deregister(_:)``: past `limit` from now, the timer cancels it.
    @usableFromInline
    func register() -> Ticket {
        let now = time.now()
        let deadline = Self.saturating(now, plus: span)
        let task = RuntimeTask.current()
        let (ticket, startTimer) = state.withTrackedLock { state -> (Ticket, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.lastActivity = now
            let index = state.entries.count
            state.entries.append(Entry(id: id, deadline: deadline, task: task))
            let start = !state.timerRunning
            state.timerRunning = true
            return (Ticket(id: id, index: index), start)
        }
        if startTimer { Task.detached { [self] in await runTimer() } }
        return ticket
    }

    /// Stops watching the call; true when the timer fired on it (its task was cancelled for being overdue).
    @usableFromInline
    func deregister(_ ticket: Ticket) -> Bool {
        state.withTrackedLock { state in
            let hinted = ticket.index < state.entries.count && state.entries[ticket.index].id == ticket.id
            guard let index = hinted ? ticket.index : Self.index(of: ticket.id, in: state) else { return false }
            state.entries[index].task = nil
            let fired = state.entries[index].fired
            Self.dropFinished(&state)
            return fired
        }
    }

    /// The timer: fires overdue entries, sleeps until the next deadline, ends after a limit with nothing to do.
    private func runTimer() async {
        enum Step {
            case sleep(Int64)
            case stop
        }
        while true {
            let now = time.now()
            let step = state.withTrackedLock { state -> Step in
                Self.dropFinished(&state)
                var index = state.head
                while index < state.entries.count, state.entries[index].deadline <= now {
                    if let task = state.entries[index].task, !state.entries[index].fired {
                        state.entries[index].fired = true
                        // Under the lock: the entry is registered, so its task is alive (see `RuntimeTask`).
                        RuntimeTask.cancel(task)
                    }
                    index += 1
                }
                if let next = state.entries[state.head...].first(where: { !$0.fired && $0.task != nil }) {
                    return .sleep(next.deadline - now)
                }
                let idleUntil = Self.saturating(state.lastActivity, plus: span)
                if idleUntil <= now {
                    state.timerRunning = false
                    return .stop
                }
                return .sleep(idleUntil - now)
            }
            switch step {
            case .stop:
                return
            case .sleep(let nanoseconds):
                // The timer task is never cancelled; a failed sleep just re-checks.
                try? await clock.sleep(for: .nanoseconds(max(nanoseconds, 1)))
            }
        }
    }

    private static func saturating(_ time: Int64, plus span: Int64) -> Int64 {
        let (sum, overflow) = time.addingReportingOverflow(span)
        return overflow ? .max : sum
    }

    private static func index(of id: UInt64, in state: State) -> Int? {
        // Entries are appended in id order: a binary search over the live part.
        var low = state.head
        var high = state.entries.count
        while low < high {
            let mid = (low + high) / 2
            if state.entries[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < state.entries.count && state.entries[low].id == id ? low : nil
    }

    /// Removes finished entries from both ends (a call that ends before later ones started is the last entry:
    /// the common case costs one `removeLast`), and compacts the storage without giving its capacity back.
    private static func dropFinished(_ state: inout State) {
        while state.entries.count > state.head, state.entries[state.entries.count - 1].task == nil {
            state.entries.removeLast()
        }
        while state.head < state.entries.count, state.entries[state.head].task == nil { state.head += 1 }
        if state.head == state.entries.count {
            if state.head > 0 { state.entries.removeAll(keepingCapacity: true) }
            state.head = 0
        } else if state.head >= 64, state.head * 2 >= state.entries.count {
            state.entries.removeFirst(state.head)
            state.head = 0
        }
    }
}

/// The running task as a plain address, and cancelling a task by its address.
///
/// The timer keeps the address, not the `UnsafeCurrentTask`: that is a resilient type, and stored in the timer's
/// entries it makes every access go through value witnesses, which tripled the cost of a call. The address is
/// the `UnsafeCurrentTask`'s one stored reference, read without retaining it; cancelling turns it back into an
/// `UnsafeCurrentTask` for the call (retained and released around it).
///
/// Safety: a task's address is used only while its call is registered. The stage removes its entry under the
/// scheduler's lock before it returns (so before its task can end), and the timer cancels only entries it finds
/// registered, under that same lock: an address is never used after its task ended.
enum RuntimeTask {
    /// The running task's address, nil outside a task.
    static func current() -> UInt? {
        withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } }
    }

    /// Cancels the task at `address`, which must be alive.
    static func cancel(_ address: UInt) {
        unsafeBitCast(address, to: UnsafeCurrentTask.self).cancel()
    }
}
