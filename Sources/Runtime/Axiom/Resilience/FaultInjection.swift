import Synchronization

/// Makes calls fail or slow down on purpose, for tests and demos: error scenarios on demand.
///
/// Share one injector between the test and a ``FaultInjectionStage``; change the faults at any time. Ratio
/// failures come from a seeded generator, so a run replays exactly.
package final class FaultInjector: Sendable {
    /// What the next call will suffer.
    @usableFromInline package struct Plan: Sendable {
        /// A wait before the call, on the stage's clock.
        @usableFromInline package var latency: Duration
        /// The error thrown instead of calling on, if any.
        @usableFromInline package var error: (any Error)?
    }

    private struct State {
        var failNext = 0
        var failNextError: (any Error)?
        var latency: Duration = .zero
        var ratio = 0.0
        var ratioError: (any Error)?
        var random: SplitMix64
        var injected = 0
        var calls = 0
    }

    private let state: Mutex<State>

    /// Creates an injector that does nothing until told to; `seed` fixes the ratio failures.
    package init(seed: UInt64 = 0) { state = Mutex(State(random: SplitMix64(seed: seed))) }

    /// The next `count` calls fail with `error` (an `InjectedFault` when nil).
    package func failNext(_ count: Int, with error: (any Error)? = nil) {
        state.withTrackedLock {
            $0.failNext = max(0, count)
            $0.failNextError = error
        }
    }

    /// Every call waits `latency` first.
    package func addLatency(_ latency: Duration) {
        state.withTrackedLock { $0.latency = latency }
    }

    /// A share `ratio` (0…1) of calls fails with `error` (an `InjectedFault` when nil).
    package func failRatio(_ ratio: Double, with error: (any Error)? = nil) {
        state.withTrackedLock {
            $0.ratio = min(1, max(0, ratio))
            $0.ratioError = error
        }
    }

    /// A share `ratio` (0…1) of calls fails with the registered error `code` of `registry`, carrying
    /// `retryAfter` when given (`nwc/RATE_LIMITED` with a Retry-After of 5 s, say), so the handlers, the retry
    /// engine and the presentation see exactly what the real dependency would send. The draws come from the
    /// injector's seeded generator, as for ``failRatio(_:with:)``.
    ///
    /// - Throws: `ResilienceConfigurationError` when `registry` does not know `code`: an injected fault must
    ///   have an identity, a fate and texts.
    package func failRatio(
        _ ratio: Double, code: ErrorCode, retryAfter: Duration? = nil, message: String = "injected fault",
        registry: ErrorRegistry = .shared
    ) throws(ResilienceConfigurationError) {
        guard registry.descriptor(for: code) != nil else {
            throw ResilienceConfigurationError(
                component: "fault injector", option: "code", reason: "must be registered, got \(code)")
        }
        failRatio(
            ratio, with: DomainError(domain: code.domain, code: code.code, message: message, retryAfter: retryAfter))
    }

    /// Stops every fault.
    package func reset() {
        state.withTrackedLock {
            $0.failNext = 0
            $0.latency = .zero
            $0.ratio = 0
        }
    }

    /// How many failures were injected so far.
    package var injectedFailures: Int { state.withTrackedLock { $0.injected } }

    /// How many calls passed through so far.
    package var calls: Int { state.withTrackedLock { $0.calls } }

    /// Decides the fate of one call.
    @usableFromInline package func nextPlan() -> Plan {
        state.withTrackedLock { state in
            state.calls += 1
            var plan = Plan(latency: state.latency, error: nil)
            if state.failNext > 0 {
                state.failNext -= 1
                state.injected += 1
                plan.error = state.failNextError ?? InjectedFault(sequence: state.injected)
            } else if state.ratio > 0, Double.random(in: 0..<1, using: &state.random) < state.ratio {
                state.injected += 1
                plan.error = state.ratioError ?? InjectedFault(sequence: state.injected)
            }
            return plan
        }
    }
}

/// The fault-injection stage: applies a ``FaultInjector``'s plan to every call passing through.
///
/// Put it innermost (after retry) to see how the chain copes with a failing dependency.
package struct FaultInjectionStage: OperationMiddleware {
    /// The faults to apply.
    @usableFromInline package let injector: FaultInjector
    /// The clock latency is spent on.
    package let clock: RuntimeClock

    /// Creates the stage.
    package init(_ injector: FaultInjector, clock: some Clock<Duration> = ContinuousClock()) {
        self.injector = injector
        self.clock = RuntimeClock(clock)
    }

    nonisolated(nonsending) package func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        let plan = injector.nextPlan()
        if plan.latency > .zero { try await clock.sleep(for: plan.latency) }
        if let error = plan.error { throw error }
        return try await next(context)
    }
}
