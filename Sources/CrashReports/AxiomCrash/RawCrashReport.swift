import AxiomCore
import CAxiomCrash
import CAxiomFlightRecorder

#if canImport(Glibc)
import Glibc
#endif

/// A raw crash report as the signal handler wrote it: the signal, the crashed thread's
/// registers and return addresses, the other threads' stacks, the modules loaded at the
/// time, the runtime's fatal message, and the errors the application decided just before.
/// Addresses are not symbolicated. The byte format is documented in `axiom_crash_format.h`.
package struct RawCrashReport: Hashable, Sendable {
    /// Format version of the file this was read from.
    package var formatVersion: UInt16
    /// Architecture of the crashed process: `x86_64`, `aarch64` or `elf-machine-N`.
    package var architecture: String
    /// Signal number (SIGSEGV, …).
    package var signal: Int32
    /// `si_code` of the signal: how it was raised (kernel fault, `kill`, `tgkill`, …).
    package var code: Int32
    /// `si_addr` of the signal: the faulting address for memory faults, else the pc.
    package var faultAddress: UInt64
    package var pid: Int32
    package var tid: Int32
    /// The crashed thread's name (at most 15 bytes, from `PR_GET_NAME`).
    package var threadName: String
    /// General registers at the fault, in the architecture's order.
    package var registers: [Register]
    /// Program counters, innermost first. The first is the faulting instruction; the
    /// others are return addresses (subtract one before looking up a line).
    package var frames: [UInt64]
    /// Modules loaded at the time of the crash (libraries opened with `dlopen` after install included), or,
    /// when ``modulesFromInstall`` is set, those loaded at install.
    package var modules: [Module]
    /// The module list could not be read at crash time; ``modules`` is the one taken at install.
    package var modulesFromInstall: Bool = false
    /// The message the runtime left before dying (Swift's `Fatal error: …`, a failed C `assert`), if any.
    package var fatalMessage: String?
    /// The process's other threads at the time of the crash (the crashed thread is described by the fields
    /// above), in the order the kernel lists them.
    package var otherThreads: [Thread] = []
    /// Threads beyond the report's limit, not captured.
    package var omittedThreads: Int = 0
    /// The last errors the application's pipelines decided before the crash, oldest first.
    package var recentErrors: [RecentError] = []
    /// The plugins loaded into the process.
    package var plugins: [Plugin] = []
    /// For frames of the crashed thread that may be a Swift async function's: the chain of its async callers'
    /// resume points (plus one, like return addresses), read from its async context. The symbolicator keeps
    /// a chain only where the frame's function is async.
    package var asyncChains: [AsyncChain] = []
    /// The trace the crashed task had announced (`FlightRecorder.withActiveTrace`), when it had one.
    package var activeTrace: ActiveTrace?
    /// How long the signal handler took to capture everything above, in nanoseconds (version 2; nil before).
    package var captureNanoseconds: UInt64?
    /// The version of Axiom whose crash reporter wrote the report (`AxiomVersion.current` at install); nil in a
    /// report written before headers carried it.
    package var axiomVersion: String? = nil
    /// Wall-clock time of the crash.
    package var timestamp: Timestamp
    /// The stack was deeper than the frames the handler records.
    package var framesTruncated: Bool
    /// The unwinder could not start; `frames` holds only the faulting pc.
    package var unwindFailed: Bool
    /// The module table was full; some modules are missing.
    package var modulesTruncated: Bool

    /// One general register.
    package struct Register: Hashable, Sendable {
        package var name: String
        package var value: UInt64

        package init(name: String, value: UInt64) {
            self.name = name
            self.value = value
        }
    }

    /// A module (executable or shared object) mapped into the crashed process.
    package struct Module: Hashable, Sendable {
        /// Absolute path when known (the main executable's comes from `/proc/self/exe`).
        package var path: String
        /// Load bias: run-time address minus the ELF virtual address.
        package var bias: UInt64
        /// Lowest mapped address of the module.
        package var base: UInt64
        /// End of the module's executable segment.
        package var endOfText: UInt64
        /// The GNU build-id, empty when the module has none.
        package var buildID: [UInt8]

        package init(path: String, bias: UInt64, base: UInt64, endOfText: UInt64, buildID: [UInt8]) {
            self.path = path
            self.bias = bias
            self.base = base
            self.endOfText = endOfText
            self.buildID = buildID
        }

        /// The file name, without its directory.
        package var name: String { String(path.split(separator: "/").last ?? "") }

        /// The build-id as lowercase hexadecimal, as `file` and `readelf -n` print it.
        package var buildIDHex: String { hexDigits(buildID) }

        /// Whether `address` lies in this module's mapped text.
        package func contains(_ address: UInt64) -> Bool {
            address >= base && address < endOfText
        }
    }

    /// A thread that did not crash, as it was when another one did.
    package struct Thread: Hashable, Sendable {
        package var tid: Int32
        /// Its name (at most 15 bytes, from `/proc/self/task/TID/comm`).
        package var name: String
        /// Its pc, then return addresses; empty when it did not answer.
        package var frames: [UInt64]
        /// Frames deeper than the report keeps.
        package var omittedFrames: Int
        /// False when the thread did not give its stack in time (it blocks the signal the reporter asks with,
        /// or could not run): the report then holds its id and name only.
        package var answered: Bool
        /// The unwinder could not start on it; `frames` holds only its pc.
        package var unwindFailed: Bool

        package init(
            tid: Int32, name: String, frames: [UInt64], omittedFrames: Int = 0, answered: Bool = true,
            unwindFailed: Bool = false
        ) {
            self.tid = tid
            self.name = name
            self.frames = frames
            self.omittedFrames = omittedFrames
            self.answered = answered
            self.unwindFailed = unwindFailed
        }
    }

    /// The async callers of one frame of the crashed thread.
    package struct AsyncChain: Hashable, Sendable {
        /// Position of the frame in ``RawCrashReport/frames``.
        package var frameIndex: Int
        /// Resume points in the callers, innermost caller first, each plus one.
        package var resumePoints: [UInt64]

        package init(frameIndex: Int, resumePoints: [UInt64]) {
            self.frameIndex = frameIndex
            self.resumePoints = resumePoints
        }
    }

    /// One error episode a pipeline ended shortly before the crash.
    package struct RecentError: Hashable, Sendable {
        /// When it ended (wall clock).
        package var timestamp: Timestamp
        /// `domain/code`.
        package var code: String
        /// The fate the layer carried out, as ``Disposition`` spells it: `ignore`, `recover`, `escalate` or
        /// `handle` (`disposition-<n>` for a value this version does not know).
        package var disposition: String
        /// The layer that decided it.
        package var layer: String
        package var operation: String
        /// Which attempt failed last, from 1.
        package var attempt: Int

        package init(
            timestamp: Timestamp, code: String, disposition: String, layer: String, operation: String, attempt: Int
        ) {
            self.timestamp = timestamp
            self.code = code
            self.disposition = disposition
            self.layer = layer
            self.operation = operation
            self.attempt = attempt
        }
    }

    /// A plugin loaded into the crashed process.
    package struct Plugin: Hashable, Sendable {
        package var id: String
        package var version: String
        /// The GNU build-id of its file, empty when it has none.
        package var buildID: [UInt8]
        package var path: String

        package init(id: String, version: String, buildID: [UInt8], path: String) {
            self.id = id
            self.version = version
            self.buildID = buildID
            self.path = path
        }

        /// The build-id as lowercase hexadecimal.
        package var buildIDHex: String { hexDigits(buildID) }
    }

    /// A `CLOCK_REALTIME` reading.
    /// A W3C trace context: the trace and span a task was working for.
    package struct ActiveTrace: Hashable, Sendable {
        /// 16 bytes.
        package var traceID: [UInt8]
        /// 8 bytes.
        package var spanID: [UInt8]

        /// A trace context.
        package init(traceID: [UInt8], spanID: [UInt8]) {
            self.traceID = traceID
            self.spanID = spanID
        }

        /// The trace id as 32 lower-case hex digits.
        package var traceIDHex: String { hexDigits(traceID) }
        /// The span id as 16 lower-case hex digits.
        package var spanIDHex: String { hexDigits(spanID) }
    }

    package struct Timestamp: Hashable, Sendable {
        package var seconds: Int64
        package var nanoseconds: Int64

        package init(seconds: Int64, nanoseconds: Int64) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }
    }

    /// The register with this name (`rip`, `rsp`, …), if the architecture has it.
    package func register(named name: String) -> UInt64? {
        registers.first { $0.name == name }?.value
    }

    /// The module whose text contains `address`.
    package func module(containing address: UInt64) -> Module? {
        modules.first { $0.contains(address) }
    }
}

