import Axiom
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// Mutated copies of a shipped plugin through the whole loader, the scanner included: whatever the bytes, the host
/// neither crashes nor hangs, and every copy ends as a value (loaded or refused) within the scanner's time limit.
///
/// A Swift Testing test rather than a libFuzzer target: what is under test is the boundary between two processes
/// (the host's checks, then `dlopen` and the entry in the scanner), which a libFuzzer target, one process calling a
/// function, does not exercise; the in-process parsers have their own targets in `Tests/Fuzz` (`ELF`,
/// `PluginDescriptor`). The seed is fixed, so a failure reproduces; each copy's seed and mutation are in the failure.
/// Cost: about 20 s on two cores (most copies reach the scanner, at some 10 ms a process).
@Suite struct MutationFuzzTests {
    /// One mutation of `original`: flipped bytes (in the headers, where the checks read, or anywhere), an extreme
    /// value written over an 8-byte field of the headers, or a truncation.
    static func mutate(_ original: [UInt8], _ random: inout SplitMix64) -> (bytes: [UInt8], what: String) {
        var bytes = original
        switch random.below(4) {
        case 0:
            let count = 1 + random.below(8)
            for _ in 0..<count { bytes[random.below(min(4096, bytes.count))] ^= UInt8(1 << random.below(8)) }
            return (bytes, "\(count) bits flipped in the first 4 KiB")
        case 1:
            let count = 1 + random.below(16)
            for _ in 0..<count { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
            return (bytes, "\(count) bytes replaced anywhere")
        case 2:
            let at = random.below(512) & ~7
            let values: [UInt64] = [0, UInt64.max, UInt64(Int.max), 1 << 32, UInt64(bytes.count), random.next()]
            let value = values[random.below(values.count)]
            bytes.setU64(at: at, value)
            return (bytes, "0x\(String(value, radix: 16)) at offset \(at)")
        default:
            let length = random.below(bytes.count)
            return (Array(bytes.prefix(length)), "truncated to \(length) bytes")
        }
    }

    @Test func mutatedCopiesOfAShippedPluginNeverTakeTheHostDown() throws {
        let original = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: FixtureDirectory.buildDirectory + "/libAxiomPluginLinuxIO.so")))
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        // 4,000 copies in the plain test run: about 30 % are refused by the host's checks and the rest run in the
        // scanner, which crashes for more than a third. They reach every outcome 10,000 copies reached (the rarest,
        // a domain clash and an ABI version out of range, once each), the scanner's time limit aside, which only a
        // loaded machine reaches (once in 10,000 on a busy CI run). Under a sanitizer every scanner process starts
        // the sanitizer's runtime too, and the scanners were most of a sanitizer job's time: 400 copies there take
        // each refusal path under the sanitizer, and the fuzz targets of the ELF reader and the plugin descriptor
        // feed the same parsers hundreds of thousands of inputs under AddressSanitizer.
        let copies = Sanitizers.any ? 400 : 4_000
        let workers = 4
        let timeout = Duration.seconds(2)
        struct Tally {
            var outcomes: [String: Int] = [:]
            var slowest: Duration = .zero
            var slowestWhat = ""
        }
        let tally = Mutex(Tally())
        let registry = ErrorRegistry()
        let vetting = PluginVetting(timeout: timeout, cacheDirectory: nil)
        let started = ContinuousClock.now

        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var random = SplitMix64(seed: 0xA710_F022 &+ UInt64(worker))
            for index in 0..<(copies / workers) {
                let (bytes, what) = Self.mutate(original, &random)
                let path = directory.file("w\(worker)-\(index).so")
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { continue }
                chmod(path, 0o755)
                // A host per copy: a new file may reuse a removed one's inode, which one host loads only once.
                let host = PluginHost(registry: registry, vetting: vetting)
                let before = ContinuousClock.now
                let outcome: String
                switch host.load(file: path) {
                case .success: outcome = "loaded"
                case .failure(let rejection):
                    // The ELF checks before the scanner apart from the other refusals that share their code, by the
                    // check their detail names.
                    let elf = ["malformed ELF", "not an ELF file"].first { rejection.detail.hasPrefix($0 + ":") }
                    outcome = rejection.code.name + (rejection.code == .notAPlugin ? elf.map { " (\($0))" } ?? "" : "")
                }
                let took = before.duration(to: .now)
                unlink(path)
                tally.withTrackedLock { tally in
                    tally.outcomes[outcome, default: 0] += 1
                    if took > tally.slowest {
                        (tally.slowest, tally.slowestWhat) = (took, "worker \(worker) #\(index): \(what)")
                    }
                }
            }
        }

        let result = tally.withTrackedLock { $0 }
        let total = result.outcomes.values.reduce(0, +)
        #expect(total == copies)
        // Every copy came back: one without the scanner's limit would have held its worker for ever. How long the
        // slowest took (starting, killing and reaping a process, which a loaded machine under a sanitizer stretches
        // to seconds) is printed below, not checked: it says how loaded the machine was, not what the host does.
        // The mutations reach both sides: refusals before the scanner, and copies that ran in it.
        let scanned = [
            "loaded", "crashedInScanner", "dlopenFailed", "domainClash", "timedOutInScanner", "invalidCatalog",
        ].reduce(0) { $0 + (result.outcomes[$1] ?? 0) }
        #expect(scanned > copies / 10, "\(result.outcomes)")
        #expect(
            (result.outcomes["notAPlugin (malformed ELF)"] ?? 0)
                + (result.outcomes["notAPlugin (not an ELF file)"] ?? 0)
                > 0, "\(result.outcomes)")
        print(
            "mutation fuzz: \(copies) copies in \(started.duration(to: .now)), slowest \(result.slowest) "
                + "(\(result.slowestWhat)): \(result.outcomes.sorted { $0.key < $1.key })"
        )
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
