import Axiom
import AxiomSchemaCheck
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// A plugin's code runs first in `axiom-plugin-scanner`: one that crashes, hangs or exits is refused by name and
/// the host and the other plugins go on; verdicts are cached.
@Suite struct ScannerTests {
    /// A folder with one good plugin and three that must not take the host down, each ending on its own: a null
    /// write in the entry, `exit(0)`, and a truncated copy of the shipped C plugin. The endless one is added apart
    /// (``addHangingPlugin(to:)``), so that only it meets a short time limit.
    static func hostileFolder() throws -> FixtureDirectory {
        let directory = try FixtureDirectory()
        try directory.plugin("good.so", ["FIXTURE_ID=\"test.good\"", "FIXTURE_DOMAIN=\"good\""])
        try directory.plugin("segv.so", ["FIXTURE_ID=\"test.segv\"", "FIXTURE_DOMAIN=\"segv\"", "FIXTURE_CRASH"])
        try directory.plugin("exit.so", ["FIXTURE_ID=\"test.exit\"", "FIXTURE_DOMAIN=\"exit\"", "FIXTURE_EXIT"])
        try directory.write("truncated.so", try truncatedShippedPlugin())
        chmod(directory.file("truncated.so"), 0o755)
        return directory
    }

    /// `hang.so`: a plugin whose entry never returns.
    static func addHangingPlugin(to directory: FixtureDirectory) throws {
        try directory.plugin("hang.so", ["FIXTURE_ID=\"test.hang\"", "FIXTURE_DOMAIN=\"hang\"", "FIXTURE_HANG"])
    }

