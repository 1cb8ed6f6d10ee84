import CoreMetrics
import Logging
import Synchronization

/// The circuit-breaker stage: refuses calls while the breaker is open and reports each outcome to it.
public struct CircuitBreakerStage: OperationMiddleware {
    /// The breaker consulted for every call.
    @usableFromInline package let breaker: CircuitBreaker
    /// Where refusals are counted (`axiom_resilience_events_total{stage="breaker", event="rejection"}`); the
    /// breaker counts its transitions itself. Nil: nowhere.
    @usableFromInline package let telemetry: ResilienceTelemetry?

    /// A stage guarded by `breaker`.
    public init(_ breaker: CircuitBreaker, telemetry: ResilienceTelemetry? = nil) {
        self.breaker = breaker
        self.telemetry = telemetry
    }

    /// A stage guarded by the breaker of `key` in `breakers`.
    public init(_ breakers: CircuitBreakers, key: String, telemetry: ResilienceTelemetry? = nil) {
        self.init(breakers.breaker(for: key), telemetry: telemetry)
    }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        let permit: CircuitBreaker.Permit
        do {
            permit = try breaker.acquire()
        } catch {
            telemetry?.event("rejection", stage: "breaker", operation: context.name, outcome: "\(error.state)")
            throw error
        }
        // The clock is read only when slow calls are configured: the happy path stays two atomic loads.
        let timed = breaker.measuresDuration
        let start = timed ? breaker.now() : .zero
        do {
            let value = try await next(context)
            breaker.recordSuccess(permit, duration: timed ? breaker.now() - start : nil)
            return value
        } catch {
            breaker.recordFailure(permit, error: error, duration: timed ? breaker.now() - start : nil)
            throw error
        }
    }
}
