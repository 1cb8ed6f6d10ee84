// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "axiom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Axiom", targets: ["Axiom"]),
        .library(name: "AxiomTesting", targets: ["AxiomTesting"]),
        .executable(name: "axiom", targets: ["axiom"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "Axiom",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "AxiomTesting",
            dependencies: [
                "Axiom",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "axiom",
            dependencies: [
                "Axiom",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "AxiomTests",
            dependencies: [
                "Axiom", "AxiomTesting",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "AxiomBenchmarks",
            dependencies: [
                "Axiom",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/AxiomBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RuntimeBenchmarks",
            dependencies: [
                "Axiom",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RuntimeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
