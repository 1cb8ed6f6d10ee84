import AxiomCore

/// What vetting a plugin file decided: its catalog, or why it is refused. The scanner sends it to the host over a
/// pipe and the host keeps it in the verdict cache, both in the same plain-data form (``encoded()``).
///
/// The form is a sequence of netstrings (`<decimal length>:<bytes>,`), starting with a version tag. The host reads
/// it as outside data: ``decode(_:)`` checks every length and count and answers nil for anything malformed.
enum PluginVerdict: Sendable {
    case accepted(Accepted)
    case refused(PluginRejection.Code, String)

    struct Accepted: Sendable {
        var id: String
        var version: String
        var toolchain: String
        var catalog: ErrorCatalog
    }

    static let tag = "axiom-plugin-verdict-1"

    /// The verdict as bytes.
    func encoded() -> [UInt8] {
        var writer = Writer()
        writer.put(Self.tag)
        switch self {
        case .refused(let reason, let detail):
            writer.put("refused")
            writer.put(reason.name)
            writer.put(detail)
        case .accepted(let plugin):
            writer.put("accepted")
            writer.put(plugin.id)
            writer.put(plugin.version)
            writer.put(plugin.toolchain)
            writer.put(plugin.catalog.domains)
            writer.put(plugin.catalog.descriptors.count)
            for descriptor in plugin.catalog.descriptors { writer.put(descriptor) }
            let locales = plugin.catalog.messages.keys.sorted()
            writer.put(locales.count)
            for locale in locales {
                let table = plugin.catalog.messages[locale]!
                writer.put(locale)
                writer.put(table.count)
                for key in table.keys.sorted() {
                    writer.put(key)
                    writer.put(table[key]!)
                }
            }
        }
        return writer.bytes
    }

    /// The verdict encoded in `bytes`, or nil when they are not exactly one well-formed verdict.
    static func decode(_ bytes: [UInt8]) -> PluginVerdict? {
        var reader = Reader(bytes: bytes)
        guard let verdict = try? reader.verdict(), reader.atEnd else { return nil }
        return verdict
    }

    /// Writes netstrings.
    struct Writer {
        var bytes: [UInt8] = []

        mutating func put(_ text: String) {
            bytes += Array(String(text.utf8.count).utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes += Array(text.utf8)
            bytes.append(UInt8(ascii: ","))
        }
        mutating func put(_ number: Int) { put(String(number)) }
        mutating func put(_ flag: Bool) { put(flag ? "1" : "0") }
        mutating func put(_ texts: [String]) {
            put(texts.count)
            for text in texts { put(text) }
        }
        /// An optional value: `-` for none, `+` then the value.
        mutating func put<T>(_ value: T?, _ body: (inout Writer, T) -> Void) {
            guard let value else { return put("-") }
            put("+")
            body(&self, value)
        }

        mutating func put(_ descriptor: ErrorDescriptor) {
            put(descriptor.code.domain)
            put(descriptor.code.code)
            put(descriptor.numericAliases.count)
            for alias in descriptor.numericAliases { put(alias) }
            put(descriptor.category.rawValue)
            put(descriptor.severity.rawValue)
            put(descriptor.disposition.rawValue)
            put(descriptor.retry) { writer, retry in
                writer.put(retry.maxAttempts)
                writer.put(retry.backoff.rawValue)
                writer.put(Int(retry.delay.milliseconds))
                writer.put(Int(retry.maxDelay.milliseconds))
                writer.put(retry.jitter)
                writer.put(retry.honorsRetryAfter)
            }
            put(descriptor.messageKey)
            put(descriptor.recoverySuggestionKey) { $0.put($1) }
            put(descriptor.presentation) { writer, rule in
                writer.put(rule.style.rawValue)
                writer.put(rule.duration.map { Int($0.milliseconds) }) { $0.put($1) }
                writer.put(rule.feedback.rawValue)
            }
            put(descriptor.escalation) { writer, code in
                writer.put(code.domain)
                writer.put(code.code)
            }
            put(descriptor.isSensitive)
            put(descriptor.httpStatus) { $0.put($1) }
        }
    }

    struct Malformed: Error {}

