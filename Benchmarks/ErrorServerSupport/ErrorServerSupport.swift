// What the benchmark servers (`HTTPErrorServer`, `GRPCErrorServer`) share: logging bootstrapped as the README tells a
// service to, and the registry and pipeline their answers are decided through, so that each server's figures are
// read beside the same configuration.
import Axiom
import Logging

/// The benchmark servers' setup.
package enum ErrorServerSupport {
    /// The ways a server answers: `own`, `own-message`, `adapter`, `code` (each server's header says what they are).
    package static let modes = ["own", "own-message", "adapter", "code"]
    /// The HTTP server's: the same, and `shape` and `decided`, a hand-written middleware's answer of the same bytes.
    package static let httpModes = modes + ["shape", "decided"]

    /// The text the adapters answer a plain 429 with, given to the server framework's own error in `own-message`.
    package static let message = "Too many requests. Try again later."

    /// Logging as the README tells a service to set it up (`RedactingLogHandler.bootstrap`, every logger of the
    /// process, the server framework's own included), to standard error at level error: the pipeline's observers log
    /// a 429 at warning, so they log nothing here, as a service would configure them.
    package static func bootstrapLogging() {
        RedactingLogHandler.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
    }

    /// A terminal pipeline over a registry with one registered code, `bench/RATE_LIMITED` (429, a warning, English
    /// texts), that decides every error by its descriptor.
    package static func pipeline() throws -> ErrorPipeline<FollowDescriptor> {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "bench", domains: ["bench"],
                definitions: [
                    CodeDefinition(
                        "bench", "RATE_LIMITED", category: .network, severity: .warning, httpStatus: 429,
                        texts: ["en": .init(title: "Slow down", message: "Too many requests. Try again in a moment.")])
                ]))
        return ErrorPipeline(
            layer: Layer("request"), escalatesTo: nil, configuration: PipelineConfiguration(registry: registry)
        ) { FollowDescriptor() }
    }

    /// The registered code the servers' `code` mode throws: 429 with a wait of 2 s.
    package static var rateLimited: DomainError {
        DomainError(domain: "bench", code: "RATE_LIMITED", retryAfter: .seconds(2))
    }
}
