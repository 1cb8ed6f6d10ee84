import Logging
import Synchronization

/// The capability stage: refuses a call when a capability it requires is unavailable.
///
/// A fresh cached "available" costs one atomic load per capability and no clock reading; otherwise the
/// validator validates (with its timeout and fallbacks) and a failure throws the `CapabilityError` before the
/// call is attempted. A cached result ends by a timer on the validator's clock, at its TTL.
public struct CapabilityStage: OperationMiddleware {
    /// The validator consulted.
    @usableFromInline package let validator: CapabilityValidator
    @usableFromInline
    let slots: [CapabilitySlot]

    /// A stage requiring every capability in `names`.
    public init(_ validator: CapabilityValidator, requiring names: [String]) {
        self.validator = validator
        self.slots = names.map { validator.slot(for: $0) }
    }

    @inlinable @inline(__always)
    nonisolated(nonsending) public func run<Output: Sendable>(
        context: OperationContext,
        next: nonisolated(nonsending) @Sendable (OperationContext) async throws -> Output
    ) async throws -> Output {
        if !allFreshlyAvailable() { try await validateStale() }
        return try await next(context)
    }

    @usableFromInline
    func allFreshlyAvailable() -> Bool {
        for slot in slots where !slot.isFreshlyAvailable { return false }
        return true
    }

    @usableFromInline
    func validateStale() async throws(CapabilityError) {
        let now = validator.clock.now()
        for slot in slots {
            // A fresh "unavailable" is trusted for its shorter TTL too: a missing capability is not probed per call.
            if case .unavailable(let error) = await validator.status(of: slot, at: now) { throw error }
        }
    }
}
