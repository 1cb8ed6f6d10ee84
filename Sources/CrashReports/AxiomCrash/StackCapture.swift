import CAxiomCrash

/// Captures the calling thread's return addresses with libunwind's fast path
/// (`unw_backtrace` and its per-thread cache, no `unw_step` loop), for non-fatal errors.
///
/// The addresses are return addresses: to find the calling line, look up `address - 1`.
/// Not for use inside a signal handler.
@usableFromInline package enum StackCapture {
    /// Stores return addresses into `buffer`, the first being the return address of
    /// this call (in the caller). Returns how many were stored, at most `buffer.count`.
    /// Allocates nothing; costs what a bare `unw_backtrace` call costs.
    // Transparent: inlined into the caller in every build, debug included, so no frame
    // of ours sits above unw_backtrace (which leaves out its own frame) and there is
    // nothing to drop.
    @_transparent @usableFromInline
    package static func capture(into buffer: UnsafeMutableBufferPointer<UInt>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return Int(axiom_crash_backtrace(base, Int32(clamping: buffer.count)))
    }

    /// The return addresses of the calling thread, innermost first: the first is the
    /// return address into the caller of this function, after dropping
    /// `skippingFrames` more. At most `maxFrames` addresses; one allocation.
    @inline(never)  // exactly one frame of ours sits above unw_backtrace: this one
    package static func capture(skippingFrames: Int = 0, maxFrames: Int = 128) -> [UInt] {
        let dropped = max(0, skippingFrames) + 1
        var addresses = [UInt](repeating: 0, count: max(0, maxFrames) + dropped)
        // `&addresses`, not a closure, so no closure frame sits between us and libunwind.
        let count = Int(axiom_crash_backtrace(&addresses, Int32(clamping: addresses.count)))
        addresses.removeLast(addresses.count - count)
        addresses.removeFirst(min(count, dropped))
        return addresses
    }
}
