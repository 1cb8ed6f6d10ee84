import CAxiomCrash

/// Captures the calling thread's return addresses with libunwind's fast path
/// (`unw_backtrace` and its per-thread cache, no `unw_step` loop), for non-fatal errors.
///
/// The addresses are return addresses: to find the calling line, look up `address - 1`.
/// Not for use inside a signal handler.
public enum StackCapture {
    /// Stores return addresses into `buffer`, the first being the return address into
    /// the caller of this function. Returns how many were stored. Allocates nothing.
    @inline(never)
    public static func capture(into buffer: UnsafeMutableBufferPointer<UInt>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        // Skip 1: the return address into this function.
        return Int(axiom_crash_capture_stack(base, Int32(clamping: buffer.count), 1))
    }

    /// The return addresses of the calling thread, innermost first: the first is the
    /// return address into the caller of this function, after dropping
    /// `skippingFrames` more. At most `maxFrames` (and at most 256) addresses; one
    /// allocation.
    @inline(never)
    public static func capture(skippingFrames: Int = 0, maxFrames: Int = 128) -> [UInt] {
        var addresses = [UInt](repeating: 0, count: min(max(0, maxFrames), Int(AXIOM_CRASH_MAX_FRAMES)))
        // Passed as `&addresses`, not through a closure, so no extra frame sits
        // between this function and the C call: skip 1 is exactly this function.
        let skip = Int32(clamping: max(0, skippingFrames) + 1)
        let count = Int(axiom_crash_capture_stack(&addresses, Int32(addresses.count), skip))
        addresses.removeLast(addresses.count - count)
        return addresses
    }
}
