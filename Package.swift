// swift-tools-version: 6.1
import PackageDescription

/// A benchmark executable under `Benchmarks/NAME`, run with `swift run -c release NAME` or
/// `swift package benchmark --target NAME`.
func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies + [.product(name: "Benchmark", package: "benchmark")],
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "axiom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Axiom", targets: ["Axiom"]),
        .library(name: "AxiomCore", targets: ["AxiomCore"]),
        .library(name: "AxiomTesting", targets: ["AxiomTesting"]),
        .executable(name: "axiom", targets: ["axiom"]),
        // Runs a plugin's code for the first time, in a child process of the host; installed beside `axiom`.
        .executable(name: "axiom-plugin-scanner", targets: ["axiom-plugin-scanner"]),
        .library(name: "AxiomCrash", targets: ["AxiomCrash"]),
        .library(name: "AxiomSymbolication", targets: ["AxiomSymbolication"]),
        .library(name: "AxiomPlugins", targets: ["AxiomPlugins"]),
        .library(name: "AxiomPluginKit", targets: ["AxiomPluginKit"]),
        // The shipped plugins: each one a shared object that `swift build` puts beside the `axiom` executable.
        .library(name: "AxiomPluginNWC", type: .dynamic, targets: ["AxiomPluginNWC"]),
        .library(name: "AxiomPluginTelnyx", type: .dynamic, targets: ["AxiomPluginTelnyx"]),
        .library(name: "AxiomPluginRendio", type: .dynamic, targets: ["AxiomPluginRendio"]),
        .library(name: "AxiomPluginPaymentMethods", type: .dynamic, targets: ["AxiomPluginPaymentMethods"]),
        .library(name: "AxiomPluginLinuxIO", type: .dynamic, targets: ["AxiomPluginLinuxIO"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The flight recorder: recent decided errors and loaded plugins, kept where the crash handler can read
        // them without a lock. Plain C with no dependencies; the core writes it, the crash reporter reads it.
        .target(name: "CAxiomFlightRecorder"),
        // The core: identity (codes, descriptors, the registry and its built-in domains), fate (events, handlers,
        // the pipeline, observers) and trace (redacted logging, the flight recorder). Depends on no other target
        // of the package but the flight recorder's C ring.
        .target(
            name: "AxiomCore",
            dependencies: [
                "CAxiomFlightRecorder",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The runtime on top of the core: clients, contexts and the operation middleware, resilience stages,
        // capabilities and feature levels, presentation. Re-exports AxiomCore, so `import Axiom` is all an
        // application needs.
        .target(
            name: "Axiom",
            dependencies: [
                "AxiomCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "AxiomTesting",
            dependencies: [
                "AxiomCore",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The plugin ABI: one C header, the only thing a plugin and the host share.
        .target(name: "CAxiomPluginABI"),
        // Helpers for Swift plugin authors. Never depends on Axiom: one copy of every Swift type per process.
        .target(name: "AxiomPluginKit", dependencies: ["CAxiomPluginABI"]),
        // The GNU extensions the host and its scanner call (secure_getenv, pipe2, dladdr), which Glibc's module hides.
        .target(name: "CAxiomPluginScan"),
        // The host: discovery, checks before dlopen, the scanner and its verdict cache, loading, diagnostics.
        .target(
            name: "AxiomPlugins",
            dependencies: ["AxiomCore", "CAxiomPluginABI", "CAxiomFlightRecorder", "AxiomPluginKit", "CAxiomPluginScan"]
        ),
        .target(name: "AxiomPluginNWC", dependencies: ["AxiomPluginKit"], path: "Plugins/NWC"),
        .target(name: "AxiomPluginTelnyx", dependencies: ["AxiomPluginKit"], path: "Plugins/Telnyx"),
        .target(name: "AxiomPluginRendio", dependencies: ["AxiomPluginKit"], path: "Plugins/Rendio"),
        .target(name: "AxiomPluginPaymentMethods", dependencies: ["AxiomPluginKit"], path: "Plugins/PaymentMethods"),
        // Written in C to keep the boundary language-neutral.
        .target(
            name: "AxiomPluginLinuxIO", dependencies: ["CAxiomPluginABI"], path: "Plugins/LinuxIO",
            publicHeadersPath: "."),
        .executableTarget(
            name: "axiom",
            dependencies: [
                "Axiom",
                "AxiomPlugins",
                "AxiomCrash",
                "AxiomSymbolication",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The plugin scanner: the child process in which a plugin's entry runs before the host takes its catalog.
        .executableTarget(name: "axiom-plugin-scanner", dependencies: ["AxiomPlugins"]),
        .executableTarget(
            name: "AxiomDemo",
            dependencies: ["Axiom", "AxiomPlugins", "AxiomCrash", "AxiomSymbolication"]
        ),
        .testTarget(
            name: "AxiomTests",
            dependencies: [
                "Axiom", "AxiomCore", "AxiomTesting", "CAxiomFlightRecorder",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "AxiomPluginsTests",
            dependencies: ["Axiom", "AxiomPlugins", "AxiomPluginKit", "CAxiomPluginABI", "axiom-plugin-scanner", "axiom"]
        ),
        // Crash reporter. Only these two link libunwind (it interposes _Unwind_* and
        // backtrace for the whole process).
        .target(
            name: "CAxiomCrash",
            dependencies: ["CAxiomFlightRecorder"],
            cSettings: [.define("UNW_LOCAL_ONLY")],
            linkerSettings: [.linkedLibrary("unwind")]
        ),
        .target(
            name: "AxiomCrash",
            dependencies: [
                "AxiomCore", "CAxiomCrash", "CAxiomFlightRecorder", "AxiomSymbolication",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // A child process that installs the reporter and crashes on request.
        .target(name: "CAxiomCrashProbeSupport", path: "Tests/CAxiomCrashProbeSupport"),
        .executableTarget(
            name: "AxiomCrashProbe",
            dependencies: ["Axiom", "AxiomCrash", "AxiomPlugins", "CAxiomCrashProbeSupport"],
            path: "Tests/AxiomCrashProbe"
        ),
        // `axiom` and the probe are dependencies so both executables are built beside the test binary, which runs them.
        .testTarget(
            name: "AxiomCrashTests",
            dependencies: [
                "Axiom", "AxiomCrash", "AxiomCrashProbe", "AxiomSymbolication", "axiom",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // Symbolication: libdwarf, and libdebuginfod for debug files from debuginfod servers, through a small C
        // shim (no libunwind here: linking it interposes _Unwind_* for the whole process; only the crash module may).
        .target(
            name: "CAxiomDwarf",
            linkerSettings: [.linkedLibrary("dwarf"), .linkedLibrary("debuginfod")]
        ),
        .target(
            name: "AxiomSymbolication",
            dependencies: ["CAxiomDwarf"]
        ),
        .target(
            name: "CAxiomSymbolicationFixtures",
            path: "Tests/CAxiomSymbolicationFixtures"
        ),
        .testTarget(
            name: "AxiomSymbolicationTests",
            dependencies: ["AxiomSymbolication", "CAxiomSymbolicationFixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The server integrations: separate library products on top of the core, each with the server package it glues
// (Hummingbird, swift-distributed-tracing, swift-service-lifecycle), so an application that wants only the core
// links only the core. `AXIOM_CORE_ONLY` (set by CI's sanitizer and fuzz builds) leaves them and their
// dependencies out: they add nothing to what those builds check, and would triple the time of each.
if Context.environment["AXIOM_CORE_ONLY"] == nil && Context.environment["AXIOM_FUZZ"] == nil {
    package.dependencies += [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // OTLP over HTTP only: the gRPC trait would double the build for a transport the collector also speaks
        // over HTTP.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ]
    package.products += [
        .library(name: "AxiomHummingbird", targets: ["AxiomHummingbird"]),
        .library(name: "AxiomTracing", targets: ["AxiomTracing"]),
        .library(name: "AxiomService", targets: ["AxiomService"]),
        .library(name: "AxiomOpenTelemetry", targets: ["AxiomOpenTelemetry"]),
    ]
    package.targets += [
        // RFC 9457 problem details for every error a Hummingbird route throws, decided through a pipeline.
        .target(
            name: "AxiomHummingbird",
            dependencies: [
                "Axiom", "AxiomTracing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Decided errors on the current span, span status from the final outcome, trace ids in log lines.
        .target(
            name: "AxiomTracing",
            dependencies: [
                "AxiomCore", "Axiom",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The framework's start and stop in a ServiceGroup: crash reporter, earlier crash reports, plugins.
        .target(
            name: "AxiomService",
            dependencies: [
                "AxiomCore", "AxiomCrash", "AxiomPlugins",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The framework's logs (redacted), metrics and traces, and its crash reports, to an OpenTelemetry collector.
        .target(
            name: "AxiomOpenTelemetry",
            dependencies: [
                "AxiomCore", "AxiomCrash",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The README's example service: every integration in one Hummingbird server.
        .executableTarget(
            name: "AxiomExampleService",
            dependencies: [
                "Axiom", "AxiomCrash", "AxiomHummingbird", "AxiomOpenTelemetry", "AxiomPlugins", "AxiomService",
                "AxiomTracing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AxiomIntegrationTests",
            dependencies: [
                "Axiom", "AxiomHummingbird", "AxiomTracing", "AxiomService", "AxiomPlugins", "AxiomTesting",
                // The probe and the example service are built beside the test binary, which runs them.
                "AxiomOpenTelemetry", "AxiomCrash", "AxiomCrashProbe", "AxiomExampleService",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ]
}

// Benchmarks, or, when `AXIOM_FUZZ` is set, fuzz targets instead: a fuzz build's sanitizer flags would apply to
// the benchmark plugin's host tool too, and a fuzz build has no use for it.
//
// Fuzz targets: one libFuzzer executable per parser of outside data, under `Tests/Fuzz/NAME`, each with a seed
// corpus in `Tests/Fuzz/Corpus/NAME`. A fuzz target's entry point hands control to libFuzzer's driver, so it links
// only with `-sanitize=fuzzer`. `Tests/Fuzz/run` builds them with `-sanitize=fuzzer,address` and runs each for a
// bounded time.
if Context.environment["AXIOM_FUZZ"] == nil {
    package.targets += [
        benchmark("CrashBenchmarks", ["AxiomCrash", "CAxiomCrash"]),
        benchmark(
            "AxiomBenchmarks", ["Axiom", "CAxiomFlightRecorder", .product(name: "CoreMetrics", package: "swift-metrics")]),
        benchmark("RuntimeBenchmarks", ["Axiom"]),
        benchmark("PluginBenchmarks", ["Axiom", "AxiomPlugins"]),
        benchmark("SymbolicationBenchmarks", ["AxiomSymbolication"]),
        benchmark("PresentationBenchmarks", ["Axiom", .product(name: "Logging", package: "swift-log")]),
    ]
} else {
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: "Fuzz\(name)",
            dependencies: dependencies + ["FuzzSupport"],
            path: "Tests/Fuzz/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
    package.targets += [
        .target(name: "FuzzSupport", path: "Tests/Fuzz/Support"),
        fuzzTarget("DomainError", ["Axiom"]),
        fuzzTarget("PluginELF", ["AxiomPlugins"]),
        fuzzTarget("PluginDescriptor", ["Axiom", "AxiomPlugins", "AxiomPluginKit", "CAxiomPluginABI"]),
        fuzzTarget("RawCrashReport", ["AxiomCrash", "AxiomSymbolication"]),
        fuzzTarget("Symbolication", ["AxiomSymbolication"]),
        fuzzTarget("Redactor", ["Axiom"]),
        fuzzTarget("AcceptLanguage", ["Axiom"]),
    ]
}
