import AxiomSymbolication

/// The raw report reader and the report's renderers on any bytes, for the fuzz target (`Tests/Fuzz/RawCrashReport`):
/// not part of the API. The raw format is the crash handler's own; the promised format is the JSON report.
@_spi(Fuzzing) public enum RawCrashReportFuzzing {
    /// Reads `bytes` as a raw report; when they are one, points its modules at files that do not exist, symbolicates
    /// it and renders it as JSON and text. A report that cannot be read throws; no input traps.
    ///
    /// - Throws: ``RawReportError`` when the bytes are not a raw report.
    @_spi(Fuzzing) public static func exercise(_ bytes: [UInt8], symbolicator: Symbolicator) throws(RawReportError) {
        var report = try RawCrashReport(bytes: bytes)
        for index in report.modules.indices {
            _ = report.modules[index].name
            _ = report.modules[index].buildIDHex
            report.modules[index].path = "/nonexistent/axiom-fuzz/\(index)"
        }
        for frame in report.frames { _ = report.module(containing: frame) }
        let symbolicated = SymbolicatedCrashReport(raw: report, symbolicator: symbolicator, platform: "fuzz")
        precondition(symbolicated.frames.count >= report.frames.count, "frames lost")
        _ = symbolicated.json
        _ = symbolicated.text
        _ = symbolicated.crashSite
        _ = symbolicated.timestamp
    }
}
