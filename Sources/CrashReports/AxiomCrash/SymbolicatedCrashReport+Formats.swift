#if canImport(Glibc)
import Glibc
#endif

extension SymbolicatedCrashReport {
    /// The report as JSON, in the shape of the Swift runtime backtracer's JSON
    /// (`SWIFT_BACKTRACE=format=json`): `timestamp`, `kind`, `description`,
    /// `faultAddress`, `platform`, `architecture`, `threads`, `images`; addresses are
    /// hexadecimal strings. `description` is the runtime's fatal message when it left one. Every thread is
    /// listed, the crashed one first (with its registers); one that did not answer in time has `answered`
    /// false and no frames. Added: `pid`, `tid`, `signal`, `code`, `fatalMessage`, `omittedThreads`,
    /// `fingerprint` (``CrashFingerprint``: `value`, `version`, `provisional`, `kind` and the `frames` it was
    /// made of), `recentErrors` (the errors the application decided just before, oldest first), `plugins`, `trace`
    /// (`traceId` and `spanId` of the span the crashed task worked for, when it announced one), `axiomVersion`
    /// (the version of Axiom that crashed, absent in reports written before it was recorded); a frame adds
    /// `imageOffset` (its address in the module's file) and, when it has no symbol,
    /// `unsymbolicated` (why); an image adds `debugInfo`: `source` and `file` where its
    /// DWARF came from, or `missing` (why it has none, and where it was looked for).
    public var json: String {
        var json = JSONWriter()
        json.beginObject()
        json.field("timestamp", Self.iso8601(raw.timestamp))
        json.field("kind", "crashReport")
        json.field("description", summary)
        json.field("faultAddress", hex(raw.faultAddress))
        json.field("platform", platform)
        json.field("architecture", raw.architecture)
        if let version = raw.axiomVersion { json.field("axiomVersion", version) }
        json.field("pid", Int(raw.pid))
        json.field("signal", Int(raw.signal))
        json.field("code", Int(raw.code))
        if let message = raw.fatalMessage { json.field("fatalMessage", message) }
        writeFingerprint(to: &json)
        json.key("backtraceTime")
        json.raw(Self.seconds(raw.captureNanoseconds ?? 0))
        json.field("omittedImages", 0)
        json.key("threads")
        json.beginArray()
        json.beginObject()
        json.field("name", raw.threadName)
        json.field("tid", Int(raw.tid))
        json.field("crashed", true)
        json.key("registers")
        json.beginObject()
        for register in raw.registers { json.field(register.name, hex(register.value)) }
        json.endObject()
        json.key("frames")
        json.beginArray()
        for frame in frames { writeFrame(frame, to: &json) }
        if raw.framesTruncated { writeTruncation(to: &json) }
        json.endArray()
        json.endObject()
        for thread in otherThreads {
            json.beginObject()
            json.field("name", thread.name)
            json.field("tid", Int(thread.tid))
            json.field("crashed", false)
            if !thread.answered { json.field("answered", false) }
            if thread.omittedFrames > 0 { json.field("omittedFrames", thread.omittedFrames) }
            json.key("frames")
            json.beginArray()
            for frame in thread.frames { writeFrame(frame, to: &json) }
            if thread.omittedFrames > 0 { writeTruncation(to: &json) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.field("omittedThreads", raw.omittedThreads)
        json.key("recentErrors")
        json.beginArray()
        for error in raw.recentErrors {
            json.beginObject()
            json.field("timestamp", Self.iso8601(error.timestamp))
            json.field("code", error.code)
            json.field("disposition", error.disposition)
            json.field("layer", error.layer)
            json.field("operation", error.operation)
            json.field("attempt", error.attempt)
            json.endObject()
        }
        json.endArray()
        json.key("plugins")
        json.beginArray()
        for plugin in raw.plugins {
            json.beginObject()
            json.field("id", plugin.id)
            json.field("version", plugin.version)
            json.field("buildId", plugin.buildIDHex)
            json.field("path", plugin.path)
            json.endObject()
        }
        json.endArray()
        if let trace = raw.activeTrace {
            json.key("trace")
            json.beginObject()
            json.field("traceId", trace.traceIDHex)
            json.field("spanId", trace.spanIDHex)
            json.endObject()
        }
        json.key("images")
        json.beginArray()
        for module in raw.modules {
            json.beginObject()
            json.field("name", module.name)
            json.field("buildId", module.buildIDHex)
            json.field("path", module.path)
            json.field("baseAddress", hex(module.base))
            json.field("endOfText", hex(module.endOfText))
            if let status = debugInfo[module.path] {
                json.key("debugInfo")
                json.beginObject()
                switch status {
                case .success(let info):
                    if let source = info.source { json.field("source", source.rawValue) }
                    if let file = info.debugFile { json.field("file", file) }
                    if let reason = info.missingReason { json.field("missing", reason) }
                case .failure(let error):
                    json.field("missing", error.message)
                }
                json.endObject()
            }
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.output + "\n"
    }

    /// `"fingerprint": {"value", "version", "provisional", "kind", "frames"}`; each frame `{"module", "function"}`,
    /// or in a provisional fingerprint `{"module", "functionStart"}` or `{"module", "imageOffset"}` (hexadecimal
    /// strings).
    private func writeFingerprint(to json: inout JSONWriter) {
        let fingerprint = self.fingerprint
        json.key("fingerprint")
        json.beginObject()
        json.field("value", fingerprint.value)
        json.field("version", fingerprint.version)
        json.field("provisional", fingerprint.isProvisional)
        json.field("kind", fingerprint.kind)
        json.key("frames")
        json.beginArray()
        for frame in fingerprint.frames {
            json.beginObject()
            json.field("module", frame.module)
            switch frame.identity {
            case .function(let name): json.field("function", name)
            case .functionStart(let offset): json.field("functionStart", "0x" + String(offset, radix: 16))
            case .imageOffset(let offset): json.field("imageOffset", "0x" + String(offset, radix: 16))
            }
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// The frame the Swift backtracer ends a cut stack with.
    private func writeTruncation(to json: inout JSONWriter) {
        json.beginObject()
        json.field("kind", "truncated")
        json.endObject()
    }

    private func writeFrame(_ frame: Frame, to json: inout JSONWriter) {
        json.beginObject()
        json.field("kind", frame.kind.name)
        json.field("address", hex(frame.address))
        json.field("inlined", frame.isInlined)
        // As the Swift backtracer, these are written only when true.
        if frame.isRuntimeFailure { json.field("runtimeFailure", true) }
        if frame.isThunk { json.field("thunk", true) }
        if frame.isSystem { json.field("system", true) }
        if let symbol = frame.symbol { json.field("symbol", symbol) }
        if let offset = frame.offset.flatMap({ Int(exactly: $0) }) { json.field("offset", offset) }
        if let description = frame.description { json.field("description", description) }
        if let image = frame.image { json.field("image", image) }
        if let offset = frame.imageOffset { json.field("imageOffset", hex(offset)) }
        if let reason = frame.unsymbolicatedReason { json.field("unsymbolicated", reason) }
        if let file = frame.file {
            json.key("sourceLocation")
            json.beginObject()
            json.field("file", file)
            if let line = frame.line { json.field("line", line) }
            if let column = frame.column { json.field("column", column) }
            json.endObject()
        }
        json.endObject()
    }

    /// The report as text for people, laid out like the Swift backtracer's crash output.
    public var text: String {
        var lines: [String] = []
        lines.append("*** Program crashed: \(crashDescription) at \(hex(raw.faultAddress)) ***")
        lines.append("")
        if let message = raw.fatalMessage {
            lines += message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.append("")
        }
        lines.append("Platform: \(raw.architecture) \(platform)")
        lines.append("Time: \(Self.iso8601(raw.timestamp))")
        if let version = raw.axiomVersion { lines.append("Axiom: \(version)") }
        lines.append("Process: \(raw.pid), signal \(raw.signal), code \(raw.code)")
        if let trace = raw.activeTrace { lines.append("Trace: \(trace.traceIDHex) span \(trace.spanIDHex)") }
        let fingerprint = self.fingerprint
        let provisional = fingerprint.isProvisional ? ", provisional: no debug info for its frames" : ""
        lines.append("Fingerprint: \(fingerprint.value) (version \(fingerprint.version)\(provisional))")
        lines.append("")
        lines.append("Thread \(raw.tid) \"\(raw.threadName)\" crashed:")
        lines.append("")
        for frame in frames { lines.append(Self.line(for: frame)) }
        if raw.framesTruncated { lines.append("... (deeper frames not captured)") }
        lines.append("")
        lines.append("Registers:")
        lines.append("")
        for register in raw.registers { lines.append("\(register.name.padding(6)) \(hex(register.value))") }
        lines.append("")
        for thread in otherThreads {
            lines.append("Thread \(thread.tid) \"\(thread.name)\":")
            lines.append("")
            if !thread.answered { lines.append("(did not give its stack in time)") }
            for frame in thread.frames { lines.append(Self.line(for: frame)) }
            if thread.omittedFrames > 0 { lines.append("... (\(thread.omittedFrames) deeper frames not captured)") }
            lines.append("")
        }
        if raw.omittedThreads > 0 {
            lines.append("(\(raw.omittedThreads) more threads not captured)")
            lines.append("")
        }
        if !raw.recentErrors.isEmpty {
            lines.append("Recent errors (oldest first):")
            lines.append("")
            for error in raw.recentErrors {
                var line = "\(Self.iso8601(error.timestamp)) \(error.code) \(error.disposition) by \(error.layer)"
                line += " in \(error.operation)"
                if error.attempt > 1 { line += " (attempt \(error.attempt))" }
                lines.append(line)
            }
            lines.append("")
        }
        if !raw.plugins.isEmpty {
            lines.append("Plugins (\(raw.plugins.count)):")
            lines.append("")
            for plugin in raw.plugins {
                let buildID = plugin.buildIDHex.isEmpty ? "<no build ID>" : plugin.buildIDHex
                lines.append("\(plugin.id) \(plugin.version) \(buildID) \(plugin.path)")
            }
            lines.append("")
        }
        let from = raw.modulesFromInstall ? ", as loaded at install" : ""
        lines.append("Images (\(raw.modules.count)\(from)):")
        lines.append("")
        for module in raw.modules {
            let buildID = module.buildIDHex.isEmpty ? "<no build ID>" : module.buildIDHex
            let changed = changedModules.contains(module.path) ? " (file here differs or is absent)" : ""
            lines.append(
                "\(hex(module.base))–\(hex(module.endOfText)) \(buildID) \(module.name) \(module.path)\(changed)")
            switch debugInfo[module.path] {
            case .success(let info):
                if let source = info.source, let file = info.debugFile {
                    lines.append("    debug info: \(source.rawValue) \(file)")
                } else if let reason = info.missingReason {
                    lines.append("    debug info: none: \(reason)")
                }
            case .failure(let error): lines.append("    debug info: none: \(error.message)")
            case nil: break
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One frame as the text form prints it: index, kind, address, function and offset, image, and `at
    /// file:line:column` where the debug info gives one (or the image offset and why there is no symbol).
    package static func line(for frame: Frame) -> String {
        let mark = frame.kind == .returnAddress ? "[ra]" : frame.kind == .asyncResumePoint ? "[async]" : "    "
        var line = "\(frame.index)".padding(3) + mark
        line += frame.isInlined ? " [inlined]" : ""
        line += " \(hex(frame.address)) \(frame.description ?? "<unknown>")"
        if let image = frame.image { line += " in \(image)" }
        if let file = frame.file {
            line += " at \(file)"
            if let number = frame.line { line += ":\(number)" }
            if let column = frame.column { line += ":\(column)" }
        }
        if let reason = frame.unsymbolicatedReason {
            if let offset = frame.imageOffset { line += " +0x" + String(offset, radix: 16) }
            line += " (no symbol: \(reason))"
        }
        return line
    }

    /// Nanoseconds as seconds with a fraction, `0.002514`.
    static func seconds(_ nanoseconds: UInt64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }

    /// `2026-01-02T03:04:05.678901Z`.
    package static func iso8601(_ timestamp: RawCrashReport.Timestamp) -> String {
        var seconds = time_t(timestamp.seconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(Int(parts.tm_year) + 1900, 4) + "-" + digits(Int(parts.tm_mon) + 1, 2) + "-"
            + digits(Int(parts.tm_mday), 2) + "T" + digits(Int(parts.tm_hour), 2) + ":" + digits(Int(parts.tm_min), 2)
            + ":" + digits(Int(parts.tm_sec), 2) + "." + digits(Int(timestamp.nanoseconds / 1000), 6) + "Z"
    }
}

/// `0x` and 16 lowercase hexadecimal digits, as the Swift backtracer writes addresses.
func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
