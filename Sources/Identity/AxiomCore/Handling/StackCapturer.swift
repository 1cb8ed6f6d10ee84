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
