/// Follows each error's descriptor: its disposition, its retry policy, its escalation code.
///
/// This is what lets an application handle a domain it has never seen, once a plugin registers it.
/// A `recover` descriptor whose retries are used up passes, so a later handler (or the layer's end) decides.
/// A `default` descriptor passes too: the last line belongs to the terminal layer, so an inner layer
/// escalates it and the application's layer handles it.
///
/// Given a ``RetryBudget``, each retry is taken from it; a retry the budget refuses is not made and the event
/// passes.
public struct FollowDescriptor: ErrorHandler {
    /// The budget retries are taken from; nil: the descriptors' policies alone limit them.
    package let budget: RetryBudget?

    /// Creates the handler.
    public init(budget: RetryBudget? = nil) { self.budget = budget }

    public func decide(_ event: ErrorEvent) -> ErrorDecision {
        let descriptor = event.descriptor
        switch descriptor.disposition {
        case .ignore:
            return .ignore
        case .recover:
            guard let retry = Recover.plannedRetry(descriptor.retry, event, budget: budget) else { return .pass }
            return .recover(retry)
        case .escalate:
            guard let target = descriptor.escalation else { return .escalate(translatedTo: nil) }
            return .escalate(
                translatedTo: DomainError(
                    domain: target.domain, code: target.code, message: "escalated from \(descriptor.code)"))
        case .handle:
            // The last line is the terminal layer's: an inner layer passes, so its pipeline escalates.
            return .pass
        }
    }
}
