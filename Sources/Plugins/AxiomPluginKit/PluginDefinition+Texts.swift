extension PluginDefinition {
    /// Adds a code with its texts per locale (they replace the texts the code had). The texts are stored under the
    /// host's key convention (`CodeDefinition.messageKeys`): the message under the message key (default
    /// `error.<domain>.<code>`), the title under `<message key>.title`, the recovery action under the recovery key
    /// (default `<message key>.recovery` when a text has one).
    public mutating func add(_ code: CodeDefinition, texts: [String: CodeDefinition.Texts]) {
        var code = code
        code.texts = texts
        codes.append(code)
    }
}
