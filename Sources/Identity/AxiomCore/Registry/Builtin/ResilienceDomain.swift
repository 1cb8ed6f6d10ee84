import AxiomCatalog

/// Where a circuit breaker stands.
public enum CircuitState: String, Sendable, Hashable {
    /// Calls go through; failures are counted.
    case closed
    /// Calls are refused until the open duration has passed.
    case open
    /// One probe is allowed through; the rest are refused.
    case halfOpen
    /// Opened by hand; only closing it by hand ends it.
    case isolated
}

/// A call the circuit breaker refused: the dependency behind `key` is failing, or was isolated by hand.
///
/// `retryAfter` says when a call may go through again; handlers that honour `Retry-After` wait that long.
///
/// One code, so no `Code` type: the fields are the payload, ``throwSite`` the throw site, and equality
/// compares the fields.
public struct CircuitOpenError: IdentifiableError, Hashable, Sendable, CustomStringConvertible {
    /// The domain of the runtime's resilience errors.
    package static let domain = "axiom.resilience"
    /// The identity of every refusal.
    package static let code = ErrorCode(domain, "circuitOpen")

    /// The breaker's key.
    public let key: String
    /// The breaker's state when it refused.
    public let state: CircuitState
    /// How long until a call may go through; nil while isolated (only a manual close ends that).
    public let retryAfter: Duration?
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public let throwSite: ThrowSite

    /// Creates the error; `file` and `line` default to the caller's.
    package init(
        key: String, state: CircuitState, retryAfter: Duration?, file: String = #fileID, line: UInt = #line
    ) {
        self.key = key
        self.state = state
        self.retryAfter = retryAfter
        self.throwSite = ThrowSite(file: file, line: line)
    }

    public var errorCode: ErrorCode { Self.code }

    public var description: String {
        let wait = retryAfter.map { ", retry after \($0)" } ?? ""
        return "circuit '\(key)' is \(state)\(wait)"
    }
}

/// An operation, or one attempt of it, that did not finish within its time limit. It was cancelled and has
/// stopped.
///
/// The two limits have two identities, because only one is worth retrying: an attempt that timed out
/// (`axiom.resilience/attemptTimeout`, from `AttemptTimeoutStage`) may well succeed on the next try, and its
/// descriptor's retry policy says so; an operation that timed out as a whole (`axiom.resilience/timeout`, from
/// `TimeoutStage`) has spent its time, and its descriptor has no retry policy.
///
/// ``Scope`` stays an enum: two cases without payloads, a closed set a handler switches on, and each names its
/// code (`timeout` or `attemptTimeout`). ``throwSite`` is the throw site; equality compares the fields.
public struct TimeoutError: IdentifiableError, Hashable, Sendable, CustomStringConvertible {
    /// What the limit bounded.
    public enum Scope: String, Sendable, Hashable {
        /// The whole operation, retries and their waits included: never retried.
        case operation
        /// One attempt: retried as the attempt-timeout code's policy says.
        case attempt
    }

    /// The identity of a whole operation's timeout.
    package static let code = ErrorCode(CircuitOpenError.domain, "timeout")
    /// The identity of one attempt's timeout.
    package static let attemptCode = ErrorCode(CircuitOpenError.domain, "attemptTimeout")

    /// The operation that timed out.
    public let operation: String
    /// The limit it exceeded.
    public let limit: Duration
    /// Whether the limit bounded the operation or one attempt.
    public let scope: Scope
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public let throwSite: ThrowSite

    /// Creates the error; `file` and `line` default to the caller's.
    package init(
        operation: String, limit: Duration, scope: Scope = .operation, file: String = #fileID, line: UInt = #line
    ) {
        self.operation = operation
        self.limit = limit
        self.scope = scope
        self.throwSite = ThrowSite(file: file, line: line)
    }

    public var errorCode: ErrorCode { scope == .attempt ? Self.attemptCode : Self.code }
    public var description: String {
        scope == .attempt
            ? "an attempt of \(operation) did not finish within \(limit)"
            : "\(operation) did not finish within \(limit)"
    }
}

