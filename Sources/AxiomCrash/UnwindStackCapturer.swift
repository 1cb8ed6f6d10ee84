import Axiom

/// The pipeline's stack capturer backed by libunwind's `unw_backtrace` (see ``StackCapture``).
///
/// ```swift
/// let configuration = PipelineConfiguration(stackCapturer: UnwindStackCapturer())
/// ```
///
/// Every error whose severity is at least the configuration's `stackSeverity` (error by default) then carries
/// the return addresses of the thread where it entered the pipeline. Capturing costs what one
/// `unw_backtrace` call costs plus one array; nothing is symbolicated here. ``CrashReportLogger`` symbolicates a
/// stack only when it logs it.
public struct UnwindStackCapturer: StackCapturer {
    /// The most return addresses one stack keeps (the innermost ones).
    public let maxFrames: Int

    /// Creates a capturer keeping at most `maxFrames` return addresses per stack.
    public init(maxFrames: Int = 64) {
        self.maxFrames = max(1, maxFrames)
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
        return addresses.isEmpty ? nil : CapturedStack(addresses: addresses)
    }
}
