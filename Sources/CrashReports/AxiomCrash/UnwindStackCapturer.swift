import AxiomCore
import AxiomSymbolication
import CAxiomCrash

/// The pipeline's stack capturer backed by libunwind's `unw_backtrace`.
///
/// ```swift
/// let configuration = PipelineConfiguration(stackCapturer: UnwindStackCapturer())
/// ```
///
/// Every error whose severity is at least the configuration's `stackSeverity` (error by default) then carries
/// the return addresses of the thread where it entered the pipeline. Capturing costs what one
/// `unw_backtrace` call costs plus one array; nothing is symbolicated here. A stack is described only when it is
/// logged, in the process that captured it: the framework's frames left out, then each frame either module-relative
/// (`module+0xoffset`, its module listed once as `module:buildid:path`) or symbolicated (`function (file:line)`) when
/// the capturer was made with `symbolicates: true`; never a bare address. ``CrashReportLogger`` always symbolicates.
///
/// The module-relative form is cheap (no debug info is read past the leading frames) and works for stripped
/// binaries whose debug info lives in a symbol store: `axiom symbolicate --log` finds each module by its build-id
/// (`--symbols DIR`, debug folders, debuginfod) and replaces the frames with functions, files and lines.
public struct UnwindStackCapturer: StackCapturer {
    /// The most return addresses one stack keeps (the innermost ones).
    package let maxFrames: Int
    /// Describes this capturer's stacks when they are logged.
    package let describer: ModuleStackDescriber

    /// Creates a capturer keeping at most `maxFrames` return addresses per stack.
    ///
    /// - Parameters:
    ///   - maxFrames: the most return addresses one stack keeps.
    ///   - symbolicates: whether a logged stack is symbolicated when it is logged (`function (file:line)`), or
    ///     logged module-relative with build-ids (the default: cheap, and finished later where the debug info is).
    ///   - symbolicator: reads debug info when a stack is logged.
    public init(
        maxFrames: Int = 64, symbolicates: Bool = false,
        symbolicator: Symbolicator = ModuleStackDescriber.sharedSymbolicator
    ) {
        self.maxFrames = max(1, maxFrames)
        self.describer = ModuleStackDescriber(symbolicator: symbolicator, symbolicates: symbolicates)
    }

    /// The calling thread's return addresses, innermost first, without the `skippingFrames` innermost frames.
    ///
    /// Frames are counted from this method's own: `skippingFrames: 0` starts with an address inside this method,
    /// `1` with the call site in its caller, `2` with the call site in the caller's caller. Nil when nothing is
    /// left.
    @inline(never)  // one frame of ours, always: the skip count depends on it
    public func captureStack(skippingFrames: Int) -> CapturedStack? {
        // StackCapture drops its own frame; its first address is then the call site in this method.
        let addresses = StackCapture.capture(skippingFrames: max(0, skippingFrames), maxFrames: maxFrames)
        return addresses.isEmpty ? nil : CapturedStack(addresses: addresses, describer: describer)
    }

    /// As ``captureStack(skippingFrames:)``; with `asyncCallerAbove`, the stack of the async function whose frame is
    /// the first above that address, followed by its async callers instead of the executor's frames (see
    /// `axiom_async_stack.h`).
    ///
    /// The async callers are read from the async contexts while the task runs: a few libunwind steps (a few
    /// microseconds), no symbolication. Where the async frame cannot be walked safely (it keeps no frame record),
    /// the thread's stack alone is returned.
    @inline(never)  // one frame of ours, always: the skip count depends on it
    public func captureStack(skippingFrames: Int, asyncCallerAbove anchor: UInt?) -> CapturedStack? {
        let skip = max(0, skippingFrames)
        // One array, sized for either walk; trimmed to what was found.
        var addresses = [UInt](repeating: 0, count: maxFrames + skip)
        if let anchor {
            let count = Int(axiom_crash_async_callers(anchor, &addresses, Int32(clamping: maxFrames)))
            if count > 0 {
                addresses.removeLast(addresses.count - count)
                return CapturedStack(addresses: addresses, describer: describer)
            }
        }
        // unw_backtrace, inlined here, leaves out its own frame: the first address is inside this method.
        let count = Int(axiom_crash_backtrace(&addresses, Int32(clamping: addresses.count)))
        addresses.removeLast(addresses.count - count)
        addresses.removeFirst(min(count, skip))
        return addresses.isEmpty ? nil : CapturedStack(addresses: addresses, describer: describer)
    }
}
