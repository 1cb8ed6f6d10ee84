#if Benchmarks
import Axiom
import AxiomPlugins
import Benchmark
import Foundation
import Synchronization

// Plugin costs, each beside its baseline in the same run:
//
// - loading one plugin file with a 100-code catalog: pre-dlopen ELF checks, dlopen, ABI checks, copying the
//   catalog, registering it. Goal: at most 1 ms. Every iteration loads a fresh copy (a new inode), so dlopen
//   really maps the file rather than bumping a reference count; the registry is new per iteration too.
// - registry lookups with no plugin loaded and with five loaded: must be no slower with plugins.
// - a start with five plugins: today's in-process load (the baseline), then through the scanner with the verdict
//   cache cold (five scanner processes) and warm (no process: five cache entries read). The scanner is found beside
//   this executable: build it in the same configuration first (`swift build -c release --product
//   axiom-plugin-scanner`).
//
// How a start grows with the plugins installed is measured by `Benchmarks/scaling run plugins`, each start in a new
// process: in this one, every iteration's plugins stay loaded (a host never unloads one), and the dynamic loader
// compares each new object with all it holds, so repeated starts here would measure the earlier iterations too.
//
// The plugins are compiled from Tests/PluginFixtures/fixture_plugin.c with `cc` at start, so the benchmark does
// not depend on which products the build put beside it.

let benchmarks: @Sendable () -> Void = {
    let fixtures: Fixtures
    do {
        fixtures = try Fixtures()
    } catch {
        fatalError("cannot build the benchmark's plugins: \(error)")
    }

    Benchmark(
        "Load a plugin with a 100-code catalog",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], warmupIterations: 5, scalingFactor: .one,
            maxDuration: .seconds(10), maxIterations: 300)
    ) { benchmark in
        let host = PluginHost(registry: ErrorRegistry(), vetting: .inProcess)
        let path = fixtures.freshCopy(of: fixtures.hundred)
        benchmark.startMeasurement()
        let result = host.load(file: path)
        benchmark.stopMeasurement()
        unlink(path)  // the mapping stays; the directory entry is not needed any more
        if case .failure(let rejection) = result { benchmark.error("refused: \(rejection)") }
        blackHole(result)
    }

    let startConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], warmupIterations: 2, scalingFactor: .one, maxDuration: .seconds(10),
        maxIterations: 100)
    // Fresh copies (new inodes) for the in-process and cold starts, so that dlopen maps and the cache misses.
    Benchmark("Start with 5 plugins, in process (baseline)", configuration: startConfiguration) { benchmark in
        let copies = fixtures.five.map(fixtures.freshCopy(of:))
        benchmark.startMeasurement()
        let report = PluginHost(registry: ErrorRegistry(), vetting: .inProcess).load(PluginSearch(paths: copies))
        benchmark.stopMeasurement()
        for copy in copies { unlink(copy) }
        fixtures.expectFive(report, benchmark)
    }
    Benchmark("Start with 5 plugins, scanner, cache cold", configuration: startConfiguration) { benchmark in
        let copies = fixtures.five.map(fixtures.freshCopy(of:))
        let cache = fixtures.freshCacheDirectory()
        benchmark.startMeasurement()
        let report = PluginHost(registry: ErrorRegistry(), vetting: PluginVetting(cacheDirectory: cache))
            .load(PluginSearch(paths: copies))
        benchmark.stopMeasurement()
        for copy in copies { unlink(copy) }
        fixtures.expectFive(report, benchmark, scanned: 5)
    }
    let warmCache = fixtures.freshCacheDirectory()
    _ = PluginHost(registry: ErrorRegistry(), vetting: PluginVetting(cacheDirectory: warmCache))
        .load(PluginSearch(paths: fixtures.five))
    Benchmark("Start with 5 plugins, scanner, cache warm", configuration: startConfiguration) { benchmark in
        benchmark.startMeasurement()
        let report = PluginHost(registry: ErrorRegistry(), vetting: PluginVetting(cacheDirectory: warmCache))
            .load(PluginSearch(paths: fixtures.five))
        benchmark.stopMeasurement()
        fixtures.expectFive(report, benchmark, scanned: 0)
    }

    let codes: [ErrorCode] = [
        ErrorCode("axiom.client", "invalidState"), ErrorCode("axiom", "unknownError"),
        ErrorCode("axiom.capability", "validationTimeout"), ErrorCode("swift", "CancellationError"),
        ErrorCode("nowhere", "missing"),
    ]
    let bare = ErrorRegistry()
    let loaded = ErrorRegistry()
    let report = PluginHost(registry: loaded, vetting: .inProcess).load(PluginSearch(paths: fixtures.five))
    precondition(report.loaded.count == 5 && report.rejected.isEmpty, "five plugins should load: \(report.rejected)")
    let pluginCodes = (0..<5).map { ErrorCode("bench\($0)", "E007") }

    for (name, registry, batch) in [
        ("Registry lookup x5, no plugins (baseline)", bare, codes),
        ("Registry lookup x5, 5 plugins loaded", loaded, codes),
        ("Registry lookup x5 of plugin codes, 5 plugins loaded", loaded, pluginCodes),
    ] {
        Benchmark(
            name,
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo,
                maxDuration: .seconds(3))
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                for code in batch { blackHole(registry.descriptor(for: code)) }
            }
        }
    }
}

