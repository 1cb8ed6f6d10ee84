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

    @Test(
        "A prefetch asks debuginfod for a report's modules at once: four slow answers overlap",
        .enabled(if: SlowDebuginfodServer.canRun, "needs python3 on PATH"))
    func debuginfodPrefetchIsConcurrent() throws {
        let server = try SlowDebuginfodServer(delaySeconds: 1)
        defer { server.stop() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-prefetch-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let symbolicator = Symbolicator(
            search: DebugInfoSearch(
                debugRoots: [], debuginfod: .init(urls: [server.url], cachePath: cache, timeoutSeconds: 30)))
        let modules = (1...4).map { (path: "/nonexistent/lib\($0).so", buildID: "deadbeef0\($0)") }
        symbolicator.prefetchDebugInfo(for: modules)
        // Every module was asked for, and the server held each answer back; queries made one after another would
        // never overlap. (libdebuginfod asks again, by itself, after an answer other than 404, such as a connection
        // cut on a loaded machine: each build-id is asked for at least once, not exactly once.)
        let stats = try server.stats()
        let wanted = Set(modules.map { "/buildid/\($0.buildID)/debuginfo" })
        #expect(Set(stats.paths) == wanted, "\(stats)")
        #expect(stats.maxInFlight >= 2, "\(stats)")
        // Opening the modules takes the prefetched answers: nobody asks the server again.
        for module in modules {
            do {
                _ = try symbolicator.debugInfo(modulePath: module.path, buildID: module.buildID)
                Issue.record("found debug info the server does not have")
            } catch {
                #expect(error.message.hasSuffix("debuginfod \(server.url) (not found)"), "\(error.message)")
            }
        }
        #expect(try server.stats().paths == stats.paths)
    }
}

/// A debuginfod server on loopback that answers every request 404, each after `delaySeconds`, and keeps the paths
/// asked for and the most requests it held at once: a line `stats` on its standard input prints them, as JSON, on
/// its output.
final class SlowDebuginfodServer {
    static let script = #"""
        import json, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        delay = float(sys.argv[1])
        lock = threading.Lock()
        stats = {"paths": [], "inFlight": 0, "maxInFlight": 0}
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def answer(self, status, body=b""):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                with lock:
                    stats["paths"].append(self.path)
                    stats["inFlight"] += 1
                    stats["maxInFlight"] = max(stats["maxInFlight"], stats["inFlight"])
                time.sleep(delay)
                with lock: stats["inFlight"] -= 1
                self.answer(404)
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(f"port {server.server_address[1]}", flush=True)
        for line in sys.stdin:
            with lock: print(json.dumps(stats), flush=True)
        """#

    static var canRun: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }

    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let url: String

    init(delaySeconds: Double) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, "\(delaySeconds)"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let text = try Self.readLine(output)
        guard text.hasPrefix("port "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw SlowServerError(text: text)
        }
        url = "http://127.0.0.1:\(port)"
    }

    struct SlowServerError: Error { var text: String }

    struct Stats: CustomStringConvertible {
        /// Each request's path, in the order they came.
        var paths: [String]
        var maxInFlight: Int
        var description: String {
            "\(paths.count) requests (\(paths.joined(separator: ", "))), at most \(maxInFlight) at once"
        }
    }

    private static func readLine(_ output: Pipe) throws -> String {
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    func stats() throws -> Stats {
        try input.fileHandleForWriting.write(contentsOf: Data("stats\n".utf8))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.readLine(output).utf8)) as? [String: Any])
        return Stats(paths: json["paths"] as? [String] ?? [], maxInFlight: json["maxInFlight"] as? Int ?? 0)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
