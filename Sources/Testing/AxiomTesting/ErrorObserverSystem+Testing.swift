import AxiomCore

extension ErrorObserverSystem {
    /// Replaces the process's default observer, however often, for a test process (`bootstrap` allows one
    /// call). `nil` restores the built-in logging and metrics observers. Configurations made earlier keep the
    /// observers they were made with, so set it before the pipelines under test are made.
    public static func bootstrapForTesting(_ observer: (any ErrorObserver)?) {
        bootstrapInternal(observer.map { [$0] })
    }
}
