// Stack capture for non-fatal errors, beside its baseline in the same run: a raw
// `unw_backtrace` call into a caller-owned buffer.
#if Benchmarks
import AxiomCrash
import Benchmark
import CAxiomCrash

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 1_000,
        scalingFactor: .kilo,
        maxDuration: .seconds(5),
        maxIterations: 1_000_000
    )

    Benchmark("unw_backtrace (baseline)") { benchmark in
        let buffer = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        for _ in benchmark.scaledIterations {
            blackHole(unw_backtrace(buffer, 128))
        }
    }

    Benchmark("StackCapture.capture(into:)") { benchmark in
        let buffer = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        for _ in benchmark.scaledIterations {
            blackHole(StackCapture.capture(into: buffer))
        }
    }

    Benchmark("StackCapture.capture() -> [UInt]") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(StackCapture.capture())
        }
    }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