/// Bytes as lowercase hexadecimal, as `file` and `readelf -n` print a build-id.
func hexDigits(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xf)])
    }
    return String(decoding: text, as: UTF8.self)
}

extension RawCrashReport {
    /// AXIOM_CRASH_MAGIC, "AXCRASH\0" (spelled out: C string macros with a NUL inside
    /// do not import into Swift byte for byte).
    static let magic: [UInt8] = [0x41, 0x58, 0x43, 0x52, 0x41, 0x53, 0x48, 0x00]
    /// AXIOM_CRASH_TRAILER_MAGIC, "AXEND\0\0\0".
    static let trailerMagic: [UInt8] = [0x41, 0x58, 0x45, 0x4e, 0x44, 0x00, 0x00, 0x00]

    /// The largest file accepted: every section at its limit, with long paths.
    static let sizeLimit = 16 << 20

    /// Reads and validates the raw report at `path`.
    package init(contentsOf path: String) throws(RawReportError) {
        try self.init(bytes: try Self.readFile(path))
    }

    /// Validates and parses the bytes of a raw report.
    package init(bytes: [UInt8]) throws(RawReportError) {
        var reader = ByteReader(bytes: bytes)
        let magic = Self.magic
        guard !bytes.isEmpty else { throw .empty() }
        guard bytes.count >= magic.count else {
            throw bytes.elementsEqual(magic.prefix(bytes.count))
                ? .truncated(expected: magic.count, actual: bytes.count) : .notAReport()
        }
        guard bytes.prefix(magic.count).elementsEqual(magic) else { throw .notAReport() }
        let headerLength = Int(AXIOM_CRASH_HEADER_LENGTH_V1)
        guard bytes.count >= 12 else { throw .truncated(expected: headerLength, actual: bytes.count) }

        reader.offset = 8
        let version = reader.u16()
        guard version == 1 || version == 2 else { throw .unsupportedVersion(version) }
        let declaredHeaderLength = Int(reader.u16())
        guard declaredHeaderLength >= headerLength else { throw .malformed(headerLength: declaredHeaderLength) }
        guard bytes.count >= declaredHeaderLength else {
            throw .truncated(expected: declaredHeaderLength, actual: bytes.count)
        }
        let architectureCode = reader.u16()
        let registerCount = Int(reader.u16())
        let frameCount = Int(reader.u32())
        let moduleCount = Int(reader.u32())
        let moduleSectionLength = Int(reader.u32())
        let flags = reader.u32()
        let totalLength = reader.u64()
        reader.offset = 96
        // Version 1 reserved these bytes (zero): no records.
        let recordCount = version >= 2 ? Int(reader.u32()) : 0
        let recordSectionLength = version >= 2 ? Int(reader.u32()) : 0
        captureNanoseconds = version >= 2 ? reader.u64() : nil
        reader.offset = 40
        guard totalLength <= UInt64(Self.sizeLimit) else {
            throw .tooLarge(size: Int(clamping: totalLength), limit: Self.sizeLimit)
        }
        let declaredLength = Int(totalLength)
        if bytes.count < declaredLength { throw .truncated(expected: declaredLength, actual: bytes.count) }
        if bytes.count > declaredLength { throw .malformed(declaredLength: declaredLength, actualLength: bytes.count) }

        try Self.check("register count", registerCount, limit: Int(AXIOM_CRASH_MAX_REGISTERS))
        try Self.check("frame count", frameCount, limit: Int(AXIOM_CRASH_MAX_FRAMES))
        try Self.check("module count", moduleCount, limit: Int(AXIOM_CRASH_MAX_MODULES))
        try Self.check("module section length", moduleSectionLength, limit: Self.sizeLimit)
        try Self.check("record count", recordCount, limit: Int(AXIOM_CRASH_MAX_RECORDS))
        try Self.check("record section length", recordSectionLength, limit: Self.sizeLimit)
        let trailerLength = Int(AXIOM_CRASH_TRAILER_LENGTH)
        let needed =
            declaredHeaderLength + (registerCount + frameCount) * 8 + moduleSectionLength + recordSectionLength
            + trailerLength
        guard needed == declaredLength else { throw .malformed(sectionsNeed: needed, declaredLength: declaredLength) }
        guard bytes.suffix(trailerLength).elementsEqual(Self.trailerMagic) else { throw .truncatedBeforeEndMarker() }

        signal = reader.i32()
        code = reader.i32()
        faultAddress = reader.u64()
        pid = reader.i32()
        tid = reader.i32()
        timestamp = Timestamp(seconds: reader.i64(), nanoseconds: reader.i64())
        threadName = String(decoding: reader.bytes(16).prefix { $0 != 0 }, as: UTF8.self)
        formatVersion = version
        framesTruncated = flags & AXIOM_CRASH_FLAG_FRAMES_TRUNCATED != 0
        unwindFailed = flags & AXIOM_CRASH_FLAG_UNWIND_FAILED != 0
        modulesTruncated = flags & AXIOM_CRASH_FLAG_MODULES_TRUNCATED != 0
        modulesFromInstall = flags & AXIOM_CRASH_FLAG_MODULES_AT_INSTALL != 0

        if declaredHeaderLength >= Int(AXIOM_CRASH_HEADER_LENGTH) {
            reader.offset = Int(AXIOM_CRASH_HEADER_LENGTH_V1)
            let version = reader.bytes(Int(AXIOM_CRASH_AXIOM_VERSION_LENGTH)).prefix { $0 != 0 }
            axiomVersion = version.isEmpty ? nil : String(decoding: version, as: UTF8.self)
        }

        reader.offset = declaredHeaderLength
        let names = Self.registerNames(architecture: architectureCode)
        registers = (0..<registerCount).map { index in
            Register(name: index < names.count ? names[index] : "r\(index)", value: reader.u64())
        }
        frames = (0..<frameCount).map { _ in reader.u64() }
        architecture = Self.architectureName(architectureCode)
        modules = try Self.parseModules(
            &reader, count: moduleCount, sectionEnd: reader.offset + moduleSectionLength)
        try parseRecords(&reader, count: recordCount, sectionEnd: reader.offset + recordSectionLength)
    }

