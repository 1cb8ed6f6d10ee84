import AxiomCatalog

// The spellings the framework's first README used, kept so that code written against it still compiles, with a
// warning that names the new spelling. The fourth fate is `handle` everywhere (the fate, the handler, the decision
// and the resolution share one word); "default" is what it was called first.

extension Disposition {
    /// The last line, as the first README spelled it.
    @available(*, deprecated, renamed: "handle")
    public static var `default`: Disposition { .handle }
}

extension ErrorPipeline {
    /// Decides an error caught outside ``run(_:metadata:_:)``, as the first README spelled it.
    @available(*, deprecated, renamed: "decide(_:operation:metadata:)")
    @inlinable
    public func handle(
        _ error: consuming any Error, operation: String, metadata: [String: String] = [:]
    ) throws(EscalatedError) -> ErrorOutcome {
        try decide(error, operation: operation, metadata: metadata)
    }
}

/// A code of a built-in domain, as it was spelled before built-in domains and plugins shared one model.
@available(*, deprecated, renamed: "CodeDefinition")
public typealias BuiltinCode = CodeDefinition

/// A code's texts in one locale, as they were spelled before built-in domains and plugins shared one model.
@available(*, deprecated, renamed: "CodeDefinition.Texts")
public typealias BuiltinTexts = CodeDefinition.Texts

extension CodeDefinition {
    /// A code of a ``BuiltinDomain`` with its English and Turkish texts, as first spelled. Its domain is the one
    /// it is declared in.
    @available(*, deprecated, message: "use init(_:_:category:...texts:) with the domain and texts by locale")
    public init(
        name: String, category: ErrorCategory, severity: ErrorSeverity, disposition: Disposition,
        retry: RetryPolicy? = nil, escalation: ErrorCode? = nil, httpStatus: Int? = nil, english: Texts,
        turkish: Texts
    ) {
        self.init(
            "", name, category: category, severity: severity, disposition: disposition, retry: retry,
            escalation: escalation, httpStatus: httpStatus, texts: ["en": english, "tr": turkish])
    }

    /// The code within its domain, as first spelled.
    @available(*, deprecated, renamed: "code")
    public var name: String { code }

    /// The English texts, as first spelled.
    @available(*, deprecated, message: "use texts[\"en\"]")
    public var english: Texts { texts["en"] ?? Texts(title: "", message: "") }

    /// The Turkish texts, as first spelled.
    @available(*, deprecated, message: "use texts[\"tr\"]")
    public var turkish: Texts { texts["tr"] ?? Texts(title: "", message: "") }
}

extension CodeDefinition.Texts {
    /// Texts with the message first, as `BuiltinTexts` was spelled.
    @available(*, deprecated, message: "use init(title:message:recovery:)")
    public init(_ message: String, recovery: String? = nil, title: String) {
        self.init(title: title, message: message, recovery: recovery)
    }
}
