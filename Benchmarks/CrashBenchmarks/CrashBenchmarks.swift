// Stack capture for non-fatal errors, beside its baseline in the same run: a raw
// `unw_backtrace` call into a caller-owned buffer. Grouping a fleet's crash reports (what `axiom crash-reports
// group` does with 1,000 reports from 20 hosts and 3 builds), beside plainly reading the same files.
#if Benchmarks
import AxiomCrash
import Benchmark
import CAxiomCrash

#if canImport(Glibc)
import Glibc
#endif

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

    let grouping = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], warmupIterations: 2, scalingFactor: .one, maxDuration: .seconds(10),
        maxIterations: 30)
    // The fleet is written before each grouping benchmark and removed after it (70 MB under /tmp).
    let root = "/tmp/axiom-crash-fleet-\(getpid())"

    Benchmark(
        "read 1,000 crash report files (baseline)", configuration: grouping,
        closure: { (benchmark: Benchmark, fleet: Fleet) in
            for _ in benchmark.scaledIterations {
                var bytes = 0
                for file in fleet.files { bytes += Fleet.read(file.path).count }
                blackHole(bytes)
            }
        }, setup: { Fleet.make(at: root) }, teardown: { Fleet.remove(root) })

    Benchmark(
        "group 1,000 crash reports of 20 hosts and 3 builds (read, decode, group)", configuration: grouping,
        closure: { (benchmark: Benchmark, fleet: Fleet) in
            for _ in benchmark.scaledIterations {
                var reports: [GroupedReport] = []
                reports.reserveCapacity(fleet.files.count)
                for file in fleet.files {
                    if let report = try? CrashGrouping.read(path: file.path, host: file.host) {
                        reports.append(report)
                    }
                }
                precondition(reports.count == fleet.files.count, "a report was not read")
                blackHole(CrashGrouping.group(reports))
            }
        }, setup: { Fleet.make(at: root) }, teardown: { Fleet.remove(root) })
}

/// 1,000 processed JSON reports of 4 bugs from 20 hosts and 3 builds, each the size of a real one (8 threads of 30
/// symbolicated frames, 40 images), one folder per host under `root`.
struct Fleet {
    var files: [(path: String, host: String)] = []

    static func make(at root: String) -> Fleet {
        remove(root)
        precondition(mkdir(root, 0o755) == 0, "cannot make \(root)")
        var fleet = Fleet()
        let bugs = [
            ("0123456789abcdef", 500), ("fedcba9876543210", 300), ("00000000deadbeef", 150),
            ("1111222233334444", 50),
        ]
        var index = 0
        for (fingerprint, count) in bugs {
            for _ in 0..<count {
                let host = "host-\(index % 20)"
                mkdir(root + "/" + host, 0o755)
                let path = root + "/" + host + "/crash-\(index).json"
                write(report(fingerprint: fingerprint, build: "b\(index % 3)", day: 1 + index % 28), to: path)
                fleet.files.append((path, host))
                index += 1
            }
        }
        return fleet
    }

    static func report(fingerprint: String, build: String, day: Int) -> String {
        let frame = """
            {"kind": "returnAddress", "address": "0x55d0c0ffee", "symbol": "$s4Shop8CheckoutV3runyyKF", \
            "function": "Shop.Checkout.run() throws", "offset": 132, "image": "Shop", "imageOffset": "0x1c0ffee", \
            "file": "/srv/build/Sources/Shop/Checkout.swift", "line": 42, "column": 17}
            """
        let frames = Array(repeating: frame, count: 30).joined(separator: ", ")
        let threads = (0..<8).map {
            #"{"id": \#($0), "name": "worker", "crashed": \#($0 == 0), "frames": [\#(frames)]}"#
        }
        let images = (0..<40).map {
            #"{"name": "lib\#($0).so", "buildId": "\#(build)\#($0)", "path": "/usr/lib/lib\#($0).so", "baseAddress": "0x7f0000000000", "endOfText": "0x7f0000100000"}"#
        }
        return """
            {"timestamp": "2026-11-\(day < 10 ? "0" : "")\(day)T10:00:00.000000Z", "kind": "crashReport", \
            "description": "Fatal error: Unexpectedly found nil", "fingerprint": {"value": "\(fingerprint)", \
            "version": 1, "provisional": false, "kind": "fatalError", "frames": [{"module": "Shop", \
            "function": "Shop.Checkout.run()"}]}, "threads": [\(threads.joined(separator: ", "))], \
            "images": [\(images.joined(separator: ", "))]}
            """
    }

    /// Removes the fleet under `root`: its host folders and their reports.
    static func remove(_ root: String) {
        guard let hosts = opendir(root) else { return }
        while let host = readdir(hosts) {
            let name = withUnsafeBytes(of: host.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            if let files = opendir(root + "/" + name) {
                while let file = readdir(files) {
                    let fileName = withUnsafeBytes(of: file.pointee.d_name) {
                        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    unlink(root + "/" + name + "/" + fileName)
                }
                closedir(files)
            }
            rmdir(root + "/" + name)
        }
        closedir(hosts)
        rmdir(root)
    }

    static func write(_ text: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(descriptor >= 0, "cannot write \(path)")
        defer { close(descriptor) }
        var text = text
        text.withUTF8 { precondition(Glibc.write(descriptor, $0.baseAddress, $0.count) == $0.count) }
    }

    static func read(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        precondition(descriptor >= 0, "cannot read \(path)")
        defer { close(descriptor) }
        var info = stat()
        fstat(descriptor, &info)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        precondition(count == bytes.count, "short read of \(path)")
        return bytes
    }
}

// The entry point the benchmark package's build plugin would generate; without the trait, one that says what to do.
@main struct BenchmarkRunner: BenchmarkRunnerHooks { static func registerBenchmarks() { _ = benchmarks() } }
#else
@main enum BenchmarkRunner { static func main() { fatalError("needs the Benchmarks trait (--traits Benchmarks)") } }
#endif