    /// Reads the tagged records of version 2; types this reader does not know are skipped.
    private mutating func parseRecords(
        _ reader: inout ByteReader, count: Int, sectionEnd: Int
    ) throws(RawReportError) {
        let headerLength = Int(AXIOM_CRASH_RECORD_HEADER_LENGTH)
        for index in 0..<count {
            guard reader.offset + headerLength <= sectionEnd else {
                throw .malformed(record: index, reason: "record header runs past the record section")
            }
            let type = Int32(reader.u16())
            _ = reader.u16()
            let length = Int(reader.u32())
            guard length <= sectionEnd - reader.offset else {
                throw .malformed(record: index, reason: "payload of \(length) bytes runs past the record section")
            }
            var payload = ByteReader(bytes: Array(reader.bytes(length)))
            switch type {
            case AXIOM_CRASH_RECORD_MESSAGE:
                guard fatalMessage == nil else { throw .malformed(record: index, reason: "a second message") }
                fatalMessage = String(decoding: payload.bytes, as: UTF8.self)
            case AXIOM_CRASH_RECORD_THREAD:
                otherThreads.append(try Self.parseThread(&payload, index: index))
            case AXIOM_CRASH_RECORD_THREADS_OMITTED:
                guard length == 8 else {
                    throw .malformed(record: index, reason: "omitted threads: \(length) bytes")
                }
                omittedThreads += Int(payload.u32())
            case AXIOM_CRASH_RECORD_RECENT_ERROR:
                recentErrors.append(try Self.parseRecentError(&payload, index: index))
            case AXIOM_CRASH_RECORD_PLUGINS:
                plugins += try Self.parsePlugins(&payload, index: index)
            case AXIOM_CRASH_RECORD_ASYNC_CHAIN:
                guard length >= 8 else {
                    throw .malformed(record: index, reason: "async chain of \(length) bytes")
                }
                let frameIndex = Int(payload.u32())
                let count = Int(payload.u32())
                guard count <= Int(AXIOM_CRASH_MAX_ASYNC_FRAMES), length == 8 + count * 8, frameIndex < frames.count
                else {
                    throw .malformed(record: index, reason: "async chain of \(count) frames in \(length) bytes")
                }
                asyncChains.append(
                    AsyncChain(frameIndex: frameIndex, resumePoints: (0..<count).map { _ in payload.u64() }))
            case AXIOM_CRASH_RECORD_ACTIVE_TRACE:
                guard activeTrace == nil else { throw .malformed(record: index, reason: "a second active trace") }
                guard length == 24 else {
                    throw .malformed(record: index, reason: "active trace of \(length) bytes")
                }
                activeTrace = ActiveTrace(traceID: Array(payload.bytes[0..<16]), spanID: Array(payload.bytes[16..<24]))
            default:
                continue
            }
        }
        guard reader.offset == sectionEnd else {
            throw .malformed(
                record: count, reason: "\(sectionEnd - reader.offset) bytes left after the last record")
        }
    }

