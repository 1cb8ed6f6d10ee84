import Foundation

/// A requirement a capability did not meet: which capability, and what was missing.
public struct CapabilityRequirement: Sendable, Hashable, CustomStringConvertible {
    /// The capability's name (`network`, `storage`, `wallet`).
    public var capability: String
    /// What was required of it (`free space ≥ 100 MB`).
    public var detail: String

    /// Creates a requirement.
    public init(capability: String, detail: String) {
        self.capability = capability
        self.detail = detail
    }

    public var description: String { "\(capability): \(detail)" }
}

/// The framework's base errors. Domain `axiom`.
public enum AxiomError: IdentifiableError, LocalizedError, Sendable {
    case capabilityUnavailable(String)
    case stateCorruption(String)
    case architecturalViolation(String)
    case performanceThresholdExceeded(String)
    case configurationError(String)
    case unknownError(underlying: any Error)

    /// The domain of these errors.
    public static let domain = "axiom"

    public var errorCode: ErrorCode {
        switch self {
        case .capabilityUnavailable: ErrorCode(Self.domain, "capabilityUnavailable")
        case .stateCorruption: ErrorCode(Self.domain, "stateCorruption")
        case .architecturalViolation: ErrorCode(Self.domain, "architecturalViolation")
        case .performanceThresholdExceeded: ErrorCode(Self.domain, "performanceThresholdExceeded")
        case .configurationError: ErrorCode(Self.domain, "configurationError")
        case .unknownError: ErrorCode(Self.domain, "unknownError")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .capabilityUnavailable(let name): "The capability \(name) is unavailable."
        case .stateCorruption(let what): "The application state is corrupted: \(what)."
        case .architecturalViolation(let what): "An architectural rule was broken: \(what)."
        case .performanceThresholdExceeded(let what): "A performance threshold was exceeded: \(what)."
        case .configurationError(let what): "The configuration is invalid: \(what)."
        case .unknownError(let underlying): "An unexpected error occurred: \(underlying)."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .capabilityUnavailable: "Check that the resource is available, then try again."
        case .stateCorruption: "Restart the application to restore a known good state."
        case .architecturalViolation: "Report this to the developers; it is a bug."
        case .performanceThresholdExceeded: "Close other work or try again later."
        case .configurationError: "Correct the configuration and restart."
        case .unknownError: "Try again. If it keeps happening, contact support."
        }
    }
}

/// Errors of clients, the actors that own state. Domain `axiom.client`.
public enum ClientError: IdentifiableError, LocalizedError, Sendable {
    case invalidState
    case concurrencyViolation
    case updateFailed(underlying: any Error)
    case isolationBreach
    case actorDeallocation

    /// The domain of these errors.
    public static let domain = "axiom.client"

    public var errorCode: ErrorCode {
        switch self {
        case .invalidState: ErrorCode(Self.domain, "invalidState")
        case .concurrencyViolation: ErrorCode(Self.domain, "concurrencyViolation")
        case .updateFailed: ErrorCode(Self.domain, "updateFailed")
        case .isolationBreach: ErrorCode(Self.domain, "isolationBreach")
        case .actorDeallocation: ErrorCode(Self.domain, "actorDeallocation")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .invalidState: "The client is in a state that does not allow this operation."
        case .concurrencyViolation: "Two operations changed the client's state at the same time."
        case .updateFailed(let underlying): "The client's state could not be updated: \(underlying)."
        case .isolationBreach: "The client's state was reached from outside its actor."
        case .actorDeallocation: "The client was released while an operation was still running."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .invalidState: "Reset the client to a known good state and try again."
        case .concurrencyViolation: "Retry the operation; it will run after the other one."
        case .updateFailed: "Try the update again."
        case .isolationBreach: "Report this to the developers; it is a bug."
        case .actorDeallocation: "Keep the client alive for as long as its operations run."
        }
    }
}

/// Errors of contexts, which orchestrate clients for one use case. Domain `axiom.context`.
public enum ContextError: IdentifiableError, LocalizedError, Sendable {
    case bindingFailure(property: String)
    case orchestrationError(clients: [String])
    case stateObservationFailed
    case uiUpdateFailed(underlying: any Error)

    /// The domain of these errors.
    public static let domain = "axiom.context"

    public var errorCode: ErrorCode {
        switch self {
        case .bindingFailure: ErrorCode(Self.domain, "bindingFailure")
        case .orchestrationError: ErrorCode(Self.domain, "orchestrationError")
        case .stateObservationFailed: ErrorCode(Self.domain, "stateObservationFailed")
        case .uiUpdateFailed: ErrorCode(Self.domain, "uiUpdateFailed")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .bindingFailure(let property): "The property \(property) could not be bound."
        case .orchestrationError(let clients):
            "The clients \(clients.joined(separator: ", ")) could not be orchestrated."
        case .stateObservationFailed: "The context lost track of its clients' state."
        case .uiUpdateFailed(let underlying): "The screen could not be updated: \(underlying)."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .bindingFailure: "Reopen the screen."
        case .orchestrationError: "Try the action again."
        case .stateObservationFailed: "Reopen the screen to observe the state again."
        case .uiUpdateFailed: "Reopen the screen."
        }
    }
}

/// Errors of capabilities, the resources an operation needs. Domain `axiom.capability`.
public enum CapabilityError: IdentifiableError, LocalizedError, Sendable {
    case capabilityUnavailable(String)
    case requirementNotMet(CapabilityRequirement)
    case validationTimeout
    case executionFailed(underlying: any Error)
    case fallbackUnavailable

    /// The domain of these errors.
    public static let domain = "axiom.capability"

    public var errorCode: ErrorCode {
        switch self {
        case .capabilityUnavailable: ErrorCode(Self.domain, "capabilityUnavailable")
        case .requirementNotMet: ErrorCode(Self.domain, "requirementNotMet")
        case .validationTimeout: ErrorCode(Self.domain, "validationTimeout")
        case .executionFailed: ErrorCode(Self.domain, "executionFailed")
        case .fallbackUnavailable: ErrorCode(Self.domain, "fallbackUnavailable")
        }
    }

    public var errorDescription: String? {
        switch self {
        case .capabilityUnavailable(let name): "The capability \(name) is unavailable."
        case .requirementNotMet(let requirement): "A requirement was not met: \(requirement)."
        case .validationTimeout: "Checking the capability took too long."
        case .executionFailed(let underlying): "The capability failed: \(underlying)."
        case .fallbackUnavailable: "The capability is unavailable and there is no fallback."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .capabilityUnavailable: "Make the resource available, then try again."
        case .requirementNotMet: "Meet the requirement, then try again."
        case .validationTimeout: "Check your connection and try again."
        case .executionFailed: "Try again."
        case .fallbackUnavailable: "Make the resource available, then try again."
        }
    }
}