    /// The shipped C plugin cut right after its dynamic section, its section headers dropped (as a stripped file):
    /// the checks before the scanner read everything they need and pass, and dlopen meets the missing rest.
    static func truncatedShippedPlugin() throws -> [UInt8] {
        var bytes = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: FixtureDirectory.buildDirectory + "/libAxiomPluginLinuxIO.so")))
        let dynamic = try #require(bytes.programHeaders.first { bytes.u32(at: $0) == 2 })
        let end = Int(bytes.u64(at: dynamic + 8) + bytes.u64(at: dynamic + 32))
        bytes.setU64(at: 40, 0)  // e_shoff
        for offset in 60..<64 { bytes[offset] = 0 }  // e_shnum, e_shstrndx
        return Array(bytes.prefix(end))
    }

    static func name(_ rejection: PluginRejection) -> String { URL(fileURLWithPath: rejection.path).lastPathComponent }

    static func expectHostileRefused(_ rejected: [String: (reason: String, detail: String)]) {
        #expect(rejected["segv.so"]?.reason == "crashedInScanner")
        #expect(rejected["segv.so"]?.detail.contains("SIGSEGV in axiom_plugin_entry_v1") == true)
        #expect(rejected["hang.so"]?.reason == "timedOutInScanner")
        #expect(rejected["exit.so"]?.reason == "crashedInScanner")
        let exited = rejected["exit.so"]?.detail ?? ""
        #expect(
            exited.hasPrefix("the plugin exited with status ") && exited.contains("before it returned its catalog"),
            "\(rejected)")
        // Its own status, 0, unless AddressSanitizer's leak check at exit replaced it with its own.
        if !Sanitizers.address { #expect(exited.hasPrefix("the plugin exited with status 0 "), "\(exited)") }
        // It dies of SIGBUS inside dlopen (its segments reach past the end of the file), or dlopen says no.
        #expect(["crashedInScanner", "dlopenFailed"].contains(rejected["truncated.so"]?.reason ?? ""))
        #expect(rejected["good.so"] == nil)
    }

    /// Each test that runs the scanner runs it both ways: the separate `axiom-plugin-scanner` (built beside the
    /// test binary, so found there) and the host's own executable (the test binary, started again as the scanner).
    static let bothScanners = [true, false]

    @Test(arguments: bothScanners)
    func crashingHangingExitingAndTruncatedPluginsAreRefusedByNameAndTheGoodOneLoads(separate: Bool) throws {
        // Only the scanner's time limit tells a plugin that never returns from one whose scanner is slow to start,
        // and a loaded machine can take seconds to start one (a sanitizer's runtime starts in each). So the plugins
        // that end on their own are scanned under a limit no start comes near, and the endless one, alone, under a
        // short one.
        let directory = try Self.hostileFolder()
        defer { directory.remove() }
        let hanging = try FixtureDirectory()
        defer { hanging.remove() }
        try Self.addHangingPlugin(to: hanging)
        let registry = ErrorRegistry()
        let host = PluginHost(
            registry: registry,
            vetting: PluginVetting(
                usesSeparateScanner: separate, timeout: .seconds(120), cacheDirectory: directory.cache))
        let report = host.load(PluginSearch(paths: [directory.path]))
        let impatient = PluginHost(
            registry: registry,
            vetting: PluginVetting(usesSeparateScanner: separate, timeout: .seconds(1), cacheDirectory: hanging.cache))
        let clock = ContinuousClock()
        let started = clock.now
        let hangReport = impatient.load(PluginSearch(paths: [hanging.path]))
        #expect(started.duration(to: clock.now) >= .seconds(1))
        #expect(report.loaded.map(\.id) == ["test.good"])
        #expect(report.loaded.first.map { $0.loadDuration > .zero } == true)
        #expect(hangReport.loaded.isEmpty)
        let rejected = report.rejected + hangReport.rejected
        Self.expectHostileRefused(
            Dictionary(uniqueKeysWithValues: rejected.map { (Self.name($0), ($0.code.name, $0.detail)) }))
        #expect(hangReport.rejected.first?.detail.contains("within 1.0 seconds") == true, "\(hangReport.rejected)")
        #expect(rejected.count == 4)
        #expect(registry.descriptor(for: ErrorCode("good", "E000"))?.source == "test.good")
        #expect(registry.source(ofDomain: "segv") == nil)
        #expect(registry.source(ofDomain: "hang") == nil)
        #expect(report.scannerLaunches + hangReport.scannerLaunches == 5)
    }

    /// A host killed while its scanner runs a plugin that never returns: the scanner dies with it, rather than
    /// spinning for ever (the host's deadline and its kill of the scanner's group died with the host). A shell stands
    /// in for the host: it starts the scanner as the host does (plugin on descriptor 3, verdict pipe on 4, the
    /// host's pid as the last argument), prints its pid, and is killed. The host's own executable as the scanner
    /// is the test binary, started with the marker.
    @Test(arguments: bothScanners) func aScannerDiesWithItsHost(separate: Bool) throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try Self.addHangingPlugin(to: directory)
        let host = Process()
        host.executableURL = URL(fileURLWithPath: "/bin/sh")
        let command =
            separate
            ? [FixtureDirectory.buildDirectory + "/axiom-plugin-scanner"]
            : [FixtureDirectory.testBinary, PluginScanner.marker]
        // Descriptor 4 is a pipe (the shell's output), as the host's is: the marker's constructor checks that.
        let script = #"exec 3<"$1"; shift; "$@" $$ 4>&1 >/dev/null 2>&1 & echo $!; wait"#
        host.arguments = ["-c", script, "sh", directory.file("hang.so")] + command
        let output = Pipe()
        host.standardOutput = output
        try host.run()
        let line = try #require(firstLine(of: output))
        let scanner = try #require(pid_t(line))
        func alive() -> Bool {
            // Gone, or a zombie waiting for whoever adopted it: either way it runs nothing.
            guard let stat = try? String(contentsOfFile: "/proc/\(scanner)/stat", encoding: .utf8) else { return false }
            return !stat.contains(") Z ")
        }
        func mapsThePlugin() -> Bool {
            // Read to the end: a /proc file says it is empty until read.
            guard let maps = FileHandle(forReadingAtPath: "/proc/\(scanner)/maps") else { return false }
            defer { try? maps.close() }
            return String(decoding: maps.readDataToEndOfFile(), as: UTF8.self).contains("hang.so")
        }
        // The plugin is mapped once the scanner has opened it: its endless entry runs next. (The waits below give
        // up only so that a failure cannot hang the suite; how long either takes is not what is checked.)
        #expect(waitFor(mapsThePlugin), "the scanner never loaded the plugin")
        #expect(alive(), "the scanner should be running the plugin's endless entry")
        kill(host.processIdentifier, SIGKILL)
        #expect(waitFor { !alive() }, "the scanner outlived its host")
        if alive() { kill(scanner, SIGKILL) }
        host.waitUntilExit()
    }

    /// The first line a child wrote, without its newline.
    func firstLine(of pipe: Pipe) -> String? {
        var bytes: [UInt8] = []
        while true {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == 0x0A { break }
            bytes.append(first)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    @Test func aSecondStartReadsTheCacheAndAChangedFileIsScannedAgain() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try directory.plugin("a.so", ["FIXTURE_ID=\"test.a\"", "FIXTURE_DOMAIN=\"alpha\""])
        try directory.plugin("b.so", ["FIXTURE_ID=\"test.b\"", "FIXTURE_DOMAIN=\"beta\""])
        try directory.plugin("crash.so", ["FIXTURE_ID=\"test.crash\"", "FIXTURE_DOMAIN=\"crash\"", "FIXTURE_CRASH"])
        let vetting = PluginVetting(cacheDirectory: directory.cache)
        func start() -> (PluginHost, PluginLoadReport) {
            let host = PluginHost(registry: ErrorRegistry(), vetting: vetting)
            return (host, host.load(PluginSearch(paths: [directory.path])))
        }

        let (first, cold) = start()
        #expect(cold.loaded.map(\.id) == ["test.a", "test.b"])
        #expect(cold.rejected.map(\.code) == [.crashedInScanner], "\(cold.rejected)")
        #expect(first.scannerLaunchCount == 3)

        let (second, warm) = start()
        #expect(second.scannerLaunchCount == 0, "no scanner is forked when every verdict is cached")
        #expect(warm.loaded.map(\.id) == ["test.a", "test.b"])
        #expect(warm.rejected.map(\.code) == [.crashedInScanner], "\(warm.rejected)")
        #expect(warm.rejected.first?.detail == cold.rejected.first?.detail)
        #expect(warm.loaded.map(\.codeCount) == [3, 3])

        // A rebuilt file: another size, build-id and modification time. Only it is scanned again.
        unlink(directory.file("b.so"))
        try directory.plugin("b.so", ["FIXTURE_ID=\"test.b\"", "FIXTURE_DOMAIN=\"beta\"", "FIXTURE_CODES=5"])
        let (third, changed) = start()
        #expect(third.scannerLaunchCount == 1)
        #expect(changed.loaded.map(\.codeCount) == [3, 5])
    }

    @Test func aCorruptCacheEntryIsIgnored() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        try directory.plugin("a.so", ["FIXTURE_ID=\"test.a\"", "FIXTURE_DOMAIN=\"alpha\""])
        let cache = directory.cache
        let vetting = PluginVetting(cacheDirectory: cache)
        _ = PluginHost(registry: ErrorRegistry(), vetting: vetting).load(PluginSearch(paths: [directory.path]))
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache)
        #expect(entries.count == 1)
        for (index, damage) in [Array("20:axiom-plugin-cache-1,".utf8), Array("99999999:".utf8), [0xFF, 0x00]]
            .enumerated()
        {
            let entry = cache + "/" + entries[0]
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: entry)))
            bytes = index == 0 ? damage : Array(bytes.prefix(bytes.count / 2)) + damage
            try Data(bytes).write(to: URL(fileURLWithPath: entry))
            let host = PluginHost(registry: ErrorRegistry(), vetting: vetting)
            let report = host.load(PluginSearch(paths: [directory.path]))
            #expect(report.loaded.map(\.id) == ["test.a"])
            #expect(host.scannerLaunchCount == 1, "a damaged entry is a miss, not a verdict")
        }
    }

    /// A scanner that cannot be started for a moment (no process or descriptor to spare on a busy machine) is
    /// started again after short pauses, so its plugin is not refused as `scannerUnavailable` for it; a lasting
    /// failure is answered at once, and a shortage that does not pass ends after a quarter of a second of pauses.
    @Test func aScannerThatCannotStartForAMomentIsStartedAgain() {
        var pauses: [Duration] = []
        var calls = 0
        let recovered = ScannerProcess.retryingTransient(pause: { pauses.append($0) }) {
            calls += 1
            return calls < 4 ? EAGAIN : 0
        }
        #expect(recovered == 0)
        #expect(calls == 4)
        #expect(pauses == [.milliseconds(1), .milliseconds(2), .milliseconds(4)])

        pauses = []
        calls = 0
        let missing = ScannerProcess.retryingTransient(pause: { pauses.append($0) }) {
            calls += 1
            return ENOENT
        }
        #expect(missing == ENOENT)
        #expect(calls == 1)
        #expect(pauses.isEmpty)

        pauses = []
        calls = 0
        let exhausted = ScannerProcess.retryingTransient(pause: { pauses.append($0) }) {
            calls += 1
            return calls.isMultiple(of: 2) ? ENFILE : EMFILE
        }
        #expect(exhausted == EMFILE)
        #expect(calls == 9)
        #expect(pauses == [1, 2, 4, 8, 16, 32, 64, 128].map { .milliseconds($0) })
    }

    @Test func theVerdictFormatRoundTripsAndRefusesWhatIsNotWhole() throws {
        let descriptor = ErrorDescriptor(
            code: ErrorCode("acme.billing", "GATEWAY_TIMEOUT"), numericAliases: [504, 7], category: .network,
            severity: .warning, disposition: .recover,
            retry: RetryPolicy(
                maxAttempts: 3, backoff: .exponential, delay: .milliseconds(100), maxDelay: .seconds(2), jitter: true,
                honorsRetryAfter: false),
            messageKey: "error.acme.billing.GATEWAY_TIMEOUT", recoverySuggestionKey: "x.recovery",
            presentation: PresentationRule(style: .modal, duration: nil, feedback: .error),
            escalation: ErrorCode("acme.billing", "DOWN"), isSensitive: true, httpStatus: 504, source: "acme.billing")
        let verdict = PluginVerdict.accepted(
            .init(
                id: "acme.billing", version: "1.2.3", toolchain: "C",
                catalog: ErrorCatalog(
                    source: "acme.billing", version: "1.2.3", domains: ["acme.billing"], descriptors: [descriptor],
                    messages: ["en": ["error.acme.billing.GATEWAY_TIMEOUT": "Gateway timed out, ünïcode"]])))
        let bytes = verdict.encoded()
        guard case .accepted(let decoded)? = PluginVerdict.decode(bytes) else {
            Issue.record("the verdict did not decode")
            return
        }
        #expect(decoded.catalog.descriptors.map(\.description) == [descriptor.description])
        #expect(decoded.catalog.descriptors[0].retry == descriptor.retry)
        #expect(decoded.catalog.descriptors[0].presentation == descriptor.presentation)
        #expect(decoded.catalog.descriptors[0].numericAliases == [504, 7])
        #expect(decoded.catalog.messages == verdict.catalogMessages)
        for length in 0..<bytes.count {
            #expect(PluginVerdict.decode(Array(bytes.prefix(length))) == nil)
        }
        #expect(PluginVerdict.decode(bytes + [0x30]) == nil)
    }
}

