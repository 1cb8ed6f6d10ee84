// swift-tools-version: 6.2
import PackageDescription

// Integrations sit behind package traits, all off by default: a dependency whose products only a trait's targets
// use is named here with its products guarded by that trait in every target that names them, so SwiftPM neither
// resolves nor builds it for an application that leaves the trait off. Depending on `Axiom` alone resolves
// swift-log, swift-metrics and swift-argument-parser (the `axiom` tool's).
//
// A trait's targets are declared whatever the traits: with the trait off they compile to nothing (their sources
// are inside `#if TRAIT`), an executable to a stub that says which trait it needs.

/// A benchmark executable under `Benchmarks/NAME`, behind the `Benchmarks` trait: run with
/// `swift package --traits Benchmarks benchmark --target NAME`. Its entry point is written in its source (the
/// benchmark package's generator would make the same one), so the package needs no build plugin of a package it
/// does not resolve.
func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies + [
            .product(name: "Benchmark", package: "benchmark", condition: .when(traits: ["Benchmarks"]))
        ],
        path: "Benchmarks/\(name)"
    )
}

/// A product of another package that only the targets of `trait` use.
func product(_ name: String, _ package: String, trait: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: [trait]))
}

let package = Package(
    name: "axiom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Axiom", targets: ["Axiom"]),
        .library(name: "AxiomCore", targets: ["AxiomCore"]),
        .library(name: "AxiomPresentation", targets: ["AxiomPresentation"]),
        .library(name: "AxiomTesting", targets: ["AxiomTesting"]),
        .executable(name: "axiom", targets: ["axiom"]),
        // Runs a plugin's code for the first time, in a child process of the host, when shipped beside it (else
        // the host's own executable does, a larger process); installed beside `axiom`.
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
        // The integrations, each behind the trait of the same purpose (see `traits`).
        .library(name: "AxiomHTTP", targets: ["AxiomHTTP"]),
        .library(name: "AxiomHummingbird", targets: ["AxiomHummingbird"]),
        .library(name: "AxiomHTTPClient", targets: ["AxiomHTTPClient"]),
        .library(name: "AxiomGRPC", targets: ["AxiomGRPC"]),
        .library(name: "AxiomVapor", targets: ["AxiomVapor"]),
        .library(name: "AxiomTracing", targets: ["AxiomTracing"]),
        .library(name: "AxiomService", targets: ["AxiomService"]),
        .library(name: "AxiomOpenTelemetry", targets: ["AxiomOpenTelemetry"]),
    ],
    traits: [
        .trait(
            name: "ThreadWrapper",
            description: """
                AxiomCrash defines pthread_create for the whole executable, so that every thread created after \
                CrashReporter.install gives itself an alternate signal stack and its stack overflow is reported. \
                Without it, only the threads that call CrashReporter.prepareCurrentThread() (and install's caller) are.
                """),
        .trait(
            name: "Tracing",
            description: """
                AxiomTracing: decided errors on spans, span status, trace ids in log lines \
                (swift-distributed-tracing).
                """),
        .trait(
            name: "HTTP",
            description: """
                AxiomHTTP: RFC 9457 problem details answered for any server and read back from peers \
                (swift-http-types), without a server.
                """),
        .trait(
            name: "Hummingbird",
            description: "AxiomHummingbird: RFC 9457 problem details for a Hummingbird service.",
            enabledTraits: ["Tracing", "HTTP"]),
        .trait(
            name: "HTTPClient",
            description: """
                AxiomHTTPClient: a peer's error answer read back as its error by async-http-client calls, with the \
                caller's trace context sent along.
                """,
            enabledTraits: ["Tracing", "HTTP"]),
        .trait(
            name: "GRPC",
            description: """
                AxiomGRPC: an error's identity across a gRPC call, as a status code and google.rpc.Status details \
                (grpc-swift 2), and read back by the caller; any transport.
                """,
            enabledTraits: ["HTTP", "Tracing"]),
        .trait(
            name: "Vapor",
            description: "AxiomVapor: RFC 9457 problem details for a Vapor 4 service.",
            enabledTraits: ["Tracing", "HTTP"]),
        .trait(
            name: "ServiceLifecycle",
            description: "AxiomService: the framework's start and stop in a ServiceGroup (swift-service-lifecycle)."),
        .trait(
            name: "OpenTelemetry",
            description: """
                AxiomOpenTelemetry: logs, metrics, traces and crash reports to an OTLP/HTTP collector (swift-otel).
                """,
            enabledTraits: ["Tracing", "ServiceLifecycle"]),
        .trait(
            name: "Benchmarks",
            description: "The package's own benchmarks (ordo-one/benchmark); for working on Axiom, not for using it."),
        .default(enabledTraits: ["ThreadWrapper"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
        // The gRPC tests' transport only: an application picks its own.
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // OTLP over HTTP only: the gRPC trait would double the build for a transport the collector also speaks
        // over HTTP.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The flight recorder: recent decided errors and loaded plugins, kept where the crash handler can read
        // them without a lock. Plain C with no dependencies; the core writes it, the crash reporter reads it.
        .target(name: "CAxiomFlightRecorder", path: "Sources/CrashReports/CAxiomFlightRecorder"),
        // The catalog model: the words a code is described in (category, severity, disposition, retry policy,
        // presentation) and the one type that declares a code with its texts per locale (`CodeDefinition`), for the
        // core's own domains, an application's and a plugin's alike. Value types without state and without
        // dependencies, so a plugin links it without linking the core.
        .target(name: "AxiomCatalog", path: "Sources/Identity/AxiomCatalog"),
        // The core: identity (codes, descriptors, the registry and its built-in domains), fate (events, handlers,
        // the pipeline, observers) and trace (redacted logging, the flight recorder). Depends on no other target
        // of the package but the catalog model, which it re-exports, and the flight recorder's C ring.
        .target(
            name: "AxiomCore",
            dependencies: [
                "AxiomCatalog",
                "CAxiomFlightRecorder",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Identity/AxiomCore"
        ),
        // Presentation: what a person is shown of an error (the mapper, localized texts, the queue of what is on
        // screen), on the core alone.
        .target(
            name: "AxiomPresentation",
            dependencies: [
                "AxiomCore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Presentation/AxiomPresentation"
        ),
        // The runtime and resilience on top of the core: clients, contexts and the operation middleware, the
        // resilience stages, capabilities and feature levels. Re-exports AxiomCore and AxiomPresentation, so
        // `import Axiom` is all an application needs.
        .target(
            name: "Axiom",
            dependencies: [
                "AxiomCore",
                "AxiomPresentation",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Runtime/Axiom"
        ),
        .target(
            name: "AxiomTesting",
            dependencies: [
                "AxiomCore",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                // The process's one in-memory tracer, for the suites that trace.
                product("Tracing", "swift-distributed-tracing", trait: "Tracing"),
                product("InMemoryTracing", "swift-distributed-tracing", trait: "Tracing"),
            ],
            path: "Sources/Testing/AxiomTesting"
        ),
        // The plugin ABI: one C header, the only thing a plugin and the host share.
        .target(name: "CAxiomPluginABI", path: "Sources/Plugins/CAxiomPluginABI"),
        // Helpers for Swift plugin authors: the catalog model (re-exported) turned into the C descriptor. Never
        // depends on the core, whose registry and state must have one copy per process, the host's.
        .target(name: "AxiomPluginKit", dependencies: ["AxiomCatalog", "CAxiomPluginABI"], path: "Sources/Plugins/AxiomPluginKit"),
        // The GNU extensions the host and its scanner call (secure_getenv, pipe2, dladdr), which Glibc's module hides,
        // and the constructor that makes every executable linking AxiomPlugins its own scanner.
        .target(name: "CAxiomPluginScan", path: "Sources/Plugins/CAxiomPluginScan"),
        // The ELF reader of the plugin host's checks before dlopen and of the symbolicator: headers, sections,
        // symbols, build-id, from bytes the caller maps or reads from its descriptor. Depends on nothing, so the
        // symbolicator stays free of the core.
        .target(name: "AxiomELF", path: "Sources/CrashReports/AxiomELF"),
        // The host: discovery, checks before dlopen, the scanner and its verdict cache, loading, diagnostics.
        .target(
            name: "AxiomPlugins",
            dependencies: [
                "AxiomCore", "AxiomELF", "CAxiomPluginABI", "CAxiomFlightRecorder", "AxiomPluginKit",
                "CAxiomPluginScan",
            ],
            path: "Sources/Plugins/AxiomPlugins"
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
            ],
            path: "Sources/Tools/axiom",
            // The JSON Schemas of the tool's `--json` outputs and of the crash report: documents, not sources.
            exclude: ["Schemas"]
        ),
        // The plugin scanner: the child process in which a plugin's entry runs before the host takes its catalog; the
        // smaller choice (by default the host's own executable is the scanner).
        .executableTarget(name: "axiom-plugin-scanner", dependencies: ["AxiomPlugins"], path: "Sources/Tools/axiom-plugin-scanner"),
        // The demo of the README's quick start, an example like the example service: under Examples/.
        .executableTarget(
            name: "AxiomDemo",
            dependencies: ["Axiom", "AxiomPlugins", "AxiomCrash", "AxiomSymbolication"],
            path: "Examples/AxiomDemo"
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
            dependencies: [
                "Axiom", "AxiomPlugins", "AxiomPluginKit", "CAxiomPluginABI", "axiom-plugin-scanner", "axiom",
                "AxiomSchemaCheck",
            ]
        ),
        // The outputs' JSON Schemas (Sources/Tools/axiom/Schemas) held to real outputs by the suites that produce them.
        .target(name: "AxiomSchemaCheck", path: "Tests/AxiomSchemaCheck"),
        // Crash reporter. Only these two link libunwind (it interposes _Unwind_* and
        // backtrace for the whole process).
        .target(
            name: "CAxiomCrash",
            dependencies: ["CAxiomFlightRecorder"],
            path: "Sources/CrashReports/CAxiomCrash",
            cSettings: [
                .define("UNW_LOCAL_ONLY"),
                .define("AXIOM_CRASH_WRAPS_PTHREAD_CREATE", .when(traits: ["ThreadWrapper"])),
            ],
            linkerSettings: [.linkedLibrary("unwind")]
        ),
        .target(
            name: "AxiomCrash",
            dependencies: [
                "AxiomCore", "CAxiomCrash", "CAxiomFlightRecorder", "AxiomSymbolication",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/CrashReports/AxiomCrash"
        ),
        // A child process that installs the reporter and crashes on request.
        .target(name: "CAxiomCrashProbeSupport", path: "Tests/CAxiomCrashProbeSupport"),
        .executableTarget(
            name: "AxiomCrashProbe",
            dependencies: [
                "Axiom", "AxiomCrash", "AxiomPlugins", "CAxiomCrashProbeSupport", "CAxiomFlightRecorder",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/AxiomCrashProbe"
        ),
        // `axiom` and the probe are dependencies so both executables are built beside the test binary, which runs them.
        .testTarget(
            name: "AxiomCrashTests",
            dependencies: [
                "Axiom", "AxiomCrash", "AxiomCrashProbe", "AxiomSymbolication", "axiom", "AxiomSchemaCheck", "CAxiomCrash",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // Symbolication: libdwarf, and libdebuginfod for debug files from debuginfod servers, through a small C
        // shim (no libunwind here: linking it interposes _Unwind_* for the whole process; only the crash module may).
        // Neither library is linked: each is opened with dlopen on first use (libdwarf when a module is first read
        // through it, see LazyDwarf.c; libdebuginfod on the first query, see Debuginfod.c). Their headers are still
        // needed to build.
        .target(
            name: "CAxiomDwarf",
            path: "Sources/CrashReports/CAxiomDwarf"
        ),
        .target(
            name: "AxiomSymbolication",
            dependencies: ["AxiomCatalog", "AxiomELF", "CAxiomDwarf"],
            path: "Sources/CrashReports/AxiomSymbolication"
        ),
        .target(
            name: "CAxiomSymbolicationFixtures",
            path: "Tests/CAxiomSymbolicationFixtures"
        ),
        .testTarget(
            name: "AxiomSymbolicationTests",
            dependencies: ["AxiomSymbolication", "CAxiomDwarf", "CAxiomSymbolicationFixtures"]
        ),
        // The ELF reader's failures on bytes that are not a whole ELF64 file.
        .testTarget(name: "AxiomELFTests", dependencies: ["AxiomELF"]),

        // The integrations: each a product on top of the core, with the package it glues, behind its trait.
        // RFC 9457 problem details without a server: the answer a server adapter sends for an error, and a peer's
        // answer read back as its error.
        .target(
            name: "AxiomHTTP",
            dependencies: ["Axiom", product("HTTPTypes", "swift-http-types", trait: "HTTP")],
            path: "Sources/Integrations/AxiomHTTP"
        ),
        // The small shop the server adapters' tests answer for: one catalog for the HTTP, Vapor and gRPC tests.
        .target(name: "AxiomShopFixture", dependencies: ["Axiom"], path: "Tests/AxiomShopFixture"),
        .testTarget(
            name: "AxiomHTTPTests",
            dependencies: [
                "AxiomHTTP", "Axiom", "AxiomCore", "AxiomShopFixture",
                product("HTTPTypes", "swift-http-types", trait: "HTTP"),
            ]
        ),
        // RFC 9457 problem details for every error a Hummingbird route throws, decided through a pipeline.
        .target(
            name: "AxiomHummingbird",
            dependencies: [
                "Axiom", "AxiomHTTP", "AxiomTracing",
                product("Hummingbird", "hummingbird", trait: "Hummingbird"),
                product("Tracing", "swift-distributed-tracing", trait: "Hummingbird"),
            ],
            path: "Sources/Integrations/AxiomHummingbird"
        ),
        // A peer's error answer read back as its error by async-http-client calls, the caller's trace sent along.
        .target(
            name: "AxiomHTTPClient",
            dependencies: [
                "Axiom", "AxiomHTTP", "AxiomTracing",
                product("AsyncHTTPClient", "async-http-client", trait: "HTTPClient"),
                product("NIOCore", "swift-nio", trait: "HTTPClient"),
                product("NIOHTTP1", "swift-nio", trait: "HTTPClient"),
                product("Tracing", "swift-distributed-tracing", trait: "HTTPClient"),
            ],
            path: "Sources/Integrations/AxiomHTTPClient"
        ),
        // An error's identity across a gRPC call: the server's status code and google.rpc.Status details from the
        // decided answer of AxiomHTTP, read back by the client as the peer's error; no transport.
        .target(
            name: "AxiomGRPC",
            dependencies: [
                "Axiom", "AxiomHTTP", "AxiomTracing",
                product("GRPCCore", "grpc-swift-2", trait: "GRPC"),
                product("GRPCProtobuf", "grpc-swift-protobuf", trait: "GRPC"),
                product("SwiftProtobuf", "swift-protobuf", trait: "GRPC"),
                product("Tracing", "swift-distributed-tracing", trait: "GRPC"),
            ],
            path: "Sources/Integrations/AxiomGRPC"
        ),
        // A real gRPC server and client over HTTP/2 on loopback; without the GRPC trait one disabled test.
        .testTarget(
            name: "AxiomGRPCTests",
            dependencies: [
                "AxiomGRPC", "AxiomHTTP", "Axiom", "AxiomCore", "AxiomShopFixture", "AxiomTesting", "AxiomTracing",
                product("GRPCCore", "grpc-swift-2", trait: "GRPC"),
                product("GRPCProtobuf", "grpc-swift-protobuf", trait: "GRPC"),
                product("SwiftProtobuf", "swift-protobuf", trait: "GRPC"),
                product("GRPCNIOTransportHTTP2", "grpc-swift-nio-transport", trait: "GRPC"),
                product("Tracing", "swift-distributed-tracing", trait: "GRPC"),
                product("InMemoryTracing", "swift-distributed-tracing", trait: "GRPC"),
            ]
        ),
        // RFC 9457 problem details for every error a Vapor route throws, decided through a pipeline.
        .target(
            name: "AxiomVapor",
            dependencies: [
                "Axiom", "AxiomHTTP", "AxiomTracing",
                product("Vapor", "vapor", trait: "Vapor"),
                product("Tracing", "swift-distributed-tracing", trait: "Vapor"),
            ],
            path: "Sources/Integrations/AxiomVapor"
        ),
        // A real Vapor application on loopback, called by AsyncHTTPClient (Vapor trait); without the trait it holds
        // one disabled test that says so.
        .testTarget(
            name: "AxiomVaporTests",
            dependencies: [
                "Axiom", "AxiomVapor", "AxiomHTTP", "AxiomShopFixture", "AxiomTracing", "AxiomTesting",
                product("Vapor", "vapor", trait: "Vapor"),
                product("AsyncHTTPClient", "async-http-client", trait: "Vapor"),
                product("Tracing", "swift-distributed-tracing", trait: "Vapor"),
                product("InMemoryTracing", "swift-distributed-tracing", trait: "Vapor"),
            ]
        ),
        // Decided errors on the current span, span status from the final outcome, trace ids in log lines.
        .target(
            name: "AxiomTracing",
            dependencies: [
                "AxiomCore", "Axiom",
                product("Tracing", "swift-distributed-tracing", trait: "Tracing"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Integrations/AxiomTracing"
        ),
        // The framework's start and stop in a ServiceGroup: crash reporter, earlier crash reports, plugins.
        .target(
            name: "AxiomService",
            dependencies: [
                "AxiomCore", "AxiomCrash", "AxiomPlugins",
                product("ServiceLifecycle", "swift-service-lifecycle", trait: "ServiceLifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Integrations/AxiomService"
        ),
        // The framework's logs (redacted), metrics and traces, and its crash reports, to an OpenTelemetry collector.
        .target(
            name: "AxiomOpenTelemetry",
            dependencies: [
                "AxiomCore", "AxiomCrash",
                product("OTel", "swift-otel", trait: "OpenTelemetry"),
                product("AsyncHTTPClient", "async-http-client", trait: "OpenTelemetry"),
                product("ServiceLifecycle", "swift-service-lifecycle", trait: "OpenTelemetry"),
                product("Tracing", "swift-distributed-tracing", trait: "OpenTelemetry"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Integrations/AxiomOpenTelemetry"
        ),
        // The example service: every integration in one Hummingbird server (Hummingbird and OpenTelemetry traits).
        .executableTarget(
            name: "AxiomExampleService",
            dependencies: [
                "Axiom", "AxiomCrash", "AxiomHummingbird", "AxiomOpenTelemetry", "AxiomPlugins", "AxiomService",
                "AxiomTracing",
                product("Hummingbird", "hummingbird", trait: "Hummingbird"),
                product("ServiceLifecycle", "swift-service-lifecycle", trait: "ServiceLifecycle"),
                product("Tracing", "swift-distributed-tracing", trait: "Tracing"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/AxiomExampleService"
        ),
        // Needs every integration trait (`swift test --enable-all-traits`); without them it holds one disabled test
        // that says so.
        .testTarget(
            name: "AxiomIntegrationTests",
            dependencies: [
                "Axiom", "AxiomHummingbird", "AxiomTracing", "AxiomService", "AxiomPlugins", "AxiomTesting",
                // The probe and the example service are built beside the test binary, which runs them.
                "AxiomOpenTelemetry", "AxiomCrash", "AxiomCrashProbe", "AxiomExampleService", "AxiomHTTPClient",
                "AxiomShopFixture",
                product("OTel", "swift-otel", trait: "OpenTelemetry"),
                product("Hummingbird", "hummingbird", trait: "Hummingbird"),
                product("AsyncHTTPClient", "async-http-client", trait: "OpenTelemetry"),
                product("Tracing", "swift-distributed-tracing", trait: "Tracing"),
                product("InMemoryTracing", "swift-distributed-tracing", trait: "Tracing"),
                product("ServiceLifecycle", "swift-service-lifecycle", trait: "ServiceLifecycle"),
                // The same errors through the three adapters, and across frameworks.
                "AxiomVapor", "AxiomGRPC",
                product("Vapor", "vapor", trait: "Vapor"),
                product("GRPCCore", "grpc-swift-2", trait: "GRPC"),
                product("GRPCProtobuf", "grpc-swift-protobuf", trait: "GRPC"),
                product("SwiftProtobuf", "swift-protobuf", trait: "GRPC"),
                product("GRPCNIOTransportHTTP2", "grpc-swift-nio-transport", trait: "GRPC"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),

        // The package's benchmarks, behind the Benchmarks trait.
        benchmark("CrashBenchmarks", ["AxiomCrash", "CAxiomCrash"]),
        benchmark(
            "AxiomBenchmarks",
            [
                "Axiom", "CAxiomFlightRecorder", .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        benchmark("RuntimeBenchmarks", ["Axiom"]),
        benchmark("PluginBenchmarks", ["Axiom", "AxiomPlugins"]),
        benchmark("SymbolicationBenchmarks", ["AxiomSymbolication"]),
        benchmark("PresentationBenchmarks", ["Axiom", .product(name: "Logging", package: "swift-log")]),
        benchmark("TracingBenchmarks", ["AxiomTracing", product("Tracing", "swift-distributed-tracing", trait: "Tracing")]),
        // What the two benchmark servers share: logging, and the pipeline their answers are decided through.
        .target(
            name: "ErrorServerSupport",
            dependencies: ["Axiom", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/ErrorServerSupport"
        ),
        // The server `Benchmarks/http-errors` loads with wrk: the framework's error answer beside the server
        // framework's own (Hummingbird and Vapor traits).
        .executableTarget(
            name: "HTTPErrorServer",
            dependencies: [
                "Axiom", "AxiomHummingbird", "AxiomVapor", "ErrorServerSupport",
                product("Hummingbird", "hummingbird", trait: "Hummingbird"),
                product("Vapor", "vapor", trait: "Vapor"),
            ],
            path: "Benchmarks/HTTPErrorServer"
        ),
        // The server `Benchmarks/grpc-errors` loads with h2load: the framework's error answer beside grpc-swift's own
        // `RPCError` (GRPC trait).
        .executableTarget(
            name: "GRPCErrorServer",
            dependencies: [
                "Axiom", "AxiomGRPC", "ErrorServerSupport",
                product("GRPCCore", "grpc-swift-2", trait: "GRPC"),
                product("GRPCProtobuf", "grpc-swift-protobuf", trait: "GRPC"),
                product("SwiftProtobuf", "swift-protobuf", trait: "GRPC"),
                product("GRPCNIOTransportHTTP2", "grpc-swift-nio-transport", trait: "GRPC"),
            ],
            path: "Benchmarks/GRPCErrorServer"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets are a package of their own, `Tests/Fuzz/Package.swift`, which depends on this one: a fuzz build's
// sanitizer flags apply to everything it builds, and it builds nothing else.
