/// The one way the framework holds time: a `Clock` to sleep on and a cheap reading of "now".
///
/// The rule everywhere: an API takes any clock (`clock: some Clock<Duration> = ContinuousClock()`), and a type
/// stores it as a `RuntimeClock`, so a pipeline, a context, a breaker, a validator and a presentation queue can
/// share one clock without a type parameter each. Readings are durations since the clock was wrapped,
/// which keeps comparisons free of the clock's instant type. Tests wrap a `ManualClock`; nothing in the runtime
/// reads the system time behind its back.
@usableFromInline package struct RuntimeClock: Sendable {
    /// The wrapped clock, for sleeping.
    package let base: any Clock<Duration>
    @usableFromInline
    let reading: @Sendable () -> Duration

    /// Wraps a clock. "Now" reads zero at this moment.
    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        self.base = clock
        // Readings are on the hot path (capability cache, breaker windows). This initializer is generic code
        // that callers do not specialize, so the system clocks get closures of concrete type: the generic one
        // costs two witness calls and a boxed instant per reading.
        if let continuous = clock as? ContinuousClock {
            let start = continuous.now
            self.reading = { start.duration(to: ContinuousClock.now) }
        } else if let suspending = clock as? SuspendingClock {
            let start = suspending.now
            self.reading = { start.duration(to: SuspendingClock.now) }
        } else {
            let start = clock.now
            self.reading = { start.duration(to: clock.now) }
        }
    }

    /// A runtime clock on `ContinuousClock`, the default outside tests.
    package static var continuous: RuntimeClock { RuntimeClock(ContinuousClock()) }

    /// Time elapsed on the clock since it was wrapped.
    @inlinable
    package func now() -> Duration { reading() }

    /// Sleeps on the clock. Throws `CancellationError` as soon as the task is cancelled.
    @usableFromInline package func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        try await base.sleep(for: duration)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at the ends of `Int64`.
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? .max : sum
    }
}
