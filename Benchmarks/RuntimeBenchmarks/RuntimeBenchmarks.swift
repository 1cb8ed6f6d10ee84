#if Benchmarks
import Axiom
import Benchmark

// The happy path of an operation beside a direct async call, in the same run:
//
//   direct:  work()
//   chain:   handlers ▶ CapabilityStage (cached) ▶ CircuitBreakerStage (closed) ▶ RetryStage ▶ work()
//
// Goals: 0 mallocs per call and at most 100 ns more than the direct call. The "part:" benchmarks measure
// pieces of that path, to see where its cost goes. The timeout stage's goal: it adds at most 100 ns and 1 malloc
// to that chain.

@inline(never)
func work(_ value: Int) async throws -> Int {
    value &+ 1
}

/// Runs `body` once, then measures `scaledIterations` more calls.
///
/// Each sample runs in a new task. The first deep call in a task grows the task's frame allocator (two slabs,
/// about 2.5 KB, seen with `--allocation-stacks`); calling once before the measurement keeps that one-time
/// cost out of the per-call figures, for the direct call and the chain alike.
@inline(__always)
func measure(_ benchmark: Benchmark, _ body: (Int) async -> Void) async {
    await body(0)
    benchmark.startMeasurement()
    for index in benchmark.scaledIterations { await body(index) }
    benchmark.stopMeasurement()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    let clock = ContinuousClock()
    let validator = CapabilityValidator(
        configuration: .init(ttl: .seconds(3600), failureTTL: .seconds(1), timeout: .seconds(1)), clock: clock)
    validator.register(CustomCapability("network") {})
    let breaker: CircuitBreaker
    do {
        breaker = try CircuitBreaker(key: "bench", clock: clock)
    } catch {
        fatalError("the standard configuration is valid: \(error)")
    }
    let registry = ErrorRegistry.shared
    let chain = OperationChain {
        CapabilityStage(validator, requiring: ["network"])
        CircuitBreakerStage(breaker)
        RetryStage(configuration: .init(registry: registry), clock: clock)
    }
    let handlers = ErrorPipeline(layer: .client, escalatesTo: .context) {
        Ignore(CancellationError.self)
        FollowDescriptor()
    }
    let runner = OperationRunner(chain: chain, pipeline: handlers)
    let warm: Benchmark.BenchmarkSetupHook = { try await validator.validate("network") }

    // The two benchmarks of the goal spell the loop out: going through `measure`'s closure changes how the
    // chain's frames are laid out and adds noise to the comparison.
    Benchmark("direct async call") { benchmark in
        blackHole(try? await work(0))
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(try? await work(index))
        }
        benchmark.stopMeasurement()
    }

    Benchmark(
        "capability (cached) → breaker (closed) → retry → handlers",
        closure: { benchmark in
            blackHole(try? await runner.run("bench") { try await work(0) }.value)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                blackHole(try? await runner.run("bench") { try await work(index) }.value)
            }
            benchmark.stopMeasurement()
        }, setup: warm)

    // The total timeout in the standard order (limiter → total timeout → retry → breaker → attempt timeout),
    // beside the same chain without it above: goal at most 100 ns more and at most 1 malloc per call.
    let timed = OperationRunner(
        chain: OperationChain {
            CapabilityStage(validator, requiring: ["network"])
            TimeoutStage(.seconds(30), clock: clock)
            RetryStage(configuration: .init(registry: registry), clock: clock)
            CircuitBreakerStage(breaker)
        },
        pipeline: handlers)
    Benchmark(
        "with timeout stage: capability → timeout → retry → breaker → handlers",
        closure: { benchmark in
            blackHole(try? await timed.run("bench") { try await work(0) }.value)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                blackHole(try? await timed.run("bench") { try await work(index) }.value)
            }
            benchmark.stopMeasurement()
        }, setup: warm)

    let timeoutOnly = TimeoutStage(.seconds(30), clock: clock)
    Benchmark("part: timeout stage alone") { benchmark in
        await measure(benchmark) { index in
            blackHole(try? await timeoutOnly.run("bench") { try await work(index) })
        }
    }
    let attemptTimeoutOnly = AttemptTimeoutStage(.seconds(30), clock: clock)
    Benchmark(
        "part: attempt timeout stage alone (a child task per call)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one, maxDuration: .seconds(2))
    ) { benchmark in
        await measure(benchmark) { index in
            blackHole(try? await attemptTimeoutOnly.run("bench") { try await work(index) })
        }
    }

    // The other resilience stages, each alone around `work(_:)`, beside the direct call.
    let bulkhead: ConcurrencyLimiter
    let rate: RateLimiter
    let hedging: HedgingStage
    do {
        bulkhead = try ConcurrencyLimiter(key: "bench", limit: 64, queueLimit: 64)
        rate = try RateLimiter(
            key: "bench", algorithm: .tokenBucket(capacity: 1_000_000, tokensPerPeriod: 1_000_000, period: .seconds(1)),
            clock: clock)
        hedging = try HedgingStage(maxHedges: 1, delay: .seconds(30), clock: clock)
    } catch {
        fatalError("valid settings: \(error)")
    }
    let bulkheadStage = ConcurrencyLimiterStage(bulkhead)
    Benchmark("part: concurrency limiter stage alone") { benchmark in
        await measure(benchmark) { index in
            blackHole(try? await bulkheadStage.run("bench") { try await work(index) })
        }
    }
    let rateStage = RateLimiterStage(rate)
    Benchmark("part: rate limiter stage alone (token bucket)") { benchmark in
        await measure(benchmark) { index in
            blackHole(try? await rateStage.run("bench") { try await work(index) })
        }
    }
    Benchmark(
        "part: hedging stage alone (first attempt fast: a task group per call)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one, maxDuration: .seconds(2))
    ) { benchmark in
        await measure(benchmark) { index in
            blackHole(try? await hedging.run("bench") { try await work(index) })
        }
    }

    let runtimeClock = RuntimeClock(clock)
    Benchmark("part: clock reading (ContinuousClock)") { benchmark in
        await measure(benchmark) { _ in blackHole(runtimeClock.now()) }
    }
    Benchmark("part: breaker acquire + success (closed)") { benchmark in
        await measure(benchmark) { _ in
            if let permit = try? breaker.acquire() { breaker.recordSuccess(permit) }
        }
    }
    let capabilityOnly = CapabilityStage(validator, requiring: ["network"])
    Benchmark(
        "part: capability stage (cached)",
        closure: { benchmark in
            await measure(benchmark) { index in
                blackHole(try? await capabilityOnly.run("bench") { try await work(index) })
            }
        }, setup: warm)
    let retryOnly = RetryStage(configuration: .init(registry: registry), clock: clock)
    Benchmark("part: retry stage") { benchmark in
        await measure(benchmark) { index in blackHole(try? await retryOnly.run("bench") { try await work(index) }) }
    }
    Benchmark(
        "part: chain without handlers",
        closure: { benchmark in
            await measure(benchmark) { index in blackHole(try? await chain.run("bench") { try await work(index) }) }
        }, setup: warm)
    Benchmark("part: core ErrorPipeline.run alone") { benchmark in
        await measure(benchmark) { index in
            blackHole(try? await handlers.run("bench") { try await work(index) }.value)
        }
    }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
