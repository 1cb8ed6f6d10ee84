import Logging
import Synchronization

// Why the framework does not keep the handler swift-log gives it:
//
//   Logger(label:) ──picks its handler now──▶ StreamLogHandler   (before any bootstrap: unredacted, default format)
//
// A pipeline, an observer or a circuit breaker is often made before the application bootstraps logging (a
// `static let`, a test fixture, a library's own set-up), and would keep that handler for its whole life. So the
// framework's loggers hold a `FrameworkLogHandler`, which looks the backend up at each line:
//
//   line ──▶ FrameworkLogHandler ──▶ RedactingLogHandler ──▶ the backend RedactingLogHandler.bootstrap configured
//                                                         └─▶ (no such bootstrap yet) the handler swift-log makes now,
//                                                             kept once it is not swift-log's default
//
// and the redactor runs on every line whatever was created first.

/// The log handler of the framework's own loggers: it resolves its backend when a line is written, not when the
/// logger is made, and redacts every line.
///
/// After ``RedactingLogHandler/bootstrap(redactor:metadataProvider:_:)``, lines go to the handler that bootstrap
/// configures, made once per label and bootstrap and kept; a later bootstrap replaces it. Without it, a line asks
/// swift-log for the handler a new `Logger` of this label would get and puts a ``RedactingLogHandler`` in front of
/// it; when the application bootstrapped swift-log itself (the handler is not swift-log's default
/// `StreamLogHandler`), that handler is kept too, since swift-log allows one bootstrap per process. Either way no line
/// of the framework escapes the redactor, whatever was created before the bootstrap.
///
/// The framework's types use it by default (`Logger.axiom(_:)`); a logger passed to them explicitly is
/// made redacting with `Logger.redacting()`.
package struct FrameworkLogHandler: LogHandler {
    /// The logger's label, passed to the backend's factory.
    package let label: String
    /// Logger-level metadata, redacted when logged.
    package var metadata: Logger.Metadata = [:]
    /// Contextual metadata, redacted when logged.
    package var metadataProvider: Logger.MetadataProvider?
    /// A level set on this logger; without one, the backend's level applies.
    private var levelOverride: Logger.Level?
    /// The resolved backend, shared by copies of this handler (a `Logger` is a value and copies its handler).
    private let cache: Cache

    /// A handler for `label`; `metadataProvider` adds to the one the bootstrap configures.
    package init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.cache = Cache()
    }

    /// The level set on this logger, or else the backend's.
    package var logLevel: Logger.Level {
        get { levelOverride ?? backendLevel() }
        set { levelOverride = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var event = event
        // This logger's own metadata goes in as per-call metadata: the redacting backend merges it under the
        // bootstrap's provider and redacts it with the rest.
        let merged = RedactingLogHandler.merge(metadata, metadataProvider?.get(), event.metadata)
        event.metadata = merged.isEmpty ? nil : merged
        backend().log(event: event)
    }

    /// The redacting handler lines go to now. After a bootstrap, the handler made for it is read without a lock:
    /// an error's log-level check runs on every decided error.
    private func backend() -> RedactingLogHandler {
        let generation = LoggingBackend.generation.load(ordering: .acquiring)
        if let handler = cache.withResolved({ $0.generation == generation ? $0.handler : nil }) { return handler }
        guard generation > 0 else { return swiftLogBackend() }
        return cache.resolve(label)
    }

    /// The level of the handler lines go to now, asked of the handler kept for the latest bootstrap where it is:
    /// every decided error asks, mostly to log nothing, and a copy of the handler (its wrapped handler, redactor,
    /// metadata and provider) would retain and release each reference it holds.
    private func backendLevel() -> Logger.Level {
        let generation = LoggingBackend.generation.load(ordering: .acquiring)
        if let level = cache.withResolved({ $0.generation == generation ? $0.handler.logLevel : nil }) { return level }
        return backend().logLevel
    }

    /// With no framework bootstrap: the handler swift-log gives a new `Logger` of this label, behind the redactor.
    ///
    /// swift-log lets a process bootstrap once (a second `LoggingSystem.bootstrap` traps), so a handler that is not
    /// its default `StreamLogHandler` comes from the application's bootstrap, and every later `Logger` gets one made
    /// by the same factory: it is kept, as the framework's own bootstrap's is, and each line and level check costs
    /// what it costs after that bootstrap. A `StreamLogHandler` may still be the default, which a bootstrap replaces
    /// at any time; it is asked for again at each line.
    private func swiftLogBackend() -> RedactingLogHandler {
        let handler = Logger(label: label).handler
        let redacting = RedactingLogHandler(wrapping: handler)
        if handler is StreamLogHandler { return redacting }
        return cache.keep(redacting, generation: 0)
    }

    /// The backend resolved for the latest bootstrap, published whole (``PublishedReference``): read without a lock
    /// or a reference count, replaced under a lock.
    private final class Cache: Sendable {
        final class Resolved: Sendable {
            let generation: Int
            let handler: RedactingLogHandler
            init(generation: Int, handler: RedactingLogHandler) {
                self.generation = generation
                self.handler = handler
            }

            /// What a cache holds before its first handler: of a generation no configuration has, so it is never
            /// read as one.
            static let none = Resolved(generation: -1, handler: RedactingLogHandler(wrapping: SwiftLogNoOpLogHandler()))
        }

        private let current = PublishedReference(Resolved.none)
        /// Taken by the writers (a bootstrap's first line, a kept swift-log handler): one at a time.
        private let writer = Mutex<Void>(())

        /// `body` with the current `Resolved` (``Resolved/none`` before the first), read in place: a replaced one
        /// is kept for this cache's life, so no reference count is written.
        func withResolved<Result>(_ body: (Resolved) -> Result) -> Result {
            current.object._withUnsafeGuaranteedRef(body)
        }

        /// Makes the handler of the current configuration and publishes it.
        func resolve(_ label: String) -> RedactingLogHandler {
            writer.withTrackedLock { _ in
                guard let configuration = LoggingBackend.configuration.withTrackedLock({ $0 }) else {
                    return RedactingLogHandler(wrapping: Logger(label: label).handler)
                }
                let resolved = current.object.takeUnretainedValue()
                if resolved.generation == configuration.generation { return resolved.handler }
                return publish(configuration.makeRedactingHandler(label), generation: configuration.generation)
            }
        }

        /// Publishes `handler`, made from swift-log's factory with no framework bootstrap (generation 0), unless
        /// one is already published; returns the published one.
        func keep(_ handler: RedactingLogHandler, generation: Int) -> RedactingLogHandler {
            writer.withTrackedLock { _ in
                let resolved = current.object.takeUnretainedValue()
                if resolved.generation >= generation { return resolved.handler }
                return publish(handler, generation: generation)
            }
        }

        /// Makes `handler` the current one (the one it replaces is kept for readers that may still hold it). Under
        /// the writers' lock.
        private func publish(_ handler: RedactingLogHandler, generation: Int) -> RedactingLogHandler {
            current.replace(with: Resolved(generation: generation, handler: handler))
            return handler
        }
    }
}

