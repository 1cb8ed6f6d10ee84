import ArgumentParser
import Axiom
import Foundation

/// `axiom explain DOMAIN CODE [--json]`: everything the runtime knows about one error code.
struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what the runtime decides for an error code.",
        discussion: "CODE is the code's name (RATE_LIMITED) or one of its numeric aliases (-32003)."
    )

    @Argument(help: "The error domain, for example axiom.client or nwc.")
    var domain: String

    @Argument(help: "The code's name or numeric alias.")
    var code: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var plugins: PluginOptions

    func run() async throws {
        plugins.loadWarningAboutRejections()
        let registry = ErrorRegistry.shared
        guard let descriptor = registry.descriptor(for: ErrorCode(domain, code)) else {
            let near = registry.suggestions(domain: domain, code: code)
            var message = "axiom: unknown error code \(domain)/\(code)"
            if registry.source(ofDomain: domain) == nil { message += " (no domain '\(domain)' is registered)" }
            if !near.isEmpty { message += ". Closest known codes: " + near.map(\.description).joined(separator: ", ") }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw ExitCode(1)
        }
        let report = ExplainReport(descriptor)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
    }
}

/// The JSON shape of `axiom explain --json`. Keys are stable: scripts read them.
struct ExplainReport: Encodable {
    struct Retry: Encodable {
        let maxAttempts: Int
        let backoff: String
        let delaySeconds: Double
        let maxDelaySeconds: Double
        let honorsRetryAfter: Bool
    }

    let domain: String
    let code: String
    let numericCode: Int?
    let category: String
    let severity: String
    let disposition: String
    let retry: Retry?
    let messageKey: String
    let recoverySuggestionKey: String?
    let escalation: String?
    let sensitive: Bool
    let source: String

    init(_ descriptor: ErrorDescriptor) {
        domain = descriptor.code.domain
        code = descriptor.code.code
        numericCode = descriptor.numericCode
        category = descriptor.category.rawValue
        severity = descriptor.severity.rawValue
        disposition = descriptor.disposition.rawValue
        retry = descriptor.retry.map {
            Retry(
                maxAttempts: $0.maxAttempts, backoff: $0.backoff.rawValue, delaySeconds: $0.delay.seconds,
                maxDelaySeconds: $0.maxDelay.seconds, honorsRetryAfter: $0.honorsRetryAfter)
        }
        messageKey = descriptor.messageKey
        recoverySuggestionKey = descriptor.recoverySuggestionKey
        escalation = descriptor.escalation?.description
        sensitive = descriptor.isSensitive
        source = descriptor.source
    }

    enum CodingKeys: String, CodingKey {
        case domain, code, numericCode, category, severity, disposition, retry, messageKey, recoverySuggestionKey
        case escalation, sensitive, source
    }

    // Optional keys are written as null rather than left out: readers can rely on every key being there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(code, forKey: .code)
        try container.encode(numericCode, forKey: .numericCode)
        try container.encode(category, forKey: .category)
        try container.encode(severity, forKey: .severity)
        try container.encode(disposition, forKey: .disposition)
        try container.encode(retry, forKey: .retry)
        try container.encode(messageKey, forKey: .messageKey)
        try container.encode(recoverySuggestionKey, forKey: .recoverySuggestionKey)
        try container.encode(escalation, forKey: .escalation)
        try container.encode(sensitive, forKey: .sensitive)
        try container.encode(source, forKey: .source)
    }

    var text: String {
        var lines = [
            "\(domain)/\(code)" + (numericCode.map { " (\($0))" } ?? ""),
            "  category:     \(category)",
            "  severity:     \(severity)",
            "  disposition:  \(disposition)",
        ]
        if let retry {
            lines.append(
                "  retry:        up to \(retry.maxAttempts) attempts, \(retry.backoff) backoff from \(retry.delaySeconds) s"
            )
        } else {
            lines.append("  retry:        never")
        }
        if let escalation { lines.append("  escalates to: \(escalation)") }
        lines.append("  message key:  \(messageKey)")
        if let recoverySuggestionKey { lines.append("  recovery key: \(recoverySuggestionKey)") }
        lines.append("  source:       \(source)")
        return lines.joined(separator: "\n")
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