/// The error a `FaultInjector` (in `Axiom`) throws when no other error was given.
///
/// One code, so no `Code` type: ``sequence`` is the payload, ``throwSite`` the throw site, and equality
/// compares the sequence.
package struct InjectedFault: IdentifiableError, Sendable, Hashable, CustomStringConvertible {
    /// The identity of injected faults.
    package static let code = ErrorCode(CircuitOpenError.domain, "injectedFault")

    /// Which injected failure this is, from 1, across the injector's life.
    package let sequence: Int
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    package let throwSite: ThrowSite

    /// Creates the error; `file` and `line` default to the caller's.
    package init(sequence: Int, file: String = #fileID, line: UInt = #line) {
        self.sequence = sequence
        self.throwSite = ThrowSite(file: file, line: line)
    }

    package var errorCode: ErrorCode { Self.code }

    package var description: String { "injected fault #\(sequence)" }
}

/// Options of a resilience component (a circuit breaker, a limiter) that cannot work, refused when the component
/// is made: a failure ratio of 1.5 or a minimum throughput of 0 would give a breaker that never opens.
///
/// A programming error, identified as `axiom.resilience/invalidConfiguration`; ``throwSite`` says where it
/// was thrown from, equality compares what was refused and why. Already the framework's shape for one code: no
/// `Code` type, the fields are the payload.
public struct ResilienceConfigurationError: IdentifiableError, Hashable, Sendable, CustomStringConvertible {
    /// The identity of every refused configuration.
    package static let code = ErrorCode(CircuitOpenError.domain, "invalidConfiguration")

    /// What was being made: `circuit breaker 'wallet'`.
    public let component: String
    /// The option refused: `failureRatio.threshold`.
    public let option: String
    /// Why: `must be in (0, 1], got 1.5`.
    public let reason: String
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public let throwSite: ThrowSite

    /// Creates the error; `file` and `line` default to the caller's.
    package init(component: String, option: String, reason: String, file: String = #fileID, line: UInt = #line) {
        self.component = component
        self.option = option
        self.reason = reason
        self.throwSite = ThrowSite(file: file, line: line)
    }

    public var errorCode: ErrorCode { Self.code }
    public var description: String { "\(component): \(option) \(reason)" }

}

/// A call a concurrency limiter refused: `limit` calls were running and its queue of `queueLimit` was full.
///
/// One code, so no `Code` type: the fields are the payload, ``throwSite`` the throw site, and equality
/// compares the fields.
public struct ConcurrencyLimitError: IdentifiableError, Sendable, Hashable, CustomStringConvertible {
    /// The identity of every refusal.
    package static let code = ErrorCode(CircuitOpenError.domain, "concurrencyLimited")

    /// The limiter's key.
    public let key: String
    /// How many calls may run at once.
    public let limit: Int
    /// How many calls may wait.
    public let queueLimit: Int
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public let throwSite: ThrowSite

    /// Creates the error; `file` and `line` default to the caller's.
    package init(key: String, limit: Int, queueLimit: Int, file: String = #fileID, line: UInt = #line) {
        self.key = key
        self.limit = limit
        self.queueLimit = queueLimit
        self.throwSite = ThrowSite(file: file, line: line)
    }

    public var errorCode: ErrorCode { Self.code }

    public var description: String {
        "'\(key)' has \(limit) calls running and \(queueLimit) waiting: call refused"
    }
}

/// A call a rate limiter refused; `retryAfter` says when a call would be let through (so a `Retry-After`
/// header or a problem-details body can carry it, and a retry policy that honours it waits that long).
///
/// One code, so no `Code` type: the fields are the payload, ``throwSite`` the throw site, and equality
/// compares the fields.
public struct RateLimitError: IdentifiableError, Sendable, Hashable, CustomStringConvertible {
    /// The identity of every refusal.
    package static let code = ErrorCode(CircuitOpenError.domain, "rateLimited")

    /// The limiter's key.
    public let key: String
    /// How long until the permits asked for are available.
    public let retryAfter: Duration?
    /// Where it was thrown. It takes no part in equality: see `ThrowSite`.
    public let throwSite: ThrowSite

