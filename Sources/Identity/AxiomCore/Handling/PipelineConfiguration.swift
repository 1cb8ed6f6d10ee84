import AxiomCatalog
import Logging

/// Shared settings of error pipelines: where descriptors come from, who observes, how time passes.
public struct PipelineConfiguration: Sendable {
    /// Where identities and descriptors come from.
    @usableFromInline package var registry: ErrorRegistry
    /// Who sees each outcome: by default the process's observers (``ErrorObserverSystem``; logging and metrics
    /// unless bootstrapped otherwise).
    @usableFromInline package var observers: [any ErrorObserver]
    /// The clock recovery waits on. Tests inject a manual one.
    @usableFromInline package var clock: RuntimeClock
    /// Captures stacks of severe errors where they enter the pipeline. None by default.
    @usableFromInline package var stackCapturer: (any StackCapturer)?
    /// Errors at or above this severity carry a stack (when a capturer is set).
    @usableFromInline package var stackSeverity: ErrorSeverity
    /// How many layers an error may cross before it is handled where it is.
    @usableFromInline package var maxEscalations: Int
    /// How many attempts one operation gets in all, whatever the handlers say.
    @usableFromInline package var maxAttempts: Int
    /// Runs around every episode and sees its final outcome (a tracing integration's span). None by default.
    @usableFromInline package var instrument: (any PipelineInstrument)?

    /// Creates a configuration.
    public init(
        registry: ErrorRegistry = .shared,
        observers: [any ErrorObserver] = ErrorObserverSystem.observers,
        clock: some Clock<Duration> = ContinuousClock(),
        stackCapturer: (any StackCapturer)? = nil,
        stackSeverity: ErrorSeverity = .error,
        maxEscalations: Int = 8,
        maxAttempts: Int = 16,
        instrument: (any PipelineInstrument)? = nil
    ) {
        self.registry = registry
        self.observers = observers
        self.clock = RuntimeClock(clock)
        self.stackCapturer = stackCapturer
        self.stackSeverity = stackSeverity
        self.maxEscalations = maxEscalations
        self.maxAttempts = maxAttempts
        self.instrument = instrument
    }
}
