#if Benchmarks && Tracing
import AxiomTracing
import Benchmark
import Instrumentation
import ServiceContextModule
import Tracing

// What a traced service pays on every request for joining crash reports to traces: the server adapters run each
// request in `CrashTrace.withCurrentSpan`, which reads the current span's W3C ids from what the bootstrapped
// instrument injects and announces them to the crash reporter. The instrument here propagates as OpenTelemetry's
// W3C propagator does (a `traceparent` of lower-case hex, formatted at every injection), so the baseline, the
// injection alone into the dictionary a propagator usually fills, is what any reader of the ids pays.

/// A span's W3C ids in a service context.
enum W3CSpanKey: ServiceContextKey {
    typealias Value = (trace: (UInt64, UInt64), span: UInt64)
}

/// Injects a context's ids as a W3C `traceparent`, formatting them each time, as OpenTelemetry's propagator does.
struct W3CInstrument: Instrument {
    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let ids = context[W3CSpanKey.self] else { return }
        func hex(_ word: UInt64) -> String {
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        injector.inject(
            "00-\(hex(ids.trace.0))\(hex(ids.trace.1))-\(hex(ids.span))-01", forKey: "traceparent", into: &carrier)
    }
}

/// Fills a dictionary, as most carriers are.
struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    InstrumentationSystem.bootstrap(W3CInstrument())
    var context = ServiceContext.topLevel
    context[W3CSpanKey.self] = (trace: (0x4bf9_2f35_77b3_4da6, 0xa3ce_929d_0e0e_4736), span: 0x00f0_67aa_0ba9_02b7)
    let traced = context

    Benchmark("Trace ids: the instrument's injection into a dictionary (baseline)") { benchmark in
        for _ in benchmark.scaledIterations {
            var carrier: [String: String] = [:]
            InstrumentationSystem.instrument.inject(traced, into: &carrier, using: DictionaryInjector())
            blackHole(carrier)
        }
    }
    Benchmark("Trace ids: TraceIdentifiers.current") { benchmark in
        ServiceContext.withValue(traced) {
            for _ in benchmark.scaledIterations { blackHole(TraceIdentifiers.current) }
        }
    }
    Benchmark("Trace ids: an empty operation (baseline)") { benchmark in
        await ServiceContext.withValue(traced) {
            for _ in benchmark.scaledIterations { blackHole(await emptyOperation()) }
        }
    }
    Benchmark("Trace ids: an empty operation in CrashTrace.withCurrentSpan") { benchmark in
        await ServiceContext.withValue(traced) {
            for _ in benchmark.scaledIterations {
                blackHole(await CrashTrace.withCurrentSpan { await emptyOperation() })
            }
        }
    }
}

@inline(never) func emptyOperation() async -> Int { 1 }

// The entry point the benchmark package's build plugin would generate; without the traits, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner {
    static func main() { fatalError("needs the Benchmarks and Tracing traits (--traits Benchmarks,Tracing)") }
}
#endif
