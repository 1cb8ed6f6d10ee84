/// One error code as a catalog declares it: its identity, everything the runtime decides about it, and its
/// user-facing texts per locale.
///
/// The one model of a catalog entry. The framework's own domains (`BuiltinDomain` in the core), an application's
/// catalog (`ErrorCatalog(source:version:domains:definitions:)`) and a plugin (`PluginDefinition` in
/// AxiomPluginKit, which turns it into the C ABI's `axiom_plugin_code`) all declare their codes with it:
///
/// ```swift
/// CodeDefinition(
///     "shop", "OUT_OF_STOCK", category: .state, severity: .warning, httpStatus: 409,
///     texts: [
///         "en": .init(title: "Sold Out", message: "This item is no longer in stock."),
///         "tr": .init(title: "Tükendi", message: "Bu ürün artık stokta yok."),
///     ])
/// ```
///
/// Texts are stored under the keys every catalog uses (`messageKeys`): the message under
/// `error.<domain>.<code>`, its title under `.title` after it, its recovery action under `.recovery`.
public struct CodeDefinition: Sendable, Hashable {
    /// A code's user-facing texts in one locale: generic, without payload details a catalog cannot know.
    public struct Texts: Sendable, Hashable {
        /// A short heading: stored under the message key followed by `.title`.
        package var title: String
        /// What happened: stored under the message key.
        package var message: String
        /// What the user can do ("Add Funds"), if anything: stored under the recovery key.
        package var recovery: String?

        /// The texts of one locale.
        public init(title: String, message: String, recovery: String? = nil) {
            self.title = title
            self.message = message
            self.recovery = recovery
        }
    }

    /// The domain: one of the catalog's domains.
    package var domain: String
    /// The code within the domain: `RATE_LIMITED`, `invalidState`.
    package var code: String
    /// Numbers that name the same code in its domain (a JSON-RPC code, a cause code, a SIP status).
    package var numericAliases: [Int]
    /// What kind of failure it is.
    package var category: ErrorCategory
    /// How serious it is.
    package var severity: ErrorSeverity
    /// What the generic handlers do with it.
    package var disposition: Disposition
    /// How it may be retried; `nil`: never.
    package var retry: RetryPolicy?
    /// The message's localization key; `nil` is `error.<domain>.<code>`. The title is under this key followed by
    /// `.title`.
    package var messageKey: String?
    /// The localization key of the recovery action; `nil` is the message key followed by `.recovery` when a text
    /// has a recovery, and no key otherwise.
    package var recoveryKey: String?
    /// How it is presented; `nil`: the category's default.
    package var presentation: PresentationRule?
    /// What an escalation by the generic handler turns it into.
    package var escalation: ErrorCode?
    /// Whether the payload may hold secrets, so that it is never logged verbatim.
    package var isSensitive: Bool
    /// The HTTP status a server answers with when this error ends a request (400...599); `nil` leaves it to the
    /// category's default.
    package var httpStatus: Int?
    /// Its texts, by locale (`en`, `tr`, `pt-br`). Give every code its `en` texts: the registry refuses a catalog
    /// that lacks the English text of a key it references, and every other language falls back to English.
    package var texts: [String: Texts]

    /// Declares a code.
    public init(
        _ domain: String, _ code: String, numericAliases: [Int] = [], category: ErrorCategory,
        severity: ErrorSeverity = .error, disposition: Disposition = .handle, retry: RetryPolicy? = nil,
        messageKey: String? = nil, recoveryKey: String? = nil, presentation: PresentationRule? = nil,
        escalation: ErrorCode? = nil, isSensitive: Bool = false, httpStatus: Int? = nil,
        texts: [String: Texts] = [:]
    ) {
        self.domain = domain
        self.code = code
        self.numericAliases = numericAliases
        self.category = category
        self.severity = severity
        self.disposition = disposition
        self.retry = retry
        self.messageKey = messageKey
        self.recoveryKey = recoveryKey
        self.presentation = presentation
        self.escalation = escalation
        self.isSensitive = isSensitive
        self.httpStatus = httpStatus
        self.texts = texts
    }

    /// The identity it declares.
    package var identity: ErrorCode { ErrorCode(domain, code) }

    /// The keys its texts are stored under: the message key given or `error.<domain>.<code>`; the recovery key
    /// given, or the message key followed by `.recovery` when one of its texts has a recovery.
    package var messageKeys: (message: String, recovery: String?) {
        let message = messageKey ?? "error.\(domain).\(code)"
        let recovery =
            recoveryKey ?? (texts.values.contains { $0.recovery != nil } ? message + ".recovery" : nil)
        return (message, recovery)
    }

    /// Adds its texts to `messages` (per locale, then per key) under ``messageKeys``. A key `messages` holds
    /// already keeps its text.
    package func addTexts(to messages: inout [String: [String: String]]) {
        let keys = messageKeys
        for (locale, texts) in self.texts {
            // The locale's table is changed in place: a copy of it for each code would make declaring a catalog of n
            // codes cost O(n²).
            Self.add(texts, under: keys, to: &messages[locale, default: [:]])
        }
    }

    private static func add(
        _ texts: Texts, under keys: (message: String, recovery: String?), to table: inout [String: String]
    ) {
        if table[keys.message] == nil { table[keys.message] = texts.message }
        let title = keys.message + ".title"
        if table[title] == nil { table[title] = texts.title }
        if let key = keys.recovery, let recovery = texts.recovery, table[key] == nil { table[key] = recovery }
    }
}
