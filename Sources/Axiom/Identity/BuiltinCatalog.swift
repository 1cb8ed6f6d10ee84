extension ErrorCatalog {
    /// The source name of the framework's own catalog.
    public static let builtinSource = "builtin"

    /// The code used for errors whose type the registry cannot identify.
    public static let unknownCode = ErrorCode(AxiomError.domain, "unknownError")

    /// The code of Swift's `CancellationError`.
    public static let cancellationCode = ErrorCode("swift", "CancellationError")

    /// The framework's own domains: `axiom`, `axiom.client`, `axiom.context`, `axiom.capability`, and `swift`
    /// for `CancellationError`. Present in every registry from the start.
    public static let builtin: ErrorCatalog = {
        typealias D = ErrorDescriptor
        func key(_ domain: String, _ code: String) -> String { "error.\(domain).\(code)" }
        func describe(
            _ error: some IdentifiableError, _ category: ErrorCategory, _ severity: ErrorSeverity,
            _ disposition: Disposition, retry: RetryPolicy? = nil, escalation: ErrorCode? = nil
        ) -> D {
            let code = error.errorCode
            return D(
                code: code, category: category, severity: severity, disposition: disposition, retry: retry,
                messageKey: key(code.domain, code.code),
                recoverySuggestionKey: key(code.domain, code.code) + ".recovery",
                escalation: escalation)
        }
        struct Placeholder: Error {}
        let none = Placeholder()
        let axiom: [D] = [
            describe(AxiomError.capabilityUnavailable(""), .capability, .warning, .escalate),
            describe(AxiomError.stateCorruption(""), .state, .critical, .default),
            describe(AxiomError.architecturalViolation(""), .general, .critical, .default),
            describe(AxiomError.performanceThresholdExceeded(""), .general, .warning, .default),
            describe(AxiomError.configurationError(""), .configuration, .error, .default),
            describe(AxiomError.unknownError(underlying: none), .general, .error, .default),
        ]
        let client: [D] = [
            describe(
                ClientError.invalidState, .state, .error, .escalate,
                escalation: ContextError.stateObservationFailed.errorCode),
            describe(
                ClientError.concurrencyViolation, .state, .warning, .recover,
                retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .milliseconds(100))),
            describe(
                ClientError.updateFailed(underlying: none), .state, .error, .recover,
                retry: RetryPolicy(maxAttempts: 2, backoff: .constant, delay: .milliseconds(250))),
            describe(ClientError.isolationBreach, .general, .critical, .default),
            describe(ClientError.actorDeallocation, .state, .error, .default),
        ]
        let context: [D] = [
            describe(ContextError.bindingFailure(property: ""), .state, .error, .default),
            describe(ContextError.orchestrationError(clients: []), .general, .error, .default),
            describe(ContextError.stateObservationFailed, .state, .error, .default),
            describe(ContextError.uiUpdateFailed(underlying: none), .general, .warning, .default),
        ]
        let capability: [D] = [
            describe(CapabilityError.capabilityUnavailable(""), .capability, .warning, .escalate),
            describe(
                CapabilityError.requirementNotMet(CapabilityRequirement(capability: "", detail: "")), .capability,
                .warning, .default),
            describe(
                CapabilityError.validationTimeout, .capability, .warning, .recover,
                retry: RetryPolicy(maxAttempts: 3, backoff: .exponential, delay: .seconds(1))),
            describe(CapabilityError.executionFailed(underlying: none), .capability, .error, .escalate),
            describe(CapabilityError.fallbackUnavailable, .capability, .error, .default),
        ]
        let cancellation = D(
            code: cancellationCode, category: .cancellation, severity: .debug, disposition: .ignore,
            messageKey: "error.swift.CancellationError")

        var english: [String: String] = ["error.general.unexpected": "Something went wrong. Please try again."]
        let samples: [any IdentifiableError & LocalizedErrorLike] = [
            AxiomError.capabilityUnavailable("the capability"), AxiomError.stateCorruption("unknown state"),
            AxiomError.architecturalViolation("unknown rule"),
            AxiomError.performanceThresholdExceeded("a time limit"),
            AxiomError.configurationError("a missing setting"), AxiomError.unknownError(underlying: none),
            ClientError.invalidState, ClientError.concurrencyViolation, ClientError.updateFailed(underlying: none),
            ClientError.isolationBreach, ClientError.actorDeallocation,
            ContextError.bindingFailure(property: "a property"),
            ContextError.orchestrationError(clients: ["its clients"]), ContextError.stateObservationFailed,
            ContextError.uiUpdateFailed(underlying: none), CapabilityError.capabilityUnavailable("the capability"),
            CapabilityError.requirementNotMet(CapabilityRequirement(capability: "a capability", detail: "a need")),
            CapabilityError.validationTimeout, CapabilityError.executionFailed(underlying: none),
            CapabilityError.fallbackUnavailable,
        ]
        for sample in samples {
            let k = key(sample.errorCode.domain, sample.errorCode.code)
            english[k] = sample.genericDescription
            english[k + ".recovery"] = sample.recoverySuggestion
        }
        english["error.swift.CancellationError"] = "The operation was cancelled."
        english.merge(resilienceMessages) { builtin, _ in builtin }
        return ErrorCatalog(
            source: builtinSource, version: "1.0.0",
            domains: [
                AxiomError.domain, ClientError.domain, ContextError.domain, CapabilityError.domain, "swift",
                CircuitOpenError.domain,
            ],
            descriptors: axiom + client + context + capability + [cancellation] + resilienceDescriptors,
            messages: BuiltinMessages.tables(english: english))
    }()
}

/// The framework errors' user-facing texts, without the payload details a generic message cannot know.
protocol LocalizedErrorLike {
    var genericDescription: String { get }
    var recoverySuggestion: String? { get }
}

extension AxiomError: LocalizedErrorLike {
    var genericDescription: String {
        switch self {
        case .capabilityUnavailable: "A capability this needs is unavailable."
        case .stateCorruption: "The application state is corrupted."
        case .architecturalViolation: "An internal rule was broken."
        case .performanceThresholdExceeded: "This is taking longer than it should."
        case .configurationError: "The configuration is invalid."
        case .unknownError: "Something went wrong. Please try again."
        }
    }
}
extension ClientError: LocalizedErrorLike {
    var genericDescription: String {
        switch self {
        case .updateFailed: "The client's state could not be updated."
        default: errorDescription ?? ""
        }
    }
}
extension ContextError: LocalizedErrorLike {
    var genericDescription: String {
        switch self {
        case .bindingFailure: "Part of the screen could not be connected to its data."
        case .orchestrationError: "The parts of this task did not work together."
        case .stateObservationFailed: errorDescription ?? ""
        case .uiUpdateFailed: "The screen could not be updated."
        }
    }
}
extension CapabilityError: LocalizedErrorLike {
    var genericDescription: String {
        switch self {
        case .capabilityUnavailable: "A capability this needs is unavailable."
        case .requirementNotMet: "A requirement of this action is not met."
        case .validationTimeout, .fallbackUnavailable: errorDescription ?? ""
        case .executionFailed: "A capability this needs failed."
        }
    }
}