    private static func parseThread(_ payload: inout ByteReader, index: Int) throws(RawReportError) -> Thread {
        let fixed = Int(AXIOM_CRASH_THREAD_RECORD_FIXED_LENGTH)
        guard payload.bytes.count >= fixed else {
            throw .malformed(record: index, reason: "thread record of \(payload.bytes.count) bytes")
        }
        let tid = payload.i32()
        let flags = payload.u32()
        let frameCount = Int(payload.u32())
        let omitted = Int(payload.u32())
        let name = String(decoding: payload.bytes(16).prefix { $0 != 0 }, as: UTF8.self)
        try check("thread frame count", frameCount, limit: Int(AXIOM_CRASH_MAX_THREAD_FRAMES))
        guard payload.bytes.count == fixed + frameCount * 8 else {
            throw .malformed(record: index, reason: "thread record length does not match its \(frameCount) frames")
        }
        let frames = (0..<frameCount).map { _ in payload.u64() }
        return Thread(
            tid: tid, name: name, frames: frames, omittedFrames: omitted,
            answered: flags & AXIOM_CRASH_THREAD_NO_ANSWER == 0,
            unwindFailed: flags & AXIOM_CRASH_THREAD_UNWIND_FAILED != 0)
    }

    private static func parseRecentError(
        _ payload: inout ByteReader, index: Int
    ) throws(RawReportError) -> RecentError {
        guard payload.bytes.count == Int(AXIOM_RECENT_ERROR_LENGTH) else {
            throw .malformed(record: index, reason: "recent error of \(payload.bytes.count) bytes")
        }
        let seconds = payload.i64()
        let nanoseconds = payload.i64()
        let attempt = Int(payload.u32())
        let disposition: String
        switch Int(payload.bytes(1).first!) {
        case Int(AXIOM_RECENT_ERROR_IGNORED): disposition = Disposition.ignore.rawValue
        case Int(AXIOM_RECENT_ERROR_RECOVERED): disposition = Disposition.recover.rawValue
        case Int(AXIOM_RECENT_ERROR_ESCALATED): disposition = Disposition.escalate.rawValue
        case Int(AXIOM_RECENT_ERROR_HANDLED): disposition = Disposition.handle.rawValue
        case let other: disposition = "disposition-\(other)"
        }
        let lengths = Array(payload.bytes(3))
        func text(_ field: Int, _ length: UInt8) -> String {
            let bytes = payload.bytes(field)
            return String(decoding: bytes.prefix(Int(length)), as: UTF8.self)
        }
        let code = text(Int(AXIOM_RECENT_ERROR_CODE_LENGTH), lengths[0])
        let layer = text(Int(AXIOM_RECENT_ERROR_LAYER_LENGTH), lengths[1])
        let operation = text(Int(AXIOM_RECENT_ERROR_OPERATION_LENGTH), lengths[2])
        return RecentError(
            timestamp: Timestamp(seconds: seconds, nanoseconds: nanoseconds), code: code, disposition: disposition,
            layer: layer, operation: operation, attempt: attempt)
    }

