import CoreMetrics
import Synchronization

/// Lets at most `limit` calls run at once, queues up to `queueLimit` more in arrival order, and refuses the rest
/// with `ConcurrencyLimitError` (`axiom.resilience/concurrencyLimited`): a bulkhead, Polly's concurrency
/// limiter.
///
/// A call that gets a slot at once takes one uncontended lock to enter and one to leave; a queued call waits
/// without a task of its own and gets the slot of the call that ends first. A queued call whose task is cancelled
/// leaves the queue with `CancellationError`.
///
/// Gauges through swift-metrics: `axiom_concurrency_limiter_in_flight{key}`, `axiom_concurrency_limiter_queued{key}`;
/// counter `axiom_concurrency_limiter_rejections_total{key}`.
public final class ConcurrencyLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: UnsafeContinuation<Void, any Error>
    }

    private struct State {
        var inFlight = 0
        var queue: [Waiter] = []
        var nextID: UInt64 = 0
    }

    /// What the limiter guards.
    package let key: String
    /// How many calls may run at once.
    package let limit: Int
    /// How many calls may wait for a slot.
    package let queueLimit: Int

    private let state = Mutex(State())
    private let inFlightGauge: Gauge
    private let queuedGauge: Gauge
    private let rejections: Counter

    /// Creates a limiter of `limit` concurrent calls (at least 1) and a queue of `queueLimit` (at least 0).
    ///
    /// - Throws: `ResilienceConfigurationError` when a limit is out of range.
    public init(
        key: String, limit: Int, queueLimit: Int = 0, metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(ResilienceConfigurationError) {
        let component = "concurrency limiter '\(key)'"
        guard limit >= 1 else {
            throw ResilienceConfigurationError(
                component: component, option: "limit", reason: "must be at least 1, got \(limit)")
        }
        guard queueLimit >= 0 else {
            throw ResilienceConfigurationError(
                component: component, option: "queueLimit", reason: "must be at least 0, got \(queueLimit)")
        }
        self.key = key
        self.limit = limit
        self.queueLimit = queueLimit
        inFlightGauge = Gauge(
            label: "axiom_concurrency_limiter_in_flight", dimensions: [("key", key)], factory: metrics)
        queuedGauge = Gauge(label: "axiom_concurrency_limiter_queued", dimensions: [("key", key)], factory: metrics)
        rejections = Counter(
            label: "axiom_concurrency_limiter_rejections_total", dimensions: [("key", key)], factory: metrics)
    }

    /// How many calls are running.
    package var inFlight: Int { state.withTrackedLock { $0.inFlight } }
    /// How many calls are waiting for a slot.
    package var queued: Int { state.withTrackedLock { $0.queue.count } }

    /// Takes a slot, waiting in the queue if there is room. Pair it with one `release()`.
    ///
    /// - Throws: `ConcurrencyLimitError` when the slots and the queue are full; `CancellationError` when the
    ///   task is cancelled while it waits.
    nonisolated(nonsending) public func acquire() async throws {
        enum Entry {
            case granted
            case queued(UInt64)
            case refused
        }
        let entry = state.withTrackedLock { state -> Entry in
            if state.inFlight < limit {
                state.inFlight += 1
                publish(state)
                return .granted
            }
            guard state.queue.count < queueLimit else { return .refused }
            state.nextID += 1
            return .queued(state.nextID)
        }
        switch entry {
        case .granted:
            return
        case .refused:
            rejections.increment()
            throw ConcurrencyLimitError(key: key, limit: limit, queueLimit: queueLimit)
        case .queued(let id):
            try await wait(id)
        }
    }

    nonisolated(nonsending) private func wait(_ id: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let outcome = state.withTrackedLock { state -> Result<Int?, ConcurrencyLimitError> in
                    if Task.isCancelled { return .success(nil) }
                    // A slot may have freed since the first look.
                    if state.inFlight < limit {
                        state.inFlight += 1
                        publish(state)
                        return .success(-1)
                    }
                    guard state.queue.count < queueLimit else {
                        return .failure(ConcurrencyLimitError(key: key, limit: limit, queueLimit: queueLimit))
                    }
                    state.queue.append(Waiter(id: id, continuation: continuation))
                    publish(state)
                    return .success(state.queue.count)
                }
                switch outcome {
                case .success(nil): continuation.resume(throwing: CancellationError())
                case .success(-1): continuation.resume()
                case .success: break
                case .failure(let error):
                    rejections.increment()
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = state.withTrackedLock { state -> Waiter? in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                defer { publish(state) }
                return state.queue.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back: the longest-waiting queued call takes it, or it becomes free.
    @usableFromInline package func release() {
        let next = state.withTrackedLock { state -> Waiter? in
            defer { publish(state) }
            if !state.queue.isEmpty {
                // The slot passes to the first waiter: in-flight stays the same.
                return state.queue.removeFirst()
            }
            state.inFlight = max(0, state.inFlight - 1)
            return nil
        }
        next?.continuation.resume()
    }

    /// Records the gauges; called under the lock after every change, so they are recorded in order.
    private func publish(_ state: borrowing State) {
        inFlightGauge.record(state.inFlight)
        queuedGauge.record(state.queue.count)
    }

    /// Runs `body` in a slot.
    nonisolated(nonsending) public func run<T>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }
}

/// The concurrency-limiter stage: outermost in the standard order (limiter → total timeout → retry → breaker →
/// attempt timeout), so a refused call costs nothing further and a queued one does not use up its timeout.
public struct ConcurrencyLimiterStage: OperationMiddleware {
    /// The limiter every call passes.
    @usableFromInline package let limiter: ConcurrencyLimiter
    /// Where rejections are counted (`axiom_resilience_events_total{event="rejection"}`); nil: nowhere.
    @usableFromInline package let telemetry: ResilienceTelemetry?

    /// A stage guarded by `limiter`.
    public init(_ limiter: ConcurrencyLimiter, telemetry: ResilienceTelemetry? = nil) {
        self.limiter = limiter
        self.telemetry = telemetry
    }

    @inlinable
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        do {
            try await limiter.acquire()
        } catch let refusal as ConcurrencyLimitError {
            throw counted(refusal, stage: "concurrencyLimiter", operation: context.name, telemetry: telemetry)
        }
        defer { limiter.release() }
        return try await next(context)
    }
}

/// One concurrency limiter per key (a host, a tenant), created on first use with shared limits.
public final class ConcurrencyLimiters: Sendable {
    private let limiters = Mutex<[String: ConcurrencyLimiter]>([:])
    private let limit: Int
    private let queueLimit: Int
    private let metrics: any MetricsFactory

    /// Creates an empty set; each new key gets a limiter of `limit` running calls and `queueLimit` waiting.
    ///
    /// - Throws: `ResilienceConfigurationError` when a limit is out of range.
    public init(
        limit: Int, queueLimit: Int = 0, metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(ResilienceConfigurationError) {
        _ = try ConcurrencyLimiter(key: "*", limit: limit, queueLimit: queueLimit, metrics: NOOPMetricsHandler.instance)
        self.limit = limit
        self.queueLimit = queueLimit
        self.metrics = metrics
    }

    /// The limiter of `key`, created if needed. The same key always gives the same limiter.
    public func limiter(for key: String) -> ConcurrencyLimiter {
        limiters.withTrackedLock { limiters in
            if let limiter = limiters[key] { return limiter }
            do {
                let limiter = try ConcurrencyLimiter(key: key, limit: limit, queueLimit: queueLimit, metrics: metrics)
                limiters[key] = limiter
                return limiter
            } catch {
                // The limits were checked in `init` and a key does not change them.
                preconditionFailure("\(error)")
            }
        }
    }
}
