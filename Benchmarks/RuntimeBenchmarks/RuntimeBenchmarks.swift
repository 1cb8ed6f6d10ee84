import Axiom
import Benchmark

// The happy path of an operation beside a direct async call, in the same run:
//
//   direct:  work()
//   chain:   handlers(ErrorPipeline) ▶ CapabilityStage (cached) ▶ CircuitBreakerStage (closed) ▶ RetryStage ▶ work()
//
// Goals (issue 3): 0 mallocs per call and at most 100 ns more than the direct call.

@inline(never)
func work(_ value: Int) async throws -> Int {
    value &+ 1
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
    let breaker = CircuitBreaker(key: "bench", clock: clock)
    let registry = ErrorRegistry.shared
    let chain = OperationChain {
        CapabilityStage(validator, requiring: ["network"])
        CircuitBreakerStage(breaker)
        RetryStage(registry: registry, clock: clock)
    }
    let runner = OperationRunner(
        chain: chain,
        pipeline: ErrorPipeline(layer: .client, escalatesTo: .context) {
            Ignore(CancellationError.self)
            FollowDescriptor()
        })
    let timed = OperationRunner(
        chain: OperationChain {
            CapabilityStage(validator, requiring: ["network"])
            CircuitBreakerStage(breaker)
            TimeoutStage(.seconds(30), clock: clock)
            RetryStage(registry: registry, clock: clock)
        },
        pipeline: ErrorPipeline(layer: .client, escalatesTo: .context) { FollowDescriptor() })
    let warm: Benchmark.BenchmarkSetupHook = { try await validator.validate("network") }

    Benchmark("direct async call") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try? await work(index))
        }
    }

    Benchmark(
        "capability (cached) → breaker (closed) → retry → handlers",
        closure: { benchmark in
            for index in benchmark.scaledIterations {
                blackHole(try? await runner.run("bench") { try await work(index) }.value)
            }
        }, setup: warm)

    Benchmark(
        "with timeout stage: capability → breaker → timeout → retry → handlers",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one, maxDuration: .seconds(2)),
        closure: { benchmark in
            for index in benchmark.scaledIterations {
                blackHole(try? await timed.run("bench") { try await work(index) }.value)
            }
        }, setup: warm)

    // Parts of the happy path, to see where its cost goes.
    let parts = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2))
    let runtimeClock = RuntimeClock(clock)
    Benchmark("part: clock reading", configuration: parts) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(runtimeClock.now()) }
    }
    Benchmark("part: breaker acquire + success", configuration: parts) { benchmark in
        for _ in benchmark.scaledIterations {
            let permit = try? breaker.acquire()
            if let permit { breaker.recordSuccess(permit) }
        }
    }
    let capabilityOnly = CapabilityStage(validator, requiring: ["network"])
    Benchmark(
        "part: capability stage (cached)", configuration: parts,
        closure: { benchmark in
            for index in benchmark.scaledIterations {
                blackHole(try? await capabilityOnly.run("bench") { try await work(index) })
            }
        }, setup: warm)
    let retryOnly = RetryStage(registry: registry, clock: clock)
    Benchmark("part: retry stage", configuration: parts) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try? await retryOnly.run("bench") { try await work(index) })
        }
    }
    let handlersOnly = ErrorPipeline(layer: .client, escalatesTo: .context) { FollowDescriptor() }
    Benchmark("part: handlers (ErrorPipeline.run)", configuration: parts) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try? await handlersOnly.run("bench") { try await work(index) }.value)
        }
    }
}