    /// Creates the error; `file` and `line` default to the caller's.
    package init(key: String, retryAfter: Duration, file: String = #fileID, line: UInt = #line) {
        self.key = key
        self.retryAfter = retryAfter
        self.throwSite = ThrowSite(file: file, line: line)
    }

    public var errorCode: ErrorCode { Self.code }

    public var description: String {
        "'\(key)' is over its rate" + (retryAfter.map { ", retry after \($0)" } ?? "")
    }
}

extension CircuitOpenError {
    /// The domain `axiom.resilience`: the errors of the runtime's resilience stages.
    static let builtinDomain = BuiltinDomain(
        name: domain,
        codes: [
            CodeDefinition(
                domain, "circuitOpen", category: .network, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Temporarily paused", message: "This service is failing, so requests to it are paused.",
                        recovery: "Wait a moment, then try again."),
                    "tr": .init(
                        title: "Geçici olarak duraklatıldı",
                        message: "Bu hizmet hata veriyor; ona giden istekler duraklatıldı.",
                        recovery: "Biraz bekleyip yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "timeout", category: .network, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Timed out", message: "This is taking too long.",
                        recovery: "Check your connection and try again."),
                    "tr": .init(
                        title: "Zaman aşımı", message: "Bu işlem çok uzun sürüyor.",
                        recovery: "Bağlantınızı kontrol edip yeniden deneyin."),
                ]),
            // One attempt ran out of time: usually transient (a slow replica, a lost packet), so retried, with
            // jitter so that a fleet's retries do not arrive together.
            CodeDefinition(
                domain, "attemptTimeout", category: .network, severity: .warning, disposition: .recover,
                retry: RetryPolicy(
                    maxAttempts: 3, backoff: .exponential, delay: .milliseconds(200), maxDelay: .seconds(5),
                    jitter: true),
                texts: [
                    "en": .init(
                        title: "Retrying", message: "A request took too long and is being tried again.",
                        recovery: "Check your connection."),
                    "tr": .init(
                        title: "Yeniden deneniyor", message: "Bir istek çok uzun sürdü ve yeniden deneniyor.",
                        recovery: "Bağlantınızı kontrol edin."),
                ]),
            CodeDefinition(
                domain, "concurrencyLimited", category: .network, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Busy", message: "Too many requests are running right now.",
                        recovery: "Try again in a moment."),
                    "tr": .init(
                        title: "Meşgul", message: "Şu anda çok fazla istek işleniyor.",
                        recovery: "Biraz sonra yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "rateLimited", category: .network, severity: .warning, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Slow down", message: "Too many requests in a short time.",
                        recovery: "Wait a little, then try again."),
                    "tr": .init(
                        title: "Yavaşlayın", message: "Kısa sürede çok fazla istek yapıldı.",
                        recovery: "Biraz bekleyip yeniden deneyin."),
                ]),
            CodeDefinition(
                domain, "invalidConfiguration", category: .general, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(
                        title: "Configuration error", message: "This feature is misconfigured.",
                        recovery: "Please report this problem."),
                    "tr": .init(
                        title: "Yapılandırma hatası", message: "Bu özellik hatalı yapılandırılmış.",
                        recovery: "Lütfen bu sorunu bildirin."),
                ]),
            CodeDefinition(
                domain, "injectedFault", category: .general, severity: .error, disposition: .handle,
                texts: [
                    "en": .init(title: "Test fault", message: "A test fault was injected."),
                    "tr": .init(title: "Test hatası", message: "Bir test hatası enjekte edildi."),
                ]),
        ])

    /// One value of every code, for the tests that check each code against the catalog.
    static let samples: [any IdentifiableError] = [
        CircuitOpenError(key: "x", state: .open, retryAfter: nil), TimeoutError(operation: "x", limit: .seconds(1)),
        TimeoutError(operation: "x", limit: .seconds(1), scope: .attempt),
        InjectedFault(sequence: 1),
        ResilienceConfigurationError(component: "x", option: "y", reason: "z"),
        ConcurrencyLimitError(key: "x", limit: 1, queueLimit: 0), RateLimitError(key: "x", retryAfter: .seconds(1)),
    ]
}