/// The plugin files the benchmarks load, in `.build/plugin-benchmark-fixtures`.
final class Fixtures: Sendable {
    let directory: String
    let hundred: String
    /// Five plugins of 20 codes, each with its own id and domain (`bench.plugin<n>`, `bench<n>`).
    let five: [String]
    private let copies = Atomic<Int>(0)

    init() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        // One directory per package, recreated on each run, so that runs leave nothing behind in /tmp.
        directory = repository + "/.build/plugin-benchmark-fixtures"
        try? FileManager.default.removeItem(atPath: directory)
        guard mkdir(directory, 0o700) == 0 else { throw FixtureError("cannot create \(directory)") }
        let made = directory
        func build(_ name: String, _ defines: [String]) throws -> String {
            let output = "\(made)/\(name)"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["cc", "-shared", "-fPIC", "-O2", "-I", repository + "/Sources/Plugins/CAxiomPluginABI/include"]
                + defines.map { "-D" + $0 } + [repository + "/Tests/PluginFixtures/fixture_plugin.c", "-o", output]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw FixtureError("cc failed for \(name)") }
            chmod(output, 0o755)
            return output
        }
        hundred = try build(
            "hundred.so", ["FIXTURE_ID=\"bench.hundred\"", "FIXTURE_DOMAIN=\"hundred\"", "FIXTURE_CODES=100"])
        five = try (0..<5).map { index in
            try build(
                "plugin\(index).so",
                ["FIXTURE_ID=\"bench.plugin\(index)\"", "FIXTURE_DOMAIN=\"bench\(index)\"", "FIXTURE_CODES=20"])
        }
    }

    /// A new, empty verdict cache directory.
    func freshCacheDirectory() -> String {
        "\(directory)/cache\(copies.add(1, ordering: .relaxed).newValue)"
    }

    /// Reports a start that did not load the five plugins, or started another number of scanners than `scanned`.
    func expectFive(_ report: PluginLoadReport, _ benchmark: Benchmark, scanned: Int = 0) {
        if report.loaded.count != 5 || report.scannerLaunches != scanned {
            benchmark.error("\(report.loaded.count) loaded, \(report.scannerLaunches) scans: \(report.rejected)")
        }
    }

    /// A copy of a plugin file under a new name and inode, so that dlopen maps it anew.
    func freshCopy(of path: String) -> String {
        let number = copies.add(1, ordering: .relaxed).newValue
        let copy = "\(directory)/copy\(number).so"
        do {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
        } catch {
            fatalError("cannot copy \(path): \(error)")
        }
        chmod(copy, 0o755)
        return copy
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
