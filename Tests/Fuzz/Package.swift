// swift-tools-version: 6.2
import PackageDescription

// The fuzz targets: one libFuzzer executable per parser of outside data, under `NAME`, each with a seed corpus in
// `Corpus/NAME`. A package of its own, on top of the framework's products: `run` builds it with
// `-sanitize=fuzzer,address`, which applies to everything a build contains, and this package contains nothing
// else (no benchmark harness, no integration). A fuzz target's entry point hands control to libFuzzer's driver, so
// it links only with `-sanitize=fuzzer`.

/// The fuzz target `Fuzz<name>`, from the folder `name`.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: "Fuzz\(name)",
        dependencies: products.map { .product(name: $0, package: "axiom") } + ["FuzzSupport"],
        path: name,
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    )
}

let package = Package(
    name: "axiom-fuzz",
    platforms: [.macOS(.v15)],
    // The default traits, as an application gets them, HTTP for AxiomHTTP's reader and GRPC for AxiomGRPC's (which
    // brings grpc-swift's core and protobuf packages, not a transport, and the Tracing trait for AxiomTracing's).
    dependencies: [.package(name: "axiom", path: "../..", traits: [.defaults, "HTTP", "GRPC"])],
    targets: [
        .target(name: "FuzzSupport", path: "Support"),
        fuzzTarget("DomainError", ["Axiom"]),
        fuzzTarget("ELF", ["AxiomPlugins", "AxiomSymbolication"]),
        fuzzTarget("PluginDescriptor", ["Axiom", "AxiomPlugins", "AxiomPluginKit"]),
        fuzzTarget("RawCrashReport", ["AxiomCrash", "AxiomSymbolication"]),
        fuzzTarget("CrashGroups", ["AxiomCrash"]),
        fuzzTarget("LogLine", ["AxiomCrash"]),
        fuzzTarget("Symbolication", ["AxiomSymbolication"]),
        fuzzTarget("Redactor", ["Axiom"]),
        fuzzTarget("AcceptLanguage", ["Axiom"]),
        fuzzTarget("ProblemReader", ["Axiom", "AxiomHTTP"]),
        fuzzTarget("GRPCStatusReader", ["Axiom", "AxiomGRPC", "AxiomHTTP"]),
        fuzzTarget("Traceparent", ["AxiomTracing"]),
    ],
    swiftLanguageModes: [.v6]
)
