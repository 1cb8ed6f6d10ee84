import ArgumentParser
import Axiom
import FoundationEssentials

/// `axiom explain DOMAIN CODE [--json]`: everything the runtime knows about one error code.
struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show what the runtime decides for an error code.",
        discussion: "CODE is the code's name (RATE_LIMITED) or one of its numeric aliases (-32003)."
    )

    @Argument(help: "The error domain, for example axiom.client or nwc.")
    var domain: String

    @Argument(help: "The code's name or numeric alias.")
    var code: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(help: "The locale of the title and messages: en or tr. Others fall back to English.")
    var locale = Localizer.baseLocale

    @OptionGroup var plugins: PluginOptions

    func run() async throws {
        plugins.loadWarningAboutRejections()
        let registry = ErrorRegistry.shared
        guard let descriptor = registry.descriptor(for: ErrorCode(domain, code)) else {
            let near = registry.suggestions(domain: domain, code: code)
            var message = "axiom: unknown error code \(domain)/\(code)"
            if registry.source(ofDomain: domain) == nil { message += " (no domain '\(domain)' is registered)" }
            if !near.isEmpty { message += ". Closest known codes: " + near.map(\.description).joined(separator: ", ") }
            printError(message)
            throw ExitCode(1)
        }
        let report = ExplainReport(
            descriptor, presentation: ErrorMapper(registry: registry, locale: locale).map(descriptor))
        if json {
            try printJSON(report)
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
        let jitter: Bool
        let honorsRetryAfter: Bool
    }

    struct Presentation: Encodable {
        let style: String
        /// Null means until dismissed.
        let durationSeconds: Double?
        let feedback: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(style, forKey: .style)
            try container.encode(durationSeconds, forKey: .durationSeconds)
            try container.encode(feedback, forKey: .feedback)
        }

        enum CodingKeys: String, CodingKey { case style, durationSeconds, feedback }
    }

    let domain: String
    let code: String
    let numericCode: Int?
    /// Every number that names the code in its domain, `numericCode` first.
    let numericAliases: [Int]
    let category: String
    let severity: String
    let disposition: String
    let retry: Retry?
    let messageKey: String
    let recoverySuggestionKey: String?
    let escalation: String?
    let sensitive: Bool
    /// The code's own HTTP status; null leaves it to the category's default.
    let httpStatus: Int?
    let source: String
    let locale: String
    let title: String
    let message: String
    let recoverySuggestion: String?
    let presentation: Presentation

    init(_ descriptor: ErrorDescriptor, presentation shown: ErrorPresentation) {
        domain = descriptor.code.domain
        code = descriptor.code.code
        numericCode = descriptor.numericCode
        numericAliases = descriptor.numericAliases
        category = descriptor.category.rawValue
        severity = descriptor.severity.rawValue
        disposition = descriptor.disposition.rawValue
        retry = descriptor.retry.map {
            Retry(
                maxAttempts: $0.maxAttempts, backoff: $0.backoff.rawValue, delaySeconds: $0.delay.seconds,
                maxDelaySeconds: $0.maxDelay.seconds, jitter: $0.jitter,
                honorsRetryAfter: $0.honorsRetryAfter)
        }
        messageKey = descriptor.messageKey
        recoverySuggestionKey = descriptor.recoverySuggestionKey
        escalation = descriptor.escalation?.description
        sensitive = descriptor.isSensitive
        httpStatus = descriptor.httpStatus
        source = descriptor.source
        locale = shown.locale
        title = shown.title
        message = shown.message
        recoverySuggestion = shown.recoverySuggestion
        presentation = Presentation(
            style: shown.style.rawValue, durationSeconds: shown.duration?.seconds, feedback: shown.feedback.rawValue)
    }

    enum CodingKeys: String, CodingKey {
        case domain, code, numericCode, numericAliases, category, severity, disposition, retry, messageKey
        case recoverySuggestionKey, escalation, sensitive, httpStatus, source, locale, title, message,
            recoverySuggestion, presentation
    }

    // Optional keys are written as null rather than left out: readers can rely on every key being there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(code, forKey: .code)
        try container.encode(numericCode, forKey: .numericCode)
        try container.encode(numericAliases, forKey: .numericAliases)
        try container.encode(category, forKey: .category)
        try container.encode(severity, forKey: .severity)
        try container.encode(disposition, forKey: .disposition)
        try container.encode(retry, forKey: .retry)
        try container.encode(messageKey, forKey: .messageKey)
        try container.encode(recoverySuggestionKey, forKey: .recoverySuggestionKey)
        try container.encode(escalation, forKey: .escalation)
        try container.encode(sensitive, forKey: .sensitive)
        try container.encode(httpStatus, forKey: .httpStatus)
        try container.encode(source, forKey: .source)
        try container.encode(locale, forKey: .locale)
        try container.encode(title, forKey: .title)
        try container.encode(message, forKey: .message)
        try container.encode(recoverySuggestion, forKey: .recoverySuggestion)
        try container.encode(presentation, forKey: .presentation)
    }

    var text: String {
        var lines = [
            "\(domain)/\(code)"
                + (numericAliases.isEmpty ? "" : " (\(numericAliases.map(String.init).joined(separator: ", ")))"),
            "  category:     \(category)",
            "  severity:     \(severity)",
            "  disposition:  \(disposition)",
        ]
        if let retry {
            lines.append(
                "  retry:        up to \(retry.maxAttempts) attempts, \(retry.backoff) backoff from \(retry.delaySeconds) s"
                    + " to \(retry.maxDelaySeconds) s" + (retry.jitter ? ", jittered" : "")
                    + (retry.honorsRetryAfter ? ", Retry-After honoured" : "")
            )
        } else {
            lines.append("  retry:        never")
        }
        if let escalation { lines.append("  escalates to: \(escalation)") }
        if let httpStatus { lines.append("  HTTP status:  \(httpStatus)") }
        lines.append("  message key:  \(messageKey)")
        if let recoverySuggestionKey { lines.append("  recovery key: \(recoverySuggestionKey)") }
        lines.append("  source:       \(source)")
        let duration =
            presentation.durationSeconds.map { "\($0.rounded() == $0 ? String(Int($0)) : String($0)) s" }
            ?? "until dismissed"
        lines.append("  presentation: \(presentation.style), \(duration), feedback \(presentation.feedback)")
        lines.append("  locale:       \(locale)")
        lines.append("  title:        \(title)")
        lines.append("  message:      \(message)")
        if let recoverySuggestion { lines.append("  recovery:     \(recoverySuggestion)") }
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
