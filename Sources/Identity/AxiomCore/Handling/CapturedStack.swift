/// Return addresses captured where an error entered the pipeline. Described for a log only when it is logged.
///
/// The addresses mean something only inside the process that captured them, so they never reach a log as they
/// are: `logged` (and ``description``) asks the stack's `describer` (set by the capturer) for frames a log can
/// carry: symbolicated functions, or module-relative offsets with the module's build-id.
public struct CapturedStack: Sendable, Hashable, CustomStringConvertible {
    /// Return addresses, innermost first. The frames of the framework itself come first; a describer leaves
    /// them out. Every address is looked up at `address - 1`: a return address points after its call, and an
    /// async caller's resume point is stored plus one to follow the same rule.
    public var addresses: [UInt]
    /// Turns the addresses into log text. Set by the capturer (it knows what its addresses are); nil for a stack
    /// made from bare addresses. Not part of equality.
    package var describer: (any StackDescriber)?

    /// Creates a stack from return addresses; a log shows how many there are (a capturer of the framework's, such
    /// as `AxiomCrash`'s `UnwindStackCapturer`, makes stacks that a log shows frame by frame).
    public init(addresses: [UInt]) {
        self.init(addresses: addresses, describer: nil)
    }

    /// A stack that `describer` describes when it is logged.
    package init(addresses: [UInt], describer: (any StackDescriber)?) {
        self.addresses = addresses
        self.describer = describer
    }

    public static func == (lhs: CapturedStack, rhs: CapturedStack) -> Bool { lhs.addresses == rhs.addresses }

    public func hash(into hasher: inout Hasher) { hasher.combine(addresses) }

    /// The stack as a log line carries it. Without a describer, only how many frames there are: a bare address is
    /// meaningless outside this process.
    package var logged: LoggedStack {
        if let describer { return describer.describe(self) }
        return LoggedStack(frames: ["\(addresses.count) frames, not described (the capturer set no StackDescriber)"])
    }

    /// The logged form: `[frame, …]`, then `modules=[…]` when frames are module-relative.
    public var description: String { logged.description }
}
