/// One error code of a plugin's catalog and everything the runtime decides about it.
public struct CodeDefinition: Sendable {
    /// The domain: one of the plugin's domains.
    public var domain: String
    /// The code within the domain: `RATE_LIMITED`.
    public var code: String
    /// Numbers that name the same code in its domain (a JSON-RPC code, a cause code, a SIP status).
    public var numericAliases: [Int]
    /// What kind of failure it is.
    public var category: Category
    /// How serious it is.
    public var severity: Severity
    /// What the host's generic handlers do with it.
    public var disposition: Disposition
    /// `nil`: never retried.
    public var retry: Retry?
    /// The message's localization key; `nil` is `error.<domain>.<code>`. The title is
    /// `messageKey + ".title"`.
    public var messageKey: String?
    /// The localization key of the recovery action ("Add Funds"), if there is one.
    public var recoveryKey: String?
    /// `nil`: the category's default presentation.
    public var presentation: Presentation?
    /// What an escalation becomes: (domain, code).
    public var escalation: (domain: String, code: String)?
    /// Whether the payload may hold secrets.
    public var isSensitive: Bool
    /// The HTTP status a server answers with when this error ends a request (400...599); `nil` leaves it to the
    /// category's default. Hosts built before ABI revision 2 do not read it.
    public var httpStatus: Int?

    /// Creates a code definition.
    public init(
        _ domain: String, _ code: String, numericAliases: [Int] = [], category: Category,
        severity: Severity = .error, disposition: Disposition = .handle, retry: Retry? = nil,
        messageKey: String? = nil, recoveryKey: String? = nil, presentation: Presentation? = nil,
        escalation: (domain: String, code: String)? = nil, isSensitive: Bool = false, httpStatus: Int? = nil
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
    }
}

/// A plugin: its identity and its catalog, as Swift values.
public struct PluginDefinition: Sendable {
    /// Reverse-DNS id, unique per process: `org.example.payments`. The host reports it as the source of
    /// every descriptor the plugin registers.
    public var id: String
    /// The plugin's own version.
    public var version: String
    /// The domains the plugin owns. No other source may register them.
    public var domains: [String]
    /// The codes.
    public var codes: [CodeDefinition]
    /// Texts per locale, then per key: `messages["tr"]["error.nwc.RATE_LIMITED"]`.
    public var messages: [String: [String: String]]

    /// Creates a plugin definition.
    public init(
        id: String, version: String, domains: [String], codes: [CodeDefinition],
        messages: [String: [String: String]] = [:]
    ) {
        self.id = id
        self.version = version
        self.domains = domains
        self.codes = codes
        self.messages = messages
    }
}

/// A reason a plugin cannot start. Throw it (or any error) from the closure given to ``PluginExport``:
/// the host receives a failed status with this message instead of a catalog.
public struct PluginInitError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// Creates an init failure with a message for the host's diagnostics.
    public init(_ description: String) { self.description = description }
}
