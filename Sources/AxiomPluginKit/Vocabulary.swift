@_exported import AxiomCatalog

// The kit's first spellings of the catalog's words. A plugin now declares its codes in the catalog model the core's
// own domains use (`CodeDefinition` and its vocabulary, re-exported above); these names are kept so that a plugin
// written against them still compiles, with a warning that names the new spelling.

/// What kind of failure an error is, as the kit first spelled it.
@available(*, deprecated, renamed: "ErrorCategory")
public typealias Category = ErrorCategory

/// How serious an error is, as the kit first spelled it.
@available(*, deprecated, renamed: "ErrorSeverity")
public typealias Severity = ErrorSeverity

/// How the wait between retries grows, as the kit first spelled it.
@available(*, deprecated, renamed: "RetryPolicy.Backoff")
public typealias Backoff = RetryPolicy.Backoff

/// The haptic or audible weight of a presentation, as the kit first spelled it.
@available(*, deprecated, renamed: "FeedbackLevel")
public typealias Feedback = FeedbackLevel

/// How an error may be retried, as the kit first spelled it.
@available(*, deprecated, renamed: "RetryPolicy")
public typealias Retry = RetryPolicy

/// How an error is presented, as the kit first spelled it.
@available(*, deprecated, renamed: "PresentationRule")
public typealias Presentation = PresentationRule

/// A code's texts in one locale, as the kit first spelled them.
@available(*, deprecated, renamed: "CodeDefinition.Texts")
public typealias Texts = CodeDefinition.Texts

extension PresentationRule {
    /// A presentation with its style first and unlabeled, as the kit first spelled it.
    @available(*, deprecated, renamed: "init(style:duration:feedback:)")
    public init(_ style: PresentationStyle, duration: Duration?, feedback: FeedbackLevel) {
        self.init(style: style, duration: duration, feedback: feedback)
    }
}

extension CodeDefinition {
    /// A code that escalates to a `(domain, code)` pair, as the kit first spelled it.
    @available(*, deprecated, message: "pass the escalation as an ErrorCode: ErrorCode(domain, code)")
    public init(
        _ domain: String, _ code: String, numericAliases: [Int] = [], category: ErrorCategory,
        severity: ErrorSeverity = .error, disposition: Disposition = .handle, retry: RetryPolicy? = nil,
        messageKey: String? = nil, recoveryKey: String? = nil, presentation: PresentationRule? = nil,
        escalation: (domain: String, code: String), isSensitive: Bool = false, httpStatus: Int? = nil
    ) {
        self.init(
            domain, code, numericAliases: numericAliases, category: category, severity: severity,
            disposition: disposition, retry: retry, messageKey: messageKey, recoveryKey: recoveryKey,
            presentation: presentation, escalation: ErrorCode(escalation.domain, escalation.code),
            isSensitive: isSensitive, httpStatus: httpStatus)
    }
}
