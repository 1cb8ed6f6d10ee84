import CAxiomCrash

/// Captures the calling thread's return addresses with libunwind's fast path
/// (`unw_backtrace` and its per-thread cache, no `unw_step` loop), for non-fatal errors.
///
/// The addresses are return addresses: to find the calling line, look up `address - 1`.
/// Not for use inside a signal handler.
public enum StackCapture {
    /// Stores return addresses into `buffer`, the first being the return address into
    /// the caller of this function. Returns how many were stored: at most
    /// `buffer.count - 1`, because this function's own frame takes one slot before it
    /// is dropped. Allocates nothing.
    @inline(never)  // exactly one frame of ours sits above unw_backtrace: this one
    public static func capture(into buffer: UnsafeMutableBufferPointer<UInt>) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 1 else { return 0 }
        let count = Int(axiom_crash_backtrace(base, Int32(clamping: buffer.count)))
        guard count > 1 else { return 0 }
        base.update(from: base + 1, count: count - 1)
        return count - 1
    }

    /// The return addresses of the calling thread, innermost first: the first is the
    /// return address into the caller of this function, after dropping
    /// `skippingFrames` more. At most `maxFrames` addresses; one allocation.
    @inline(never)  // exactly one frame of ours sits above unw_backtrace: this one
    public static func capture(skippingFrames: Int = 0, maxFrames: Int = 128) -> [UInt] {
        let dropped = max(0, skippingFrames) + 1
        var addresses = [UInt](repeating: 0, count: max(0, maxFrames) + dropped)
        // `&addresses`, not a closure, so no closure frame sits between us and libunwind.
        let count = Int(axiom_crash_backtrace(&addresses, Int32(clamping: addresses.count)))
        addresses.removeLast(addresses.count - count)
        addresses.removeFirst(min(count, dropped))
        return addresses
    }
}