/// What ``RedactingLogHandler/bootstrap(redactor:metadataProvider:_:)`` configured, read by every
/// ``FrameworkLogHandler`` at each line.
enum LoggingBackend {
    struct Configuration: Sendable {
        /// Increases with each bootstrap, so handlers made for an earlier one are replaced.
        let generation: Int
        let makeHandler: @Sendable (String) -> any LogHandler
        let redactor: Redactor
        let metadataProvider: Logger.MetadataProvider?

        func makeRedactingHandler(_ label: String) -> RedactingLogHandler {
            RedactingLogHandler(wrapping: makeHandler(label), redactor: redactor, metadataProvider: metadataProvider)
        }
    }

    static let configuration = Mutex<Configuration?>(nil)
    /// The configuration's generation, readable without the lock (0: no bootstrap yet).
    static let generation = Atomic<Int>(0)
    /// Whether swift-log's factory is installed: `LoggingSystem.bootstrap` traps when called twice.
    static let installed = Atomic<Bool>(false)

    /// Makes `makeHandler` the backend of every framework logger and of every logger made by swift-log from now
    /// on.
    static func configure(
        redactor: Redactor, metadataProvider: Logger.MetadataProvider?,
        _ makeHandler: @escaping @Sendable (String) -> any LogHandler
    ) {
        configuration.withTrackedLock { current in
            current = Configuration(
                generation: (current?.generation ?? 0) + 1, makeHandler: makeHandler, redactor: redactor,
                metadataProvider: metadataProvider)
            generation.store(current?.generation ?? 0, ordering: .releasing)
        }
        guard installed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        // Once per process: every `Logger(label:)` from now on gets a handler that follows later bootstraps too.
        LoggingSystem.bootstrap(
            { label, provider in FrameworkLogHandler(label: label, metadataProvider: provider) },
            metadataProvider: nil)
    }
}

extension Logger {
    /// A logger of the framework: its lines go to the backend of the latest
    /// ``RedactingLogHandler/bootstrap(redactor:metadataProvider:_:)`` (or swift-log's current one), redacted,
    /// whenever it was made. See ``FrameworkLogHandler``.
    @usableFromInline package static func axiom(_ label: String) -> Logger {
        Logger(label: label) { label in FrameworkLogHandler(label: label) }
    }

    /// This logger if its handler already redacts, or the same logger behind a ``RedactingLogHandler``.
    ///
    /// The framework's types call it on a logger they are given, so a logger made before the bootstrap, or
    /// with a handler of its own, still writes no secret.
    package func redacting(with redactor: Redactor = Redactor()) -> Logger {
        if handler is RedactingLogHandler || handler is FrameworkLogHandler { return self }
        var logger = self
        logger.handler = RedactingLogHandler(wrapping: handler, redactor: redactor)
        return logger
    }
}
