/// Turns a captured stack into the text a log carries. Runs when the stack is logged, never when it is captured.
///
/// The crash module's describer leaves out the framework's own frames (a logged stack starts in the
/// application), then symbolicates the rest or gives each frame as `module+0xoffset` with the module's build-id,
/// which `axiom symbolicate --log` finishes later.
package protocol StackDescriber: Sendable {
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
package struct LoggedStack: Sendable, Hashable, CustomStringConvertible {
    /// The frames, innermost (where the application threw, or called the framework) first.
    package var frames: [String]
    /// The modules of module-relative frames: `module:buildid:path`.
    package var modules: [String]

    /// Creates a logged stack.
    package init(frames: [String], modules: [String] = []) {
        self.frames = frames
        self.modules = modules
    }

    /// `[frame, frame] modules=[module:buildid:path]` (the modules part only when there are any).
    package var description: String {
        var text = "[" + frames.joined(separator: ", ") + "]"
        if !modules.isEmpty { text += " modules=[" + modules.joined(separator: ", ") + "]" }
        return text
    }
}
