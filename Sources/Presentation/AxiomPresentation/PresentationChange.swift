import AxiomCore
import Synchronization

/// Identifies one presentation in a ``PresentationQueue``.
public struct PresentationID: Hashable, Sendable, CustomStringConvertible {
    /// The queue's serial number for it.
    package let value: UInt64
    public var description: String { "#\(value)" }
}

/// A presentation on screen (or waiting for it), with its identity.
public struct ShownPresentation: Hashable, Sendable, Identifiable {
    /// Its identity, to dismiss it.
    public let id: PresentationID
    /// What is shown.
    public let presentation: ErrorPresentation
}

/// Why a presentation left the screen.
public enum DismissReason: String, Sendable, Hashable {
    /// Its duration ran out.
    case expired
    /// A newer one took its place: a fourth toast, a new banner.
    case replaced
    /// The user (or the app) dismissed it.
    case dismissed
}

/// A change of what is on screen, for a UI to render.
public enum PresentationChange: Sendable, Hashable {
    /// It reached the screen.
    case shown(ShownPresentation)
    /// It left the screen.
    case dismissed(ShownPresentation, reason: DismissReason)
}
