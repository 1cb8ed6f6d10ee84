import AxiomCore

/// What the user sees for one error: localized texts and how they are shown.
///
/// Made by ``ErrorMapper``. Every text is a real sentence in some locale: never empty, never a raw key.
public struct ErrorPresentation: Sendable, Hashable {
    /// The error's identity, for the UI to deduplicate or to attach a call to action.
    public var code: ErrorCode
    /// Its category.
    public var category: ErrorCategory
    /// A short heading.
    public var title: String
    /// What happened, in the user's words.
    public var message: String
    /// What the user can do about it, if there is something.
    public var recoverySuggestion: String?
    /// Style, duration and feedback.
    public var rule: PresentationRule
    /// The locale the texts are in, after fallback (`tr` asked for a key only English has gives `en`).
    public var locale: String

    /// Creates a presentation.
    package init(
        code: ErrorCode, category: ErrorCategory, title: String, message: String, recoverySuggestion: String?,
        rule: PresentationRule, locale: String
    ) {
        self.code = code
        self.category = category
        self.title = title
        self.message = message
        self.recoverySuggestion = recoverySuggestion
        self.rule = rule
        self.locale = locale
    }

    /// The style.
    package var style: PresentationStyle { rule.style }
    /// How long it stays; nil until dismissed.
    package var duration: Duration? { rule.duration }
    /// The feedback that goes with it.
    package var feedback: FeedbackLevel { rule.feedback }
}
