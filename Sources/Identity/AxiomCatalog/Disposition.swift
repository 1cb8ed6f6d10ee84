/// The fate of an error: what the handler pipeline does with it.
public enum Disposition: String, Sendable, Hashable, Codable, CaseIterable {
    /// Expected: not shown, logged at debug, counted.
    case ignore
    /// Try to make the operation succeed: retry, refresh then retry, fall back to a value.
    case recover
    /// Not handleable here: pass it, maybe translated, to the next layer.
    case escalate
    /// The last line: log, count, capture the stack, present, and end. An inner layer passes such an error on,
    /// so it is handled by the terminal layer (the one with no layer to escalate to).
    case handle

    /// A disposition by name. `default`, the name version-1 plugins and older catalogs use for `handle`, is
    /// read as `handle`.
    public init?(rawValue: String) {
        switch rawValue {
        case "ignore": self = .ignore
        case "recover": self = .recover
        case "escalate": self = .escalate
        case "handle", "default": self = .handle
        default: return nil
        }
    }
}