    private static func parsePlugins(_ payload: inout ByteReader, index: Int) throws(RawReportError) -> [Plugin] {
        let size = payload.bytes.count
        guard size >= 8 else { throw .malformed(record: index, reason: "plugin list of \(size) bytes") }
        let count = Int(payload.u32())
        _ = payload.u32()
        var plugins: [Plugin] = []
        for _ in 0..<min(count, size / 8) {
            guard payload.offset + 8 <= size else { break }
            let lengths = (0..<4).map { _ in Int(payload.u16()) }
            guard lengths.reduce(0, +) <= size - payload.offset else {
                throw .malformed(record: index, reason: "a plugin entry runs past the record")
            }
            let id = String(decoding: payload.bytes(lengths[0]), as: UTF8.self)
            let version = String(decoding: payload.bytes(lengths[1]), as: UTF8.self)
            let buildID = Array(payload.bytes(lengths[2]))
            let path = String(decoding: payload.bytes(lengths[3]), as: UTF8.self)
            plugins.append(Plugin(id: id, version: version, buildID: buildID, path: path))
        }
        guard plugins.count == count, payload.offset == size else {
            throw .malformed(record: index, reason: "plugin list does not hold the \(count) entries it counts")
        }
        return plugins
    }

    private static func check(_ field: String, _ value: Int, limit: Int) throws(RawReportError) {
        if value > limit { throw .malformed(count: field, value: value, limit: limit) }
    }

