/// How an error is shown to the user.
public enum PresentationStyle: String, Sendable, Hashable, Codable, CaseIterable {
    case inline, toast, banner, modal, fullScreen
}

/// The haptic or audible weight of a presentation.
public enum FeedbackLevel: String, Sendable, Hashable, Codable, CaseIterable {
    case none, light, medium, error
}

/// A descriptor's presentation: style, how long it stays, and its feedback.
public struct PresentationRule: Sendable, Hashable, Codable {
    /// The style.
    public var style: PresentationStyle
    /// How long it stays; `nil` means until dismissed.
    public var duration: Duration?
    /// The feedback that goes with it.
    public var feedback: FeedbackLevel

    /// Creates a rule.
    public init(style: PresentationStyle, duration: Duration?, feedback: FeedbackLevel) {
        self.style = style
        self.duration = duration
        self.feedback = feedback
    }
}
