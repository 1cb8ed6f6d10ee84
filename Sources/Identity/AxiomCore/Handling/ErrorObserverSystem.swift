import Synchronization

/// The observers every pipeline gets unless its configuration names others, set once for the process, the way
/// swift-log's `LoggingSystem` sets the log handler.
///
/// ```swift
/// // First thing in main, once:
/// ErrorObserverSystem.bootstrap(LoggingObserver(), MetricsObserver(), MyTracingObserver())
/// ```
///
/// Without a bootstrap, pipelines log each outcome (``LoggingObserver``) and count it (``MetricsObserver``),
/// one shared instance of each for the process. A configuration made before the bootstrap keeps the
/// observers it was made with. Tests that need other defaults rebootstrap through `AxiomTesting`.
public enum ErrorObserverSystem {
    private struct State {
        var observers: [any ErrorObserver]?
        var bootstrapped = false
    }

    private static let state = Mutex(State())

    /// Sets the process's default observers, each told of every outcome in the order given; with none, pipelines
    /// observe nothing unless their configuration names observers. Call it once, before pipelines are made; a
    /// second call is a programming error and stops the process, as a second `LoggingSystem.bootstrap` does.
    public static func bootstrap(_ observers: any ErrorObserver...) {
        state.withTrackedLock { state in
            precondition(!state.bootstrapped, "ErrorObserverSystem.bootstrap may only be called once per process")
            state.bootstrapped = true
            state.observers = observers
        }
    }

    /// Replaces the default observers whether or not they were bootstrapped; nil restores the built-in ones. For
    /// tests (`AxiomTesting` exposes it).
    package static func bootstrapInternal(_ observers: [any ErrorObserver]?) {
        state.withTrackedLock { state in
            state.observers = observers
        }
    }

    /// The observers a configuration gets by default: the bootstrapped ones, or logging and metrics.
    public static var observers: [any ErrorObserver] {
        state.withTrackedLock({ $0.observers }) ?? builtinDefaults
    }

    /// Logging and metrics, made once for the process (a metrics observer caches its counters: one instance
    /// serves every pipeline).
    private static let builtinDefaults: [any ErrorObserver] = [LoggingObserver(), MetricsObserver()]
}
