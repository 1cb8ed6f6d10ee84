import AxiomSymbolication
import CAxiomSymbolicationFixtures
import Foundation
import Testing

/// The library side of finding debug info by build-id; the whole journey (strip, crash, each place a debug file can
/// be) is in AxiomCrashTests' StrippedBinaryTests.
@Suite("Debug info found by build-id")
struct DebugInfoSearchTests {
    static var testExecutable: String {
        LoadedModule.containing(address: axiom_fixture_return_address())!.path
    }

    @Test("A module whose file carries DWARF and the recorded build-id is read from that file")
    func ownFile() throws {
        let path = Self.testExecutable
        let buildID = try #require(elfBuildID(path: path))
        let info = try Symbolicator().debugInfo(modulePath: path, buildID: buildID)
        #expect(info.source == .binary)
        #expect(info.debugFile == path)
        #expect(info.symbolFile == path)
        #expect(info.missingReason == nil)
    }

    @Test("A file with another build-id is never read, and the error says which build-ids differ")
    func otherBuildID() throws {
        let path = Self.testExecutable
        let own = try #require(elfBuildID(path: path))
        let recorded = String(repeating: "ab", count: 20)
        let symbolicator = Symbolicator(search: DebugInfoSearch(debugRoots: [], symbolStores: []))
        let function = try #require(try symbolicator.functionSymbols(modulePath: path).first { $0.size > 0 })
        #expect(throws: SymbolicationError.self) {
            _ = try symbolicator.symbolicate(modulePath: path, buildID: recorded, address: function.address)
        }
        do {
            _ = try symbolicator.debugInfo(modulePath: path, buildID: recorded)
            Issue.record("a file with another build-id was used")
        } catch {
            #expect(error.code == .buildIDMismatch)
            #expect(error.message.hasPrefix("build-id differs: the file has \(own), the report \(recorded)"))
            #expect(error.message.hasSuffix("no debug file with build-id \(recorded) found"))
        }
        // Without a recorded build-id the file is trusted as it is.
        #expect(
            try symbolicator.symbolicate(modulePath: path, buildID: nil, address: function.address).isEmpty == false)
    }

    @Test("A missing module with a build-id lists the places looked at, in order")
    func placesLookedAt() throws {
        let search = DebugInfoSearch(debugRoots: ["/nonexistent/root"], symbolStores: ["/nonexistent/store"])
        do {
            _ = try Symbolicator(search: search).debugInfo(modulePath: "/nonexistent/app", buildID: "0123abcd")
            Issue.record("found debug info for a module that exists nowhere")
        } catch {
            #expect(error.code == .fileNotFound)
            #expect(
                error.message
                    == "no such file; no debug file with build-id 0123abcd found; looked in: "
                    + "/nonexistent/root/.build-id/01/23abcd.debug, /nonexistent/store/.build-id/01/23abcd.debug")
        }
    }

    @Test("A debuginfod server list bounds each query and all of a run's queries, 30 s in all by default")
    func debuginfodBounds() {
        let servers = DebugInfoSearch.Debuginfod(urls: ["http://127.0.0.1:1"])
        #expect(servers.timeoutSeconds == 10)
        #expect(servers.totalTimeoutSeconds == 30)
        let clamped = DebugInfoSearch.Debuginfod(urls: [], timeoutSeconds: 0, totalTimeoutSeconds: -5)
        #expect(clamped.timeoutSeconds == 1)
        #expect(clamped.totalTimeoutSeconds == 1)
    }
}
