#if Tracing
import InMemoryTracing
import Tracing

/// The one in-memory tracer of a test process, bootstrapped as the process's instrument the first time it is asked
/// for.
///
/// `InstrumentationSystem` can be bootstrapped once per process, and every test target of a package is linked into
/// one test binary: two suites that each bootstrapped a tracer of their own would stop the process at the second.
/// Every suite that traces takes this one, and finds its own spans by names of its own.
package enum SharedInMemoryTracer {
    /// The tracer (the first access bootstraps it; Swift runs a static's initializer once).
    package static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}
#endif