extension PluginVerdict {
    fileprivate var catalogMessages: [String: [String: String]]? {
        if case .accepted(let plugin) = self { return plugin.catalog.messages }
        return nil
    }
}

/// `axiom plugins`, the tool: the same refusals, and the shipped plugins beside it load.
@Suite(.disabled(if: Sanitizers.thread, swiftPluginsUnderThreadSanitizer))
struct PluginsCommandTests {
    /// The fields of `axiom plugins --json` the test reads.
    typealias Report = (loaded: [[String: Any]], rejected: [[String: Any]], scannerLaunches: Int?)

    /// The `axiom` tool built beside the tests, with these arguments, not yet started.
    func axiom(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FixtureDirectory.buildDirectory + "/axiom")
        process.arguments = arguments
        return process
    }

    func run(_ environment: [String: String], scanTimeout: String) throws -> (status: Int32, report: Report) {
        let process = axiom(["plugins", "--json", "--scan-timeout", scanTimeout])
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "AXIOM_PLUGIN_CACHE")
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // Every output the suite reads (plugins loaded, refused, from the cache or not) keeps the promised shape.
        #expect(SchemaCheck.problems(in: String(decoding: data, as: UTF8.self), against: "plugins") == [])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (
            process.terminationStatus,
            (
                object["loaded"] as? [[String: Any]] ?? [], object["rejected"] as? [[String: Any]] ?? [],
                object["scannerLaunches"] as? Int
            )
        )
    }

    /// Each refused file's name, with its reason and detail.
    func rejections(_ report: Report) -> [String: (reason: String, detail: String)] {
        Dictionary(
            uniqueKeysWithValues: report.rejected.map {
                (
                    URL(fileURLWithPath: $0["path"] as? String ?? "").lastPathComponent,
                    ($0["reason"] as? String ?? "", $0["detail"] as? String ?? "")
                )
            })
    }

    @Test func hostilePluginsAreRefusedByNameAndTheOthersLoadTwiceTheSecondTimeFromTheCache() throws {
        // The plugins that end on their own are scanned under a limit no slow start comes near; the endless one
        // joins them once their verdicts are cached, so a short limit is the only one it meets.
        let hostile = try ScannerTests.hostileFolder()
        defer { hostile.remove() }
        let impostor = try FixtureDirectory()
        defer { impostor.remove() }
        try impostor.plugin("nwc.so", ["FIXTURE_ID=\"test.impostor\"", "FIXTURE_DOMAIN=\"nwc\""])
        let environment = [
            "AXIOM_PLUGIN_PATH": hostile.path + ":" + impostor.path, "XDG_CACHE_HOME": hostile.cache,
        ]

        for start in 0..<4 {
            if start == 2 { try ScannerTests.addHangingPlugin(to: hostile) }
            let (status, report) = try run(environment, scanTimeout: start < 2 ? "120" : "1")
            #expect(status == 1)
            let ids = Set(report.loaded.compactMap { $0["id"] as? String })
            #expect(report.loaded.allSatisfy { ($0["loadMilliseconds"] as? Double).map { $0 > 0 } == true })
            #expect(ids.isSuperset(of: ["test.good", "dev.axiom.plugins.nwc", "dev.axiom.plugins.linux-io"]))
            #expect(!ids.contains("test.impostor"))
            let rejected = rejections(report)
            #expect(rejected["nwc.so"]?.reason == "domainClash")
            if start < 2 {
                #expect(rejected["hang.so"] == nil)
                #expect(rejected.count == 4, "\(rejected)")
            } else {
                ScannerTests.expectHostileRefused(rejected)
                #expect(rejected["hang.so"]?.detail.contains("within 1.0 seconds") == true, "\(rejected)")
                #expect(rejected.count == 5, "\(rejected)")
            }
            // The first start scans the five plugins on the path and the five shipped; the second reads every
            // verdict from the cache; the third and the fourth scan only the endless plugin (a time-out is not
            // cached: it may be the machine's doing).
            #expect(report.scannerLaunches == [10, 0, 1, 1][start], "start \(start)")
        }
    }

    @Test func aScanTimeoutThatIsNotAPositiveNumberOfSecondsIsRefused() throws {
        for value in ["0", "-3", "nan", "7200", "soon"] {
            let process = axiom(["plugins", "--scan-timeout=\(value)"])
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 64, "--scan-timeout \(value)")
            #expect(message.contains("--scan-timeout"), "\(message)")
        }
    }
}

