/// The user-facing texts of one code in one locale.
public struct Texts: Sendable {
    /// Short heading: stored under `messageKey + ".title"`.
    public var title: String
    /// The message: stored under `messageKey`.
    public var message: String
    /// The recovery action's label ("Add Funds"): stored under the recovery key.
    public var recovery: String?

    /// Creates the texts of one locale.
    public init(title: String, message: String, recovery: String? = nil) {
        self.title = title
        self.message = message
        self.recovery = recovery
    }
}

extension PluginDefinition {
    /// Adds a code with its texts per locale, following the host's key convention: the message under the
    /// message key (default `error.<domain>.<code>`), the title under `<message key>.title`, the recovery
    /// action under the recovery key (default `<message key>.recovery` when a text has one).
    public mutating func add(_ code: CodeDefinition, texts: [String: Texts]) {
        var code = code
        let messageKey = code.messageKey ?? "error.\(code.domain).\(code.code)"
        code.messageKey = messageKey
        if code.recoveryKey == nil, texts.values.contains(where: { $0.recovery != nil }) {
            code.recoveryKey = messageKey + ".recovery"
        }
        for (locale, text) in texts {
            messages[locale, default: [:]][messageKey] = text.message
            messages[locale, default: [:]][messageKey + ".title"] = text.title
            if let recoveryKey = code.recoveryKey, let recovery = text.recovery {
                messages[locale, default: [:]][recoveryKey] = recovery
            }
        }
        codes.append(code)
    }
}
