// The words a catalog is written in. They mirror the host's enums by raw value only: the kit never
// links the Axiom module, and the strings are what crosses the C boundary.

/// What kind of failure an error is.
public enum Category: String, Sendable, CaseIterable {
    case validation, network, api, credit, auth, capability, state, storage, configuration, cancellation, general
}

/// How serious an error is.
public enum Severity: String, Sendable, CaseIterable {
    case debug, info, notice, warning, error, critical
}

/// What the host's generic handlers do with an error.
public enum Disposition: String, Sendable, CaseIterable {
    case ignore, recover, escalate, handle

    /// The last line, as the first README spelled it.
    @available(*, deprecated, renamed: "handle")
    public static var `default`: Disposition { .handle }
}

/// How the wait between retries grows.
public enum Backoff: String, Sendable, CaseIterable {
    case constant, linear, exponential
}

/// How an error is shown to the user.
public enum PresentationStyle: String, Sendable, CaseIterable {
    case inline, toast, banner, modal, fullScreen
}

/// The haptic or audible weight of a presentation.
public enum Feedback: String, Sendable, CaseIterable {
    case none, light, medium, error
}

/// How an error may be retried.
public struct Retry: Sendable {
    /// Total attempts, the first included.
    public var maxAttempts: Int
    /// Growth of the wait.
    public var backoff: Backoff
    /// The wait before the first retry.
    public var delay: Duration
    /// No wait is longer than this.
    public var maxDelay: Duration
    /// Whether each wait gets a random jitter.
    public var jitter: Bool
    /// Whether a Retry-After carried by the error replaces the computed wait.
    public var honorsRetryAfter: Bool

    /// Creates a policy. The defaults match the host's `RetryPolicy`.
    public init(
        maxAttempts: Int, backoff: Backoff = .exponential, delay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(300), jitter: Bool = false, honorsRetryAfter: Bool = true
    ) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
        self.delay = delay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.honorsRetryAfter = honorsRetryAfter
    }
}

/// How an error is presented: style, how long it stays (`nil`: until dismissed), feedback.
public struct Presentation: Sendable {
    /// The style.
    public var style: PresentationStyle
    /// How long it stays; `nil` means until the user dismisses it.
    public var duration: Duration?
    /// The feedback that goes with it.
    public var feedback: Feedback

    /// Creates a presentation rule.
    public init(_ style: PresentationStyle, duration: Duration?, feedback: Feedback) {
        self.style = style
        self.duration = duration
        self.feedback = feedback
    }
}