/// The verdict reader takes what the scanner's pipe and the cache hold: outside data. Seeded mutations of a real
/// verdict never trap it, and it never accepts bytes that are not exactly one verdict.
@Suite struct VerdictReaderTests {
    @Test func mutatedVerdictsAreReadOrRefusedNeverTrapped() throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        let path = try directory.plugin("good.so", ["FIXTURE_ID=\"test.good\"", "FIXTURE_DOMAIN=\"good\""])
        let (verdict, _) = PluginScanner.read(path: path)
        let original = verdict.encoded()
        guard case .accepted = PluginVerdict.decode(original) else {
            Issue.record("the fixture's verdict did not round-trip")
            return
        }
        var random = SplitMix64(seed: 0x7E5D_1C7)
        var read = 0
        for _ in 0..<20_000 {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[at] = [0x30, 0x39, 0x3A, 0x2C][Int(random.next() % 4)]  // digits and separators
                default: bytes.removeSubrange(at..<min(bytes.count, at + Int(random.next() % 16)))
                }
                if bytes.isEmpty { break }
            }
            if PluginVerdict.decode(bytes) != nil { read += 1 }
        }
        // Some mutations only change a text's content and still read; most break a length and are refused.
        #expect(read > 0 && read < 20_000)
    }
}

/// Whether `condition` came true, looked at every 20 ms; false after two minutes, so that a failure cannot hang the
/// suite (a sanitizer's runtime on a loaded machine takes seconds to start a process, never minutes).
func waitFor(_ condition: () -> Bool) -> Bool {
    for _ in 0..<6_000 {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
