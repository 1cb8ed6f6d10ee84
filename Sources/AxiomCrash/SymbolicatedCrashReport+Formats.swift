#if canImport(Glibc)
import Glibc
#endif

extension SymbolicatedCrashReport {
    /// The report as JSON, in the shape of the Swift runtime backtracer's JSON
    /// (`SWIFT_BACKTRACE=format=json`): `timestamp`, `kind`, `description`,
    /// `faultAddress`, `platform`, `architecture`, `threads`, `images`; addresses are
    /// hexadecimal strings. `pid`, `tid`, `signal` and `code` are added; a frame adds
    /// `imageOffset` (its address in the module's file) and, when it has no symbol,
    /// `unsymbolicated` (why); an image adds `debugInfo`: `source` and `file` where its
    /// DWARF came from, or `missing` (why it has none, and where it was looked for).
    public var json: String {
        var json = JSONWriter()
        json.beginObject()
        json.field("timestamp", Self.iso8601(raw.timestamp))
        json.field("kind", "crashReport")
        json.field("description", crashDescription)
        json.field("faultAddress", hex(raw.faultAddress))
        json.field("platform", platform)
        json.field("architecture", raw.architecture)
        json.field("pid", Int(raw.pid))
        json.field("signal", Int(raw.signal))
        json.field("code", Int(raw.code))
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
        json.endArray()
        json.endObject()
        json.endArray()
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

    private func writeFrame(_ frame: Frame, to json: inout JSONWriter) {
        json.beginObject()
        json.field("kind", frame.kind.rawValue)
        json.field("address", hex(frame.address))
        json.field("inlined", frame.isInlined)
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
        lines.append("Platform: \(raw.architecture) \(platform)")
        lines.append("Time: \(Self.iso8601(raw.timestamp))")
        lines.append("Process: \(raw.pid), signal \(raw.signal), code \(raw.code)")
        lines.append("")
        lines.append("Thread \(raw.tid) \"\(raw.threadName)\" crashed:")
        lines.append("")
        for frame in frames {
            var line = "\(frame.index)".padding(3) + (frame.kind == .returnAddress ? "[ra]" : "    ")
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
            lines.append(line)
        }
        if raw.framesTruncated { lines.append("... (deeper frames not captured)") }
        lines.append("")
        lines.append("Registers:")
        lines.append("")
        for register in raw.registers { lines.append("\(register.name.padding(6)) \(hex(register.value))") }
        lines.append("")
        lines.append("Images (\(raw.modules.count)):")
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

    /// `2026-01-02T03:04:05.678901Z`.
    static func iso8601(_ timestamp: RawCrashReport.Timestamp) -> String {
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