    /// Reads netstrings, refusing anything out of bounds.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func text() throws(Malformed) -> String {
            var length = 0
            var digits = 0
            while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 {
                length = length * 10 + Int(bytes[offset] - 0x30)
                digits += 1
                offset += 1
                guard digits <= 9 else { throw Malformed() }
            }
            guard digits > 0, offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw Malformed() }
            offset += 1
            guard length <= bytes.count - offset - 1, bytes[offset + length] == UInt8(ascii: ",") else {
                throw Malformed()
            }
            guard let value = String(validating: bytes[offset..<(offset + length)], as: UTF8.self) else {
                throw Malformed()
            }
            offset += length + 1
            return value
        }

        mutating func number() throws(Malformed) -> Int {
            guard let value = Int(try text()) else { throw Malformed() }
            return value
        }

        /// A count of items that follow, each at least one netstring long: never more than the bytes left.
        mutating func count() throws(Malformed) -> Int {
            let value = try number()
            guard value >= 0, value <= (bytes.count - offset) / 3 else { throw Malformed() }
            return value
        }

        mutating func flag() throws(Malformed) -> Bool {
            switch try text() {
            case "1": return true
            case "0": return false
            default: throw Malformed()
            }
        }

        mutating func known<T: RawRepresentable>() throws(Malformed) -> T where T.RawValue == String {
            guard let value = T(rawValue: try text()) else { throw Malformed() }
            return value
        }

        mutating func optional<T>(_ body: (inout Reader) throws(Malformed) -> T) throws(Malformed) -> T? {
            switch try text() {
            case "-": return nil
            case "+": return try body(&self)
            default: throw Malformed()
            }
        }

        mutating func milliseconds() throws(Malformed) -> Duration {
            let value = try number()
            guard value >= 0, value <= DescriptorReader.maxDelayMilliseconds else { throw Malformed() }
            return .milliseconds(value)
        }

        mutating func verdict() throws(Malformed) -> PluginVerdict {
            guard try text() == PluginVerdict.tag else { throw Malformed() }
            switch try text() {
            case "refused":
                guard let reason = PluginRejection.Code(named: try text()) else { throw Malformed() }
                return .refused(reason, try text())
            case "accepted":
                let id = try text()
                let version = try text()
                let toolchain = try text()
                var domains: [String] = []
                for _ in 0..<(try count()) { domains.append(try text()) }
                var descriptors: [ErrorDescriptor] = []
                for _ in 0..<(try count()) { descriptors.append(try descriptor(source: id)) }
                var messages: [String: [String: String]] = [:]
                for _ in 0..<(try count()) {
                    let locale = try text()
                    var table: [String: String] = [:]
                    for _ in 0..<(try count()) {
                        let key = try text()
                        table[key] = try text()
                    }
                    messages[locale] = table
                }
                return .accepted(
                    Accepted(
                        id: id, version: version, toolchain: toolchain,
                        catalog: ErrorCatalog(
                            source: id, version: version, domains: domains, descriptors: descriptors,
                            messages: messages)))
            default:
                throw Malformed()
            }
        }

        mutating func descriptor(source: String) throws(Malformed) -> ErrorDescriptor {
            let code = ErrorCode(try text(), try text())
            var aliases: [Int] = []
            for _ in 0..<(try count()) { aliases.append(try number()) }
            let category: ErrorCategory = try known()
            let severity: ErrorSeverity = try known()
            let disposition: Disposition = try known()
            let retry = try optional { (reader: inout Reader) throws(Malformed) -> RetryPolicy in
                let attempts = try reader.number()
                guard attempts >= 1 else { throw Malformed() }
                let backoff: RetryPolicy.Backoff = try reader.known()
                return RetryPolicy(
                    maxAttempts: attempts, backoff: backoff, delay: try reader.milliseconds(),
                    maxDelay: try reader.milliseconds(), jitter: try reader.flag(),
                    honorsRetryAfter: try reader.flag())
            }
            let messageKey = try text()
            let recoveryKey = try optional { (reader: inout Reader) throws(Malformed) in try reader.text() }
            let presentation = try optional { (reader: inout Reader) throws(Malformed) -> PresentationRule in
                let style: PresentationStyle = try reader.known()
                let duration = try reader.optional { (reader: inout Reader) throws(Malformed) in
                    try reader.milliseconds()
                }
                return PresentationRule(style: style, duration: duration, feedback: try reader.known())
            }
            let escalation = try optional { (reader: inout Reader) throws(Malformed) in
                ErrorCode(try reader.text(), try reader.text())
            }
            let sensitive = try flag()
            let status = try optional { (reader: inout Reader) throws(Malformed) in try reader.number() }
            return ErrorDescriptor(
                code: code, numericAliases: aliases, category: category, severity: severity,
                disposition: disposition, retry: retry, messageKey: messageKey, recoverySuggestionKey: recoveryKey,
                presentation: presentation, escalation: escalation, isSensitive: sensitive, httpStatus: status,
                source: source)
        }
    }
}

extension Duration {
    /// The whole milliseconds of a duration.
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
