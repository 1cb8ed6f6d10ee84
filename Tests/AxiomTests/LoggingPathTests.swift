import Axiom
import AxiomTesting
import InMemoryLogging
import Logging
import Testing

@Suite("Structured, redacted logging")
struct LoggingPathTests {
    /// The logging path an application bootstraps: redaction in front of the structured line writer.
    func makeLogger(_ sink: InMemoryLogLineSink, level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "axiom.errors") { label in
            RedactingLogHandler(wrapping: StructuredLogHandler(label: "", sink: sink.write, timestamp: { "T" }))
        }
        logger.logLevel = level
        return logger
    }

    @Test("one structured line per handled error, in a fixed field order")
    func structuredLine() throws {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.nwc", domains: ["nwcx"],
                descriptors: [
                    ErrorDescriptor(
                        code: ErrorCode("nwcx", "RATE_LIMITED"), category: .network, messageKey: "error.nwcx.rl")
                ],
                messages: ["en": ["error.nwcx.rl": "Too many requests."]]))
        let sink = InMemoryLogLineSink()
        let observer = LoggingObserver(logger: makeLogger(sink))
        let event = ErrorEvent(
            error: DomainError(domain: "nwcx", code: "RATE_LIMITED", message: "slow down, token=abc123"),
            layer: .client, operation: "pay", metadata: ["invoice": "lnbc1" + String(repeating: "q", count: 60)],
            registry: registry)
        observer.observe(event, disposition: .handle)

        #expect(sink.lines.count == 1)
        let line = try #require(sink.lines.first)
        #expect(
            line.hasPrefix(
                "[ERROR][T] category=network key=error.nwcx.rl code=nwcx/RATE_LIMITED layer=client disposition=handle "
            ))
        #expect(line.contains("operation=pay"))
        #expect(line.contains("invoice=lnbc1qqqqqqqqqqq[REDACTED]"))
        #expect(line.contains("token=[REDACTED]"))
        #expect(!line.contains("abc123"))
        #expect(line.hasSuffix(#"msg="nwcx/RATE_LIMITED handle""#))
    }

    @Test("values are quoted and escaped so a line splits back into its fields")
    func quoting() {
        let line = StructuredLogHandler.format(
            level: .warning, timestamp: "T", message: "two words",
            metadata: ["b": "x=y", "a": "say \"hi\"\nbye", "c": .array(["1", "2"]), "d": ""])
        #expect(line == #"[WARNING][T] a="say \"hi\"\nbye" b="x=y" c=[1,2] d="" msg="two words""#)
    }

    @Test("logger metadata, provided metadata and attached errors are redacted too")
    func everyPath() {
        let memory = InMemoryLogHandler()
        let provider = Logger.MetadataProvider { ["request": "Bearer abcdefgh12345678"] }
        var handler = RedactingLogHandler(wrapping: memory, metadataProvider: provider)
        handler[metadataKey: "owner"] = "alice@example.com"
        handler.log(
            event: LogEvent(
                level: .error, message: "failed",
                error: DomainError(domain: "nwc", code: "X", message: "password=hunter2"), metadata: ["api_key": "k"],
                source: "t", file: #fileID,
                function: #function, line: #line))
        let entry = memory.entries[0]
        #expect(entry.metadata["request"] == "Bearer [REDACTED]")
        #expect(entry.metadata["owner"] == "[REDACTED]")
        #expect(entry.metadata["api_key"] == "[REDACTED]")
        #expect("\(entry.error!)" == "nwc/X: password=[REDACTED]")
    }

    /// Not a secret shape: only the key names it (`token=`), so only the redactor can take it out.
    static let orderSecret = "q7Wm2Zr9Lp4Xc"

    @Test("pipelines, observers and breakers made before the bootstrap log redacted; a second bootstrap moves them")
    func constructionOrder() async throws {
        // Other tests run in this process: every line of this test carries a unique operation name, and only
        // those lines are checked.
        let marker = "order\(UInt64.random(in: 1...UInt64.max))"
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.order", domains: ["orderx"],
                descriptors: [ErrorDescriptor(code: ErrorCode("orderx", "FAILED"), category: .api)],
                messages: ["en": ["error.orderx.FAILED": "Failed."]]))
        func event() -> ErrorEvent {
            ErrorEvent(
                error: DomainError(domain: "orderx", code: "FAILED", message: "token=\(Self.orderSecret) x"),
                layer: .client, operation: marker, metadata: ["api_key": Self.orderSecret], registry: registry)
        }

        // Made before the bootstrap: the default observers, a pipeline with its default configuration's observers,
        // and an observer given a logger whose handler is not redacting.
        let observer = LoggingObserver()
        let pipeline = ErrorPipeline(
            layer: .client, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [LoggingObserver()])
        ) {
            Ignore(CancellationError.self)
        }
        let defaultConfiguration = PipelineConfiguration(registry: registry)
        var plain = InMemoryLogHandler()
        plain.logLevel = .trace
        let captured = plain
        let given = LoggingObserver(logger: Logger(label: "app.before") { _ in captured })

        let first = InMemoryLogLineSink()
        RedactingLogHandler.bootstrap { _ in StructuredLogHandler(label: "", sink: first.write, timestamp: { "T" }) }

        observer.observe(event(), disposition: .handle)
        _ = try await pipeline.run(marker) { () throws -> Int in
            throw DomainError(domain: "orderx", code: "FAILED", message: "password=\(Self.orderSecret)")
        }
        for observer in defaultConfiguration.observers { observer.observe(event(), disposition: .handle) }
        given.observe(event(), disposition: .handle)
        // A logger swift-log makes after the bootstrap is redacting too.
        Logger(label: "app.after").error("login \(marker) password=\(Self.orderSecret)")

        let firstLines = first.lines.filter { $0.contains(marker) }
        #expect(firstLines.count == 4, "\(firstLines)")
        for line in firstLines {
            #expect(!line.contains(Self.orderSecret), "\(line)")
            #expect(line.hasPrefix("[ERROR][T] "), "not the bootstrapped format: \(line)")
        }
        let givenEntries = plain.entries.filter { $0.metadata["operation"] == .string(marker) }
        #expect(givenEntries.count == 1)
        for entry in givenEntries {
            #expect(!"\(entry.metadata)".contains(Self.orderSecret))
        }

        // A second bootstrap does not trap; the same objects now write to the new backend.
        let second = InMemoryLogLineSink()
        RedactingLogHandler.bootstrap { _ in StructuredLogHandler(label: "", sink: second.write, timestamp: { "T2" }) }
        observer.observe(event(), disposition: .handle)
        Logger(label: "app.after").error("login \(marker) password=\(Self.orderSecret)")
        let secondLines = second.lines.filter { $0.contains(marker) }
        #expect(secondLines.count == 2, "\(secondLines)")
        #expect(secondLines.allSatisfy { $0.hasPrefix("[ERROR][T2] ") && !$0.contains(Self.orderSecret) })
        #expect(first.lines.filter { $0.contains(marker) }.count == 4)

        // The bootstrapped handler's level filters the framework's lines, and a later bootstrap's level replaces it:
        // at critical, an error is not logged; back at the default level, it is.
        let quiet = InMemoryLogLineSink()
        RedactingLogHandler.bootstrap { _ in
            var handler = StructuredLogHandler(label: "", sink: quiet.write, timestamp: { "T3" })
            handler.logLevel = .critical
            return handler
        }
        observer.observe(event(), disposition: .handle)
        _ = try await pipeline.run(marker) { () throws -> Int in throw DomainError(domain: "orderx", code: "FAILED") }
        #expect(quiet.lines.filter { $0.contains(marker) }.isEmpty, "\(quiet.lines)")
        let loud = InMemoryLogLineSink()
        RedactingLogHandler.bootstrap { _ in StructuredLogHandler(label: "", sink: loud.write, timestamp: { "T4" }) }
        observer.observe(event(), disposition: .handle)
        _ = try await pipeline.run(marker) { () throws -> Int in throw DomainError(domain: "orderx", code: "FAILED") }
        #expect(loud.lines.filter { $0.contains(marker) }.count == 2, "\(loud.lines)")
    }

    @Test("a corpus of 10,000+ log lines with secrets of every kind leaks none, and keeps the rest")
    func corpus() throws {
        var corpus = SecretCorpus(seed: 0x5EED_0A11_CE55)
        let sink = InMemoryLogLineSink()
        let memory = InMemoryLogHandler()
        var logger = Logger(label: "corpus") { _ in
            RedactingLogHandler(
                wrapping: MultiplexLogHandler([
                    StructuredLogHandler(label: "", sink: sink.write, timestamp: { "T" }), memory,
                ]))
        }
        logger.logLevel = .trace
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "test.corpus", domains: ["pay"],
                descriptors: [ErrorDescriptor(code: ErrorCode("pay", "FAILED"), category: .api)],
                messages: ["en": ["error.pay.FAILED": "Payment failed."]]))
        let observer = LoggingObserver(logger: logger)

        var expectations: [SecretCorpus.Line] = []
        for index in 0..<10_500 {
            let line = corpus.nextLine()
            switch index % 7 {
            case 0:  // through the error pipeline's logging observer: message, metadata, error text
                let event = ErrorEvent(
                    error: DomainError(domain: "pay", code: "FAILED", message: line.text), layer: .client,
                    operation: "pay", metadata: ["detail": line.text], registry: registry)
                observer.observe(event, disposition: .handle)
            case 1:  // a metadata value
                logger.error("\(line.fillers[0])", metadata: ["detail": .string(line.text)])
            case 2:  // nested metadata
                logger.warning(
                    "request failed",
                    metadata: ["request": .dictionary(["headers": .array([.string(line.text), "ok"])])])
            case 3:  // a secret under a sensitive key, whatever its shape
                logger.info(
                    "\(line.text)", metadata: ["password": .string(line.secrets[0].value), "token": "\(line.text)"])
            default:
                logger.error("\(line.text)")
            }
            expectations.append(line)
        }

        let lines = sink.lines
        let entries = memory.entries
        #expect(lines.count == expectations.count)
        #expect(entries.count == expectations.count)
        #expect(lines.count >= 10_000)
        var kinds: [SecretCorpus.Kind: Int] = [:]
        var leaks: [String] = []
        var lost: [String] = []
        for (index, expected) in expectations.enumerated() where index < lines.count && index < entries.count {
            let entry = entries[index]
            let raw = "\(entry.message) \(render(.dictionary(entry.metadata)))"
            for text in [lines[index], raw] {
                let bytes = Array(text.utf8)
                for secret in expected.secrets {
                    if SecretCorpus.leaks(secret, in: bytes) { leaks.append("\(secret.kind): \(text)") }
                }
                for filler in expected.fillers {
                    for word in filler.split(separator: " ")
                    where !SecretCorpus.contains(bytes, Array(word.utf8)[...]) {
                        lost.append("'\(word)' in \(text)")
                    }
                }
            }
            for secret in expected.secrets { kinds[secret.kind, default: 0] += 1 }
        }
        #expect(leaks.isEmpty, "\(leaks.count) leaks, first: \(leaks.prefix(3))")
        #expect(lost.isEmpty, "\(lost.count) lost words, first: \(lost.prefix(3))")
        for kind in SecretCorpus.Kind.allCases {
            #expect(kinds[kind, default: 0] >= 500, "only \(kinds[kind, default: 0]) secrets of kind \(kind)")
        }
    }

    func render(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(render).joined(separator: " ")
        case .dictionary(let metadata): metadata.map { "\($0.key)=\(render($0.value))" }.joined(separator: " ")
        }
    }
}
