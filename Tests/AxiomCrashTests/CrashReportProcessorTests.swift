import AxiomCrash
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Crash report processor")
struct CrashReportProcessorTests {
    @Test func processesGoodReportsAndSetsBadOnesAside() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path
        #expect(writeFile(path + "/crash-1.axcrash", RawReportBuilder().bytes()))
        #expect(writeFile(path + "/crash-2.axcrash", Array(RawReportBuilder().bytes().prefix(150))))
        #expect(writeFile(path + "/crash-3.axcrash", []))
        #expect(writeFile(path + "/crash-4.axcrash.tmp", RawReportBuilder().bytes()))

        let outcomes = try CrashReportProcessor(directory: path).processPendingReports()
        #expect(outcomes.count == 3)
        guard case .processed(let processed) = outcomes.first else {
            Issue.record("first report not processed: \(String(describing: outcomes.first))")
            return
        }
        #expect(processed.rawPath == path + "/processed/crash-1.axcrash")
        #expect(processed.jsonPath == path + "/processed/crash-1.json")
        #expect(processed.textPath == path + "/processed/crash-1.txt")
        for file in [processed.rawPath, processed.jsonPath, processed.textPath] {
            #expect(access(file, F_OK) == 0, "\(file) missing")
        }
        // The modules of the synthetic report do not exist: frames stay addresses.
        #expect(processed.report.frames.map(\.address) == [0x5555_0000_1234, 0x5555_0000_2000])
        #expect(processed.report.frames.allSatisfy { $0.function == nil })
        #expect(processed.report.frames.first?.image == "app")

        guard case .rejected(let rejectedPath, let reason) = outcomes[1] else {
            Issue.record("truncated report not rejected: \(outcomes[1])")
            return
        }
        #expect(rejectedPath == path + "/rejected/crash-2.axcrash")
        #expect(reason == .truncated(expected: RawReportBuilder().bytes().count, actual: 150))
        #expect(ChildProcess.readText(rejectedPath + ".reason") == reason.description + "\n")
        #expect(readFileBytes(rejectedPath)?.count == 150)  // kept, never deleted
        guard case .rejected(_, let emptyReason) = outcomes[2], emptyReason == .empty() else {
            Issue.record("empty report not rejected as empty: \(outcomes[2])")
            return
        }

        // Nothing is pending any more but the file still being written.
        #expect(try CrashReporter.pendingReports(in: path).isEmpty)
        #expect(access(path + "/crash-4.axcrash.tmp", F_OK) == 0)
        #expect(try CrashReportProcessor(directory: path).processPendingReports().isEmpty)
    }

    @Test func writesTheSwiftBacktracerJSONShape() throws {
        let raw = try RawCrashReport(bytes: RawReportBuilder().bytes())
        let report = SymbolicatedCrashReport(raw: raw, symbolicator: .init(), platform: "Linux (Test)")
        let json = report.json
        #expect(json.hasPrefix(#"{"timestamp": "2023-11-14T22:13:20.000000Z", "kind": "crashReport""#))
        #expect(json.contains(#""description": "Bad pointer dereference", "faultAddress": "0x000000000000dead""#))
        #expect(json.contains(#""platform": "Linux (Test)", "architecture": "x86_64""#))
        #expect(
            json.contains(
                #""threads": [{"name": "worker", "tid": 101, "crashed": true, "registers": {"rip": "0x0000000000000001""#
            ))
        // /usr/bin/app does not exist: the frames keep their module and offset, and say why they have no symbol.
        let missing = "no such file; no debug file with build-id deadbeef found; looked in: "
        #expect(
            json.contains(
                #"{"kind": "programCounter", "address": "0x0000555500001234", "inlined": false, "image": "app", "imageOffset": "0x0000000000001234", "unsymbolicated": "\#(missing)"#
            ))
        #expect(
            json.contains(
                #"{"kind": "returnAddress", "address": "0x0000555500002000", "inlined": false, "image": "app", "imageOffset": "0x0000000000002000", "unsymbolicated": "\#(missing)"#
            ))
        #expect(
            json.contains(
                #"{"name": "app", "buildId": "deadbeef", "path": "/usr/bin/app", "baseAddress": "0x0000555500000000", "endOfText": "0x0000555500010000", "debugInfo": {"missing": "\#(missing)"#
            ))
        #expect(report.text.contains("0x0000555500001234 <unknown> in app +0x1234 (no symbol: \(missing)"))
        #expect(report.text.hasPrefix("*** Program crashed: Bad pointer dereference at 0x000000000000dead ***\n"))
    }
}
