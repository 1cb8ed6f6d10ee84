#if Benchmarks
import AxiomSymbolication
import Benchmark
import Foundation

/// 32 addresses inside functions of this benchmark executable (or of the ELF file `SYMBOLICATION_MODULE` names,
/// such as `.build/release/AxiomDemo`) that have DWARF line info: the frames of a typical crash report. Chosen
/// once, evenly spread over the symbol table.
struct Workload: Sendable {
    let modulePath: String
    let addresses: [UInt64]

    static let shared: Workload = {
        let modulePath: String
        if let path = ProcessInfo.processInfo.environment["SYMBOLICATION_MODULE"] {
            modulePath = path
        } else if let module = LoadedModule.containing(address: UInt(bitPattern: #dsohandle)) {
            modulePath = module.path
        } else {
            fatalError("cannot find the benchmark executable among the loaded modules")
        }
        let symbolicator = Symbolicator()
        let symbols = (try? symbolicator.functionSymbols(modulePath: modulePath)) ?? []
        let candidates = symbols.filter { $0.size > 4 }
        var addresses: [UInt64] = []
        // Spread over the whole executable; passes with shifted starting points until 32 are found.
        let step = max(1, candidates.count / 64)
        outer: for pass in 0..<step {
            for index in stride(from: pass, to: candidates.count, by: step) {
                let symbol = candidates[index]
                let address = symbol.address + symbol.size / 2
                let frames = (try? symbolicator.symbolicate(modulePath: modulePath, address: address)) ?? []
                // Frames with a real source file, like those of a crash report (not thunks).
                if let file = frames.last?.file, !file.contains("<compiler-generated>") {
                    addresses.append(address)
                    if addresses.count == 32 { break outer }
                }
            }
        }
        precondition(addresses.count == 32, "found only \(addresses.count) addresses with line info")
        return Workload(modulePath: modulePath, addresses: addresses)
    }()
}

/// Runs a tool over the 32 addresses as one child process and reads all its output.
func runTool(_ executable: String, _ arguments: [String]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        fatalError("cannot run \(executable): \(error)")
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    blackHole(data)
}

let benchmarks: @Sendable () -> Void = {
    if ProcessInfo.processInfo.environment["SYMBOLICATION_PHASES"] != nil { printPhases() }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    // Warm: the module, its compile units and the per-address results are cached. One frame per inner iteration.
    let warm = Symbolicator()
    Benchmark(
        "Warm symbolication, per frame",
        configuration: .init(timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        let workload = Workload.shared
        var index = 0
        for _ in benchmark.scaledIterations {
            blackHole(try? warm.symbolicate(modulePath: workload.modulePath, address: workload.addresses[index]))
            index = (index + 1) & 31
        }
    } setup: {
        let workload = Workload.shared
        for address in workload.addresses {
            _ = try? warm.symbolicate(modulePath: workload.modulePath, address: address)
        }
    }

    // Cold: a new Symbolicator each time, so the module is opened and the touched compile units built again.
    Benchmark("Cold symbolication, 32 frames (new Symbolicator)", configuration: .init(timeUnits: .microseconds)) {
        benchmark in
        let workload = Workload.shared
        for _ in benchmark.scaledIterations {
            let symbolicator = Symbolicator()
            for address in workload.addresses {
                blackHole(try? symbolicator.symbolicate(modulePath: workload.modulePath, address: address))
            }
        }
    } setup: {
        _ = Workload.shared
    }

    // Baselines: one child process symbolicating the same 32 addresses.
    Benchmark("Baseline: llvm-symbolizer process, 32 frames", configuration: .init(timeUnits: .microseconds)) {
        benchmark in
        let workload = Workload.shared
        let arguments =
            ["--obj=\(workload.modulePath)", "--inlining", "--functions=linkage"]
            + workload.addresses.map { "0x" + String($0, radix: 16) }
        for _ in benchmark.scaledIterations {
            runTool("/opt/swift/usr/bin/llvm-symbolizer", arguments)
        }
    }

    Benchmark(
        "Baseline: addr2line process, 32 frames",
        configuration: .init(
            timeUnits: .microseconds, skip: !FileManager.default.isExecutableFile(atPath: "/usr/bin/addr2line"))
    ) { benchmark in
        let workload = Workload.shared
        let arguments =
            ["-f", "-i", "-e", workload.modulePath] + workload.addresses.map { "0x" + String($0, radix: 16) }
        for _ in benchmark.scaledIterations {
            runTool("/usr/bin/addr2line", arguments)
        }
    }
}

/// Where the cold time goes (set SYMBOLICATION_PHASES=1): open + index, first lookups, teardown.
func printPhases() {
    let workload = Workload.shared
    let clock = ContinuousClock()
    for _ in 0..<3 {
        var symbolicator: Symbolicator? = Symbolicator()
        let open = clock.measure { try? symbolicator!.preload(modulePath: workload.modulePath) }
        let lookups = clock.measure {
            for address in workload.addresses {
                blackHole(try? symbolicator!.symbolicate(modulePath: workload.modulePath, address: address))
            }
        }
        if ProcessInfo.processInfo.environment["SYMBOLICATION_PHASES"] == "2" {
            let fresh = Symbolicator()
            try? fresh.preload(modulePath: workload.modulePath)
            for address in workload.addresses {
                var frames: [SymbolicatedFrame] = []
                let time = clock.measure {
                    frames = (try? fresh.symbolicate(modulePath: workload.modulePath, address: address)) ?? []
                }
                print(time, frames.last?.file ?? "-")
            }
        }
        let teardown = clock.measure { symbolicator = nil }
        print("open+index \(open), 32 first lookups \(lookups), teardown \(teardown)")
    }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
