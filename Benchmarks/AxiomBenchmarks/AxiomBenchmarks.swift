#if Benchmarks
import Axiom
import Benchmark
import CAxiomFlightRecorder
import CoreMetrics
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// Handler dispatch and descriptor lookup, each beside its baseline in the same run.
// Run: swift package --allow-writing-to-package-directory benchmark --target AxiomBenchmarks

enum BenchError: IdentifiableError {
    case first, second, third, fourth

    var errorCode: ErrorCode {
        switch self {
        case .first: ErrorCode("bench", "FIRST")
        case .second: ErrorCode("bench", "SECOND")
        case .third: ErrorCode("bench", "THIRD")
        case .fourth: ErrorCode("bench", "FOURTH")
        }
    }
}

@inline(never)
func fail(_ error: BenchError) throws {
    throw error
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .instructions],
        timeUnits: .nanoseconds,
        warmupIterations: 1_000,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    let registry = ErrorRegistry()
    try! registry.register(BenchError.catalog)
    /// The four handlers every dispatch row decides through, the fourth deciding, seen by `observers`.
    func fourHandlers(observedBy observers: [any ErrorObserver]) -> ErrorPipeline<some ErrorHandler> {
        ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: observers)
        ) {
            Ignore(.code(BenchError.first.errorCode))
            Recover(.code(BenchError.second.errorCode), .descriptorPolicy())
            Escalate(.category(.api))
            Handle(.code(BenchError.fourth.errorCode))
        }
    }
    // No observers: this measures dispatch itself. Counting through swift-metrics is measured below.
    let quiet = PipelineConfiguration(registry: registry, observers: [])
    let pipeline = fourHandlers(observedBy: [])
    // Counted through a backend whose counters are plain atomics, as real backends' are (the no-op backend
    // would hide the increment, and the cache line every task writes).
    let metrics = AtomicCounterFactory()
    let observed = fourHandlers(observedBy: [MetricsObserver(factory: metrics)])
    // Logged by the logging observer, with logging set up as the README tells a service to, at a level above the
    // error's: what most decided errors cost a service that logs them, a level check and no line.
    RedactingLogHandler.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .critical
        return handler
    }
    let logged = fourHandlers(observedBy: [LoggingObserver()])

    Benchmark("Baseline: bare throw+catch") { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                blackHole(error)
            }
        }
    }

    Benchmark("Dispatch: throw, the fourth handler decides") { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                blackHole(try? pipeline.decide(error, operation: "bench"))
            }
        }
    }

    Benchmark("Dispatch: throw, fourth handler, counted by the metrics observer") { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                blackHole(try? observed.decide(error, operation: "bench"))
            }
        }
    }

    Benchmark("Dispatch: throw, fourth handler, the logging observer's level check (no line written)") { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                blackHole(try? logged.decide(error, operation: "bench"))
            }
        }
    }

    // Every decided error is written into the crash reporter's flight-recorder ring (dispatch above includes it), as
    // pipelines write it: the code's and the layer's names found once in the recorder's table of names, the
    // operation's bytes as they are.
    let ringCode = FlightRecorder.nameIndex("bench/FOURTH")
    let ringLayer = FlightRecorder.nameIndex("application")
    let operationBytes = Array("bench".utf8)
    let ringOperation = UnsafeMutablePointer<UInt8>.allocate(capacity: operationBytes.count)
    ringOperation.initialize(from: operationBytes, count: operationBytes.count)
    Benchmark("Component: flight-recorder ring write (one decided error)") { benchmark in
        for _ in benchmark.scaledIterations {
            axiom_flight_recorder_record(
                ringCode, ringLayer, ringOperation, operationBytes.count, 1, UInt8(AXIOM_RECENT_ERROR_HANDLED))
        }
        blackHole(axiom_flight_recorder_error_count())
    }

    // The ring's timestamp alone: the coarse wall clock, read through the vDSO as every ring write reads it.
    Benchmark("Component: coarse wall clock (clock_gettime, CLOCK_REALTIME_COARSE)") { benchmark in
        var now = timespec()
        for _ in benchmark.scaledIterations {
            clock_gettime(CLOCK_REALTIME_COARSE, &now)
            blackHole(now.tv_nsec)
        }
    }

    // Components of dispatch, to see where its time goes.
    let bare = ErrorPipeline(layer: .application, escalatesTo: nil, configuration: quiet) {}
    Benchmark("Component: ErrorEvent creation (identity + descriptor)") { benchmark in
        let error: any Error = BenchError.fourth
        for _ in benchmark.scaledIterations {
            blackHole(ErrorEvent(error: error, layer: .application, operation: "bench", registry: registry))
        }
    }
    Benchmark("Component: handle with no handlers (event + layer end)") { benchmark in
        let error: any Error = BenchError.fourth
        for _ in benchmark.scaledIterations {
            blackHole(try? bare.decide(error, operation: "bench"))
        }
    }

    Benchmark("Component: handle, four handlers, error made once") { benchmark in
        let error: any Error = BenchError.fourth
        for _ in benchmark.scaledIterations {
            blackHole(try? pipeline.decide(error, operation: "bench"))
        }
    }

    // The same as the first dispatch row, with the caught error handed over (`consume`), as `decide`'s
    // documentation suggests when the catch does not use it again: no retain and release of the error's box.
    Benchmark("Component: dispatch, fourth handler, the error handed over") { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                blackHole(try? pipeline.decide(consume error, operation: "bench"))
            }
        }
    }

    // The observer's row, with the caught error handed over in the same way.
    Benchmark("Component: dispatch, fourth handler, metrics observer, the error handed over") { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                blackHole(try? observed.decide(consume error, operation: "bench"))
            }
        }
    }

    // The dispatch above, its outcome switched on as applications do, instead of wrapped by `try?` in an Optional
    // and passed to the generic `blackHole`: the compiler destroys an `Optional<Outcome<any Sendable>>` through the type's
    // value witnesses, and this shows what that costs.
    Benchmark("Component: dispatch, fourth handler, outcome switched on") { benchmark in
        var handled = 0
        for _ in benchmark.scaledIterations {
            do {
                try fail(.fourth)
            } catch {
                do {
                    if case .handled = try pipeline.decide(error, operation: "bench") { handled += 1 }
                } catch {
                    blackHole(error)
                }
            }
        }
        blackHole(handled)
    }

    let code = BenchError.third.errorCode
    let boxed: any Error = BenchError.third
    let foreign: any Error = CancellationError()

    Benchmark("Lookup: descriptor(for: ErrorCode)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(registry.descriptor(for: code))
        }
    }

    Benchmark("Lookup: descriptor(for: any Error)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(registry.descriptor(for: boxed))
        }
    }

    Benchmark("Lookup: descriptor(for: CancellationError)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(registry.descriptor(for: foreign))
        }
    }

    Benchmark("Lookup: numeric alias") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(registry.descriptor(domain: "bench", numericCode: 3))
        }
    }

    catalogBenchmarks()

    // Scaling across cores is measured by Benchmarks/hot-path-profile --scaling, in a plain release binary: this
    // process counts every malloc through the benchmark's interposer, a count all threads share, so here even bare
    // throw+catch gains nothing from a second task.
    blackHole(metrics.total)
}

/// A swift-metrics backend whose counters are relaxed atomic integers, as a real backend's are (swift-prometheus's
/// counter is one). Other kinds of metric are not used by the benchmarks and go nowhere.
final class AtomicCounterFactory: MetricsFactory, Sendable {
    private let counters = Mutex<[AtomicCounter]>([])

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let counter = AtomicCounter()
        counters.withLock { $0.append(counter) }
        return counter
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    /// Every count so far, summed (read once, at the end, so that nothing optimises the counting away).
    var total: Int64 { counters.withLock { $0.reduce(0) { $0 + $1.value.load(ordering: .relaxed) } } }
}

final class AtomicCounter: CounterHandler, Sendable {
    let value = Atomic<Int64>(0)
    func increment(by amount: Int64) { value.add(amount, ordering: .relaxed) }
    func reset() { value.store(0, ordering: .relaxed) }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
