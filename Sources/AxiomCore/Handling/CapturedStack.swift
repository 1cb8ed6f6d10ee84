/// Return addresses captured where an error entered the pipeline. Described for a log only when it is logged.
///
/// The addresses mean something only inside the process that captured them, so they never reach a log as they
/// are: ``logged`` (and ``description``) asks the stack's ``describer`` (set by the capturer) for frames a log can
/// carry: symbolicated functions, or module-relative offsets with the module's build-id.
public struct CapturedStack: Sendable, Hashable, CustomStringConvertible {
    /// Return addresses, innermost first. The frames of the framework itself come first; a describer leaves
    /// them out. Every address is looked up at `address - 1`: a return address points after its call, and an
    /// async caller's resume point is stored plus one to follow the same rule.
    public var addresses: [UInt]
    /// Turns the addresses into log text. Set by the capturer (it knows what its addresses are); nil for a stack
    /// made from bare addresses. Not part of equality.
    public var describer: (any StackDescriber)?

    /// Creates a stack from return addresses, described for logs by `describer`.
    public init(addresses: [UInt], describer: (any StackDescriber)? = nil) {
        self.addresses = addresses
        self.describer = describer
    }

    public static func == (lhs: CapturedStack, rhs: CapturedStack) -> Bool { lhs.addresses == rhs.addresses }

    public func hash(into hasher: inout Hasher) { hasher.combine(addresses) }

    /// The stack as a log line carries it. Without a describer, only how many frames there are: a bare address is
    /// meaningless outside this process.
    public var logged: LoggedStack {
        if let describer { return describer.describe(self) }
        return LoggedStack(frames: ["\(addresses.count) frames, not described (the capturer set no StackDescriber)"])
    }

    /// The logged form: `[frame, …]`, then `modules=[…]` when frames are module-relative.
    public var description: String { logged.description }
}

/// Captures the current thread's stack. The crash module provides one backed by libunwind.
public protocol StackCapturer: Sendable {
    /// The current stack without the innermost `skippingFrames` frames, or nil if it cannot be taken.
    func captureStack(skippingFrames: Int) -> CapturedStack?

    /// The current stack without the innermost `skippingFrames` frames; with `asyncCallerAbove`, the stack of an
    /// async function and its async callers (the functions that awaited it, which the thread's own stack does not
    /// hold) instead.
    ///
    /// `asyncCallerAbove` is the address of a local variable of the function that the async function called
    /// (the pipeline passes one of its own): the first frame above it is the async function's. The pipeline asks
    /// for async callers when an error leaves an operation run with `run`. By default, the thread's stack only.
    func captureStack(skippingFrames: Int, asyncCallerAbove anchor: UInt?) -> CapturedStack?
}

extension StackCapturer {
    /// The thread's stack only (this method's own frame skipped too).
    @inline(never)
    public func captureStack(skippingFrames: Int, asyncCallerAbove anchor: UInt?) -> CapturedStack? {
        captureStack(skippingFrames: skippingFrames + 1)
    }
}

/// Turns a captured stack into the text a log carries. Runs when the stack is logged, never when it is captured.
///
/// The crash module's describer leaves out the framework's own frames (a logged stack starts in the
/// application), then symbolicates the rest or gives each frame as `module+0xoffset` with the module's build-id,
/// which `axiom symbolicate --log` finishes later.
public protocol StackDescriber: Sendable {
    /// The frames of `stack` for a log.
    func describe(_ stack: CapturedStack) -> LoggedStack
}

/// A stack as a log line carries it: no bare process addresses.
///
/// Each frame is either symbolicated, `function (file:line)` (`[inlined] ` in front for a frame that exists only
/// through inlining), or module-relative, `module+0xoffset` (the module's file name and the address in its file,
/// before the return-address adjustment). Each module a module-relative frame names is listed once in ``modules``
/// as `module:buildid:path` (`-` for a module without build-id), so the frames can be symbolicated later,
/// elsewhere, by build-id.
public struct LoggedStack: Sendable, Hashable, CustomStringConvertible {
    /// The frames, innermost (where the application threw, or called the framework) first.
    public var frames: [String]
    /// The modules of module-relative frames: `module:buildid:path`.
    public var modules: [String]

    /// Creates a logged stack.
    public init(frames: [String], modules: [String] = []) {
        self.frames = frames
        self.modules = modules
    }

    /// `[frame, frame] modules=[module:buildid:path]` (the modules part only when there are any).
    public var description: String {
        var text = "[" + frames.joined(separator: ", ") + "]"
        if !modules.isEmpty { text += " modules=[" + modules.joined(separator: ", ") + "]" }
        return text
    }
}