    private static func parseModules(
        _ reader: inout ByteReader, count: Int, sectionEnd: Int
    ) throws(RawReportError) -> [Module] {
        let fixedLength = Int(AXIOM_CRASH_MODULE_RECORD_FIXED_LENGTH)
        var modules: [Module] = []
        modules.reserveCapacity(count)
        for index in 0..<count {
            guard reader.offset + fixedLength <= sectionEnd else {
                throw .malformed(module: index, reason: "record header runs past the module section")
            }
            let bias = reader.u64()
            let base = reader.u64()
            let endOfText = reader.u64()
            let buildIDLength = Int(reader.u16())
            let pathLength = Int(reader.u16())
            guard reader.offset + buildIDLength + pathLength <= sectionEnd else {
                throw .malformed(module: index, reason: "build-id or path runs past the module section")
            }
            let buildID = Array(reader.bytes(buildIDLength))
            let path = String(decoding: reader.bytes(pathLength), as: UTF8.self)
            modules.append(Module(path: path, bias: bias, base: base, endOfText: endOfText, buildID: buildID))
        }
        guard reader.offset == sectionEnd else {
            throw .malformed(
                module: count, reason: "\(sectionEnd - reader.offset) bytes left after the last record")
        }
        return modules
    }

    static func architectureName(_ code: UInt16) -> String {
        switch Int32(code) {
        case AXIOM_CRASH_ARCH_X86_64: return "x86_64"
        case AXIOM_CRASH_ARCH_AARCH64: return "aarch64"
        default: return "elf-machine-\(code)"
        }
    }

    static func registerNames(architecture code: UInt16) -> [String] {
        if Int32(code) == AXIOM_CRASH_ARCH_AARCH64 {
            return (0...28).map { "x\($0)" } + ["fp", "lr", "sp", "pc"]
        }
        guard Int32(code) == AXIOM_CRASH_ARCH_X86_64 else { return [] }
        return [
            "rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi",
            "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rflags",
        ]
    }

    static func readFile(_ path: String) throws(RawReportError) -> [UInt8] {
        do {
            return try readWholeFile(path, limit: sizeLimit)
        } catch {
            switch error {
            case .unreadable(let errno): throw .unreadable(path: path, errno: errno)
            case .tooLarge(let size): throw .tooLarge(size: size, limit: sizeLimit)
            }
        }
    }
}

/// Little-endian reads at a moving offset. Callers check bounds before reading.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8> {
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u16() -> UInt16 { UInt16(truncatingIfNeeded: integer(2)) }
    mutating func u32() -> UInt32 { UInt32(truncatingIfNeeded: integer(4)) }
    mutating func u64() -> UInt64 { integer(8) }
    mutating func i32() -> Int32 { Int32(bitPattern: u32()) }
    mutating func i64() -> Int64 { Int64(bitPattern: u64()) }

    private mutating func integer(_ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<width {
            value |= UInt64(bytes[offset + index]) << (8 * index)
        }
        offset += width
        return value
    }
}
