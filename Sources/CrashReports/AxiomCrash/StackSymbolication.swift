import AxiomCore
import AxiomSymbolication

#if canImport(Glibc)
import Glibc
#endif

extension CapturedStack {
    /// The stack's frames, symbolicated: each address maps to its module in this process and then to its
    /// function, file and line (an address in inlined code gives several frames, innermost callee first).
    ///
    /// Only meaningful in the process that captured the stack, while its modules are still loaded. Every
    /// address is a return address, so 1 is subtracted before the lookup. An address outside any module, or
    /// one its module has no symbols for, gives one frame with only its address.
    package func symbolicated(with symbolicator: Symbolicator) -> [SymbolicatedCrashReport.Frame] {
        var frames: [SymbolicatedCrashReport.Frame] = []
        frames.reserveCapacity(addresses.count)
        for (index, address) in addresses.enumerated() {
            var frame = SymbolicatedCrashReport.Frame(
                kind: .returnAddress, index: index, address: UInt64(address), isInlined: false)
            guard let module = LoadedModule.containing(address: address) else {
                frames.append(frame)
                continue
            }
            frame.image = String(module.path.split(separator: "/").last ?? "")
            guard
                let symbolicated = try? symbolicator.symbolicate(
                    pc: UInt64(address), loadBias: module.loadBias, modulePath: module.path, isReturnAddress: true)
            else {
                frames.append(frame)
                continue
            }
            frames += frame.expanded(by: symbolicated)
        }
        return frames
    }
}

extension SymbolicatedCrashReport.Frame {
    /// One line for logs: `[inlined] function + offset at file:line:column in image`, or the address when the
    /// function is unknown.
    public var summary: String {
        var text = isInlined ? "[inlined] " : ""
        text += description ?? hex(address)
        if let file {
            text += " at \(file)"
            if let line { text += ":\(line)" }
            if let column { text += ":\(column)" }
        }
        if let image { text += " in \(image)" }
        return text
    }
}

extension SymbolicatedCrashReport {
    /// Where the application crashed: the innermost frame of the main executable that has a source file (a crash
    /// inside the runtime or libc is shown at the application code that called it), else the innermost frame
    /// with a known function, else nil.
    public var crashSite: Frame? {
        if let executable = raw.modules.first?.name,
            // The executable's first frame with a real source line: a release build reports a trap as an
            // inlined "Swift runtime failure" frame at `<compiler-generated>`, which is not where the app failed.
            let own = frames.first(where: {
                $0.image == executable && ($0.line ?? 0) > 0
                    && $0.file.map { !$0.hasSuffix("<compiler-generated>") } == true
            })
        {
            return own
        }
        return frames.first { $0.function != nil }
    }

    /// When the crash happened, in ISO 8601 UTC with microseconds, as the JSON report's `timestamp` has it.
    public var timestamp: String { Self.iso8601(raw.timestamp) }
}

extension SymbolicatedCrashReport {
    /// The signal's name (`SIGSEGV`), or `signal N` for one the reporter does not catch.
    public var signalName: String { raw.signalName }

    /// The trace id (32 hex digits) of the span the crashed task had announced, if any: the request that crashed.
    public var traceID: String? { raw.activeTrace?.traceIDHex }
}

extension RawCrashReport {
    /// The signal's name (`SIGSEGV`), or `signal N` for one the reporter does not catch.
    package var signalName: String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGABRT: "SIGABRT"
        case SIGTRAP: "SIGTRAP"
        default: "signal \(signal)"
        }
    }
}
