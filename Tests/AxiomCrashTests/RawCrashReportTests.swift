import Axiom
import AxiomCrash
import AxiomSchemaCheck
import AxiomSymbolication
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Builds raw reports byte by byte from the layout in axiom_crash_format.h, so the
/// reader is checked against the documented format, not against the writer's code.
struct RawReportBuilder {
    var version: UInt16 = 1
    var headerLength: UInt16 = 112
    var signal: Int32 = 11
    var frames: [UInt64] = [0x5555_0000_1234, 0x5555_0000_2000]
    var registers: [UInt64] = Array(1...18)
    var modules: [(path: String, bias: UInt64, base: UInt64, end: UInt64, buildID: [UInt8])] = [
        ("/usr/bin/app", 0x5555_0000_0000, 0x5555_0000_0000, 0x5555_0001_0000, [0xde, 0xad, 0xbe, 0xef]),
        ("/lib/libc.so.6", 0x7f00_0000_0000, 0x7f00_0000_1000, 0x7f00_0010_0000, []),
    ]
    var threadName = "worker"
    /// Tagged records (version 2 only): type and payload.
    var records: [(type: UInt16, payload: [UInt8])] = []
    /// The Axiom version at offset 112 (a header of at least 144 bytes).
    var axiomVersion: String?

    func bytes() -> [UInt8] {
        var recordBytes: [UInt8] = []
        for record in records {
            recordBytes += le(record.type) + le(UInt16(0)) + le(UInt32(record.payload.count)) + record.payload
        }
        var moduleBytes: [UInt8] = []
        for module in modules {
            moduleBytes += le(module.bias) + le(module.base) + le(module.end)
            moduleBytes += le(UInt16(module.buildID.count)) + le(UInt16(module.path.utf8.count))
            moduleBytes += module.buildID + Array(module.path.utf8)
        }
        let total = Int(headerLength) + (registers.count + frames.count) * 8 + moduleBytes.count + recordBytes.count + 8
        var out: [UInt8] = [0x41, 0x58, 0x43, 0x52, 0x41, 0x53, 0x48, 0x00]
        out += le(version) + le(headerLength) + le(UInt16(62)) + le(UInt16(registers.count))
        out += le(UInt32(frames.count)) + le(UInt32(modules.count)) + le(UInt32(moduleBytes.count))
        out += le(UInt32(0)) + le(UInt64(total))
        out += le(UInt32(bitPattern: signal)) + le(UInt32(1)) + le(UInt64(0xdead))
        out += le(UInt32(100)) + le(UInt32(101)) + le(UInt64(1_700_000_000)) + le(UInt64(5))
        out += Array(threadName.utf8) + [UInt8](repeating: 0, count: 16 - threadName.utf8.count)
        if version >= 2 { out += le(UInt32(records.count)) + le(UInt32(recordBytes.count)) }
        if let axiomVersion {
            out += [UInt8](repeating: 0, count: 112 - out.count)
            out += pad(axiomVersion, 32)
        }
        out += [UInt8](repeating: 0, count: Int(headerLength) - out.count)
        for value in registers + frames { out += le(value) }
        out += moduleBytes
        out += recordBytes
        out += [0x41, 0x58, 0x45, 0x4e, 0x44, 0x00, 0x00, 0x00]
        return out
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

private func pad(_ text: String, _ width: Int) -> [UInt8] {
    Array(text.utf8) + [UInt8](repeating: 0, count: width - text.utf8.count)
}

/// Why the test of every cut and byte of a real report does not run under ThreadSanitizer.
let everyByteUnderThreadSanitizer: Comment = """
    it reads 8,400 variants of a report on one thread, and symbolicates those it parses: ThreadSanitizer has nothing \
    to check there and takes half a minute of it; the plain run and AddressSanitizer's run it, and the RawCrashReport \
    fuzz target reads the same seed
    """

@Suite("Raw crash report reader")
struct RawCrashReportTests {
    @Test func parsesEveryField() throws {
        let report = try RawCrashReport(bytes: RawReportBuilder().bytes())
        #expect(report.signal == 11)
        #expect(report.code == 1)
        #expect(report.faultAddress == 0xdead)
        #expect(report.pid == 100)
        #expect(report.tid == 101)
        #expect(report.threadName == "worker")
        #expect(report.timestamp == .init(seconds: 1_700_000_000, nanoseconds: 5))
        #expect(report.architecture == "x86_64")
        #expect(report.registers.map(\.value) == Array(1...18))
        #expect(report.register(named: "rip") == 1)
        #expect(report.register(named: "rflags") == 18)
        #expect(report.frames == [0x5555_0000_1234, 0x5555_0000_2000])
        #expect(report.modules.map(\.path) == ["/usr/bin/app", "/lib/libc.so.6"])
        #expect(report.modules[0].buildIDHex == "deadbeef")
        #expect(report.modules[1].buildID.isEmpty)
        #expect(report.module(containing: 0x5555_0000_1234)?.path == "/usr/bin/app")
        #expect(report.module(containing: 0x1000) == nil)
    }

    @Test func skipsHeaderBytesItDoesNotKnow() throws {
        var builder = RawReportBuilder()
        builder.headerLength = 128
        #expect(try RawCrashReport(bytes: builder.bytes()).frames.count == 2)
    }

    /// A report names the version of Axiom that wrote it from a header of 144 bytes on. A report of the older
    /// format (a header of 112 bytes) is still read: it names none, and its JSON and text leave the version out.
    @Test func readsTheAxiomVersionAndLeavesItOutOfAnOlderReport() throws {
        var builder = RawReportBuilder()
        builder.version = 2
        builder.headerLength = 144
        builder.axiomVersion = "1.0.0"
        let report = try RawCrashReport(bytes: builder.bytes())
        #expect(report.axiomVersion == "1.0.0")
        let newer = SymbolicatedCrashReport(raw: report, symbolicator: Symbolicator(), platform: "Linux")
        let newerJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(newer.json.utf8)) as? [String: Any])
        #expect(newerJSON["axiomVersion"] as? String == "1.0.0")
        #expect(newer.text.contains("\nAxiom: 1.0.0\n"))

        let older = try RawCrashReport(bytes: RawReportBuilder().bytes())
        #expect(older.axiomVersion == nil)
        let olderReport = SymbolicatedCrashReport(raw: older, symbolicator: Symbolicator(), platform: "Linux")
        let olderJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(olderReport.json.utf8)) as? [String: Any])
        #expect(olderJSON["axiomVersion"] == nil)
        #expect(olderJSON["kind"] as? String == "crashReport")
        #expect(!olderReport.text.contains("Axiom:"))
        #expect(SchemaCheck.problems(in: olderReport.json, against: "crash-report") == [])
    }

    /// The version field comes from a file: one that fills all 32 bytes with no NUL, holds a quote, a newline and a
    /// byte that is not UTF-8, is read as those 32 bytes at most, and the JSON report stays JSON that keeps it.
    @Test func readsAVersionFieldOfHostileBytesWithinItsLength() throws {
        var builder = RawReportBuilder()
        builder.version = 2
        builder.headerLength = 144
        builder.axiomVersion = "x"
        var bytes = builder.bytes()
        let hostile: [UInt8] = Array("1.0.0\"\n".utf8) + [0xff] + [UInt8](repeating: 0x41, count: 24)
        #expect(hostile.count == 32)
        bytes.replaceSubrange(112..<144, with: hostile)
        let report = try RawCrashReport(bytes: bytes)
        let version = try #require(report.axiomVersion)
        #expect(version.hasPrefix("1.0.0\"\n"))
        #expect(version.hasSuffix(String(repeating: "A", count: 24)))
        let symbolicated = SymbolicatedCrashReport(raw: report, symbolicator: Symbolicator(), platform: "Linux")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(symbolicated.json.utf8)) as? [String: Any])
        #expect(object["axiomVersion"] as? String == version)
        #expect(report.frames.count == 2, "the fields after the version are read where they stand")
    }

    @Test func rejectsEmpty() {
        #expect(throws: RawReportError.empty()) { try RawCrashReport(bytes: []) }
    }

    @Test func rejectsEveryTruncation() {
        let bytes = RawReportBuilder().bytes()
        for length in 1..<bytes.count {
            #expect(
                throws: RawReportError.truncated(
                    expected: length < 8 ? 8 : length < 112 ? 112 : bytes.count, actual: length)
            ) {
                try RawCrashReport(bytes: Array(bytes.prefix(length)))
            }
        }
    }

    /// Refused with `code`, and a description that names the check: `description`.
    func expectRefusal(
        _ bytes: [UInt8], _ code: RawReportError.Code, _ description: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: RawReportError.self, sourceLocation: sourceLocation) {
            try RawCrashReport(bytes: bytes)
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.description == description, sourceLocation: sourceLocation)
    }

    @Test func rejectsBadMagic() {
        var bytes = RawReportBuilder().bytes()
        bytes[0] = 0x7f
        expectRefusal(bytes, .notAReport, "not a raw crash report (bad magic)")
        expectRefusal(Array("hello".utf8), .notAReport, "not a raw crash report (bad magic)")
    }

    @Test func rejectsUnknownVersion() {
        var builder = RawReportBuilder()
        builder.version = 3
        #expect(throws: RawReportError.unsupportedVersion(3)) { try RawCrashReport(bytes: builder.bytes()) }
    }

    /// Version 2's records, built from the documented layout: a message, a thread, a recent error, plugins, and
    /// a record of a type this reader does not know (skipped).
    @Test func parsesVersionTwoRecords() throws {
        var builder = RawReportBuilder()
        builder.version = 2
        let name = Array("worker-2".utf8) + [UInt8](repeating: 0, count: 8)
        var recent = le(Int64(1_700_000_000)) + le(Int64(7)) + le(UInt32(3)) + [2, 16, 6, 6]
        recent += pad("nwc/RATE_LIMITED", 64) + pad("client", 24) + pad("charge", 56)
        var plugins = le(UInt32(1)) + le(UInt32(0))
        plugins += le(UInt16(7)) + le(UInt16(5)) + le(UInt16(2)) + le(UInt16(9))
        plugins += Array("org.nwc".utf8) + Array("1.2.0".utf8) + [0xab, 0xcd] + Array("/p/nwc.so".utf8)
        builder.records = [
            (1, Array("Fatal error: boom".utf8)),
            (
                2,
                le(Int32(202)) + le(UInt32(0)) + le(UInt32(2)) + le(UInt32(5)) + name + le(UInt64(0x10))
                    + le(UInt64(0x20))
            ),
            (2, le(Int32(203)) + le(UInt32(2)) + le(UInt32(0)) + le(UInt32(0)) + name),
            (3, le(UInt32(4)) + le(UInt32(0))),
            (4, recent),
            (99, [1, 2, 3]),
            (5, plugins),
            (6, le(UInt32(1)) + le(UInt32(2)) + le(UInt64(0x5555_0000_3001)) + le(UInt64(0x5555_0000_4001))),
            (7, Array(1...16) + Array(17...24)),
        ]
        let report = try RawCrashReport(bytes: builder.bytes())
        #expect(report.formatVersion == 2)
        #expect(report.fatalMessage == "Fatal error: boom")
        #expect(report.otherThreads.count == 2)
        #expect(report.otherThreads[0] == .init(tid: 202, name: "worker-2", frames: [0x10, 0x20], omittedFrames: 5))
        #expect(report.otherThreads[1].answered == false)
        #expect(report.otherThreads[1].frames.isEmpty)
        #expect(report.omittedThreads == 4)
        #expect(
            report.recentErrors == [
                .init(
                    timestamp: .init(seconds: 1_700_000_000, nanoseconds: 7), code: "nwc/RATE_LIMITED",
                    disposition: "recover", layer: "client", operation: "charge", attempt: 3)
            ])
        #expect(report.plugins == [.init(id: "org.nwc", version: "1.2.0", buildID: [0xab, 0xcd], path: "/p/nwc.so")])
        #expect(report.plugins.first?.buildIDHex == "abcd")
        #expect(report.asyncChains == [.init(frameIndex: 1, resumePoints: [0x5555_0000_3001, 0x5555_0000_4001])])
        #expect(report.activeTrace?.traceIDHex == "0102030405060708090a0b0c0d0e0f10")
        #expect(report.activeTrace?.spanIDHex == "1112131415161718")
    }

    @Test(
        "a malformed record is a clear error",
        arguments: [
            ("thread frames beyond its length", 2, [UInt8](repeating: 0, count: 12) + [9, 0, 0, 0]),
            ("a recent error of the wrong size", 4, [UInt8](repeating: 0, count: 40)),
            ("an omitted-threads record of 3 bytes", 3, [1, 0, 0]),
            ("a plugin entry past the record", 5, [1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0]),
            ("an async chain of a frame the report does not have", 6, [9, 0, 0, 0, 0, 0, 0, 0]),
            ("an async chain longer than its record", 6, [0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
            ("an active trace of 23 bytes", 7, [UInt8](repeating: 1, count: 23)),
        ] as [(String, UInt16, [UInt8])])
    func recordsThatDoNotFitTheirShapeAreRefused(_ what: String, type: UInt16, payload: [UInt8]) throws {
        var builder = RawReportBuilder()
        builder.version = 2
        builder.records = [(type, payload)]
        #expect(throws: RawReportError.self, "\(what)") { try RawCrashReport(bytes: builder.bytes()) }
        do {
            _ = try RawCrashReport(bytes: builder.bytes())
        } catch {
            #expect(error.code == .malformed)
            #expect(error.description.contains("record 0 is malformed"), "\(error)")
        }
    }

    @Test func aRecordRunningPastItsSectionIsRefused() throws {
        var builder = RawReportBuilder()
        builder.version = 2
        builder.records = [(1, Array("message".utf8))]
        var bytes = builder.bytes()
        bytes[100] &+= 4  // the record section claims 4 more bytes than the file has
        #expect(throws: RawReportError.self) { try RawCrashReport(bytes: bytes) }
    }

    @Test func rejectsShortHeaderLength() {
        var bytes = RawReportBuilder().bytes()
        bytes[10] = 40
        expectRefusal(bytes, .malformed, "raw crash report header length 40 is too small")
    }

    @Test func rejectsTrailingBytes() {
        let bytes = RawReportBuilder().bytes()
        expectRefusal(
            bytes + [1, 2, 3], .malformed, "raw crash report declares \(bytes.count) bytes but has \(bytes.count + 3)")
    }

    @Test func rejectsCountsBeyondTheFile() {
        var bytes = RawReportBuilder().bytes()
        bytes[16] = 3  // frame_count 2 → 3: sections no longer add up to total_length
        expectRefusal(
            bytes, .malformed,
            "raw crash report sections need \(bytes.count + 8) bytes but the report declares \(bytes.count)")
        bytes[16] = 0xff
        bytes[17] = 0xff
        expectRefusal(bytes, .malformed, "raw crash report frame count is 65535, above the limit 256")
    }

    @Test func rejectsMissingTrailer() {
        var bytes = RawReportBuilder().bytes()
        bytes[bytes.count - 8] = 0
        expectRefusal(bytes, .truncated, "raw crash report is truncated: it has no end marker")
    }

    @Test func rejectsModuleRunningPastItsSection() {
        var builder = RawReportBuilder()
        let bytes = builder.bytes()
        builder.modules[0].path = "/usr/bin/ap"  // one byte shorter…
        var shorter = builder.bytes()
        // …but still claiming the old path length: the second record no longer fits.
        let pathLengthOffset = 112 + (18 + 2) * 8 + 26
        shorter[pathLengthOffset] = bytes[pathLengthOffset]
        #expect(throws: RawReportError.self) { try RawCrashReport(bytes: shorter) }
        do {
            _ = try RawCrashReport(bytes: shorter)
        } catch {
            guard error.code == .malformed, error.description.hasPrefix("raw crash report module 1 is malformed")
            else {
                Issue.record("expected module 1 to be malformed, got \(error)")
                return
            }
        }
    }

    @Test("a refusal is identified as axiom.crash/<check>, and says where the reader refused")
    func refusalIdentity() throws {
        let error = try #require(#expect(throws: RawReportError.self) { try RawCrashReport(bytes: []) })
        #expect(error.code == .empty)
        #expect(ErrorRegistry().identity(of: error).code == ErrorCode("axiom.crash", "empty"))
        #expect(error.throwSite.file == "AxiomCrash/RawCrashReport.swift")
        // Equal refusals are equal wherever they were thrown.
        #expect(error == RawReportError.empty())
        #expect(error.throwSite.line != RawReportError.empty().throwSite.line)
    }

    @Test func rejectsRandomBytesWithoutCrashing() {
        var generator = SplitMix64(seed: 0x5eed)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 600)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(throws: RawReportError.self) { try RawCrashReport(bytes: bytes) }
        }
    }

    /// Corrupt bytes after a valid magic and version: any answer but a crash is fine.
    @Test func survivesCorruptedReports() {
        var generator = SplitMix64(seed: 42)
        let valid = RawReportBuilder().bytes()
        var rejected = 0
        for _ in 0..<5_000 {
            var bytes = valid
            for _ in 0..<(1 + generator.next() % 4) {
                let index = 12 + Int(generator.next() % UInt64(valid.count - 12))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            do { _ = try RawCrashReport(bytes: bytes) } catch { rejected += 1 }
        }
        #expect(rejected > 0)
    }

    /// A real report the probe wrote (kept as a fuzzing seed): every cut of it and every byte of it set to 0x00 or
    /// 0xFF is parsed or refused with a `RawReportError`, never a trap.
    @Test(.disabled(if: Sanitizers.thread, everyByteUnderThreadSanitizer))
    func survivesEveryCutAndByteOfARealReport() throws {
        let path = packageRoot + "/Tests/Fuzz/Corpus/RawCrashReport/probe-null-write.axcrash"
        let real = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try RawCrashReport(bytes: real).signal == SIGSEGV)
        for length in 0..<real.count {
            #expect(throws: RawReportError.self) { try RawCrashReport(bytes: Array(real.prefix(length))) }
        }
        let symbolicator = Symbolicator()
        for index in real.indices {
            for value: UInt8 in [0x00, 0xFF] where real[index] != value {
                var bytes = real
                bytes[index] = value
                guard var report = try? RawCrashReport(bytes: bytes) else { continue }
                for module in report.modules.indices { report.modules[module].path = "/nonexistent/\(module)" }
                let processed = SymbolicatedCrashReport(raw: report, symbolicator: symbolicator, platform: "test")
                #expect(!processed.json.isEmpty && !processed.text.isEmpty)
            }
        }
    }

    @Test func aModulePathNamingAFIFOIsNotOpenedForEver() throws {
        // A report from another machine may name any path: the build-id check once opened a FIFO and waited for a
        // writer that never comes.
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/libfifo.so"
        #expect(mkfifo(fifo, 0o600) == 0)
        var builder = RawReportBuilder()
        builder.modules[0].path = fifo
        let raw = try RawCrashReport(bytes: builder.bytes())
        let report = SymbolicatedCrashReport(raw: raw, symbolicator: Symbolicator(), platform: "test")
        #expect(report.frames.count == 2)
        #expect(report.frames.allSatisfy { $0.function == nil })
        #expect(report.changedModules == [fifo])
        #expect(throws: RawReportError.empty()) { try RawCrashReport(contentsOf: fifo) }
    }

    @Test func anOffsetAboveIntMaxIsLeftOutOfTheJSON() throws {
        // The JSON writer once converted a frame's UInt64 offset to Int and trapped above Int.max.
        var report = SymbolicatedCrashReport(
            raw: try RawCrashReport(bytes: RawReportBuilder().bytes()), symbolicator: Symbolicator(), platform: "test")
        report.frames[0].function = "f"
        report.frames[0].offset = .max
        #expect(!report.json.contains("\"offset\""))
        report.frames[0].offset = 12
        #expect(report.json.contains("\"offset\": 12"))
    }

    @Test func reportsUnreadableFiles() {
        #expect(throws: RawReportError.unreadable(path: "/nonexistent/report.axcrash", errno: ENOENT)) {
            try RawCrashReport(contentsOf: "/nonexistent/report.axcrash")
        }
    }

    @Test func errorsReadClearly() {
        #expect(RawReportError.empty().description == "raw crash report is empty")
        #expect(
            RawReportError.truncated(expected: 300, actual: 12).description
                == "raw crash report is truncated: 12 bytes, expected 300")
        #expect(RawReportError.unsupportedVersion(9).description.contains("version 9 is not supported"))
    }

    @Test func listsOnlyCompleteReports() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        for name in ["b.axcrash", "a.axcrash", "c.axcrash.tmp", "notes.txt", ".hidden.axcrash"] {
            #expect(writeFile(directory.path + "/" + name, RawReportBuilder().bytes()))
        }
        for folder in ["processed", "rejected", "folder.axcrash"] {
            #expect(mkdir(directory.path + "/" + folder, 0o700) == 0)
        }
        #expect(writeFile(directory.path + "/processed/d.axcrash", []))
        let pending = try CrashReporter.pendingReports(in: directory.path)
        #expect(pending == [directory.path + "/a.axcrash", directory.path + "/b.axcrash"])
        #expect(try CrashReporter.pendingReports(in: directory.path + "/missing").isEmpty)
    }
}

/// A small deterministic generator, so a failing input can be reproduced.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
}
