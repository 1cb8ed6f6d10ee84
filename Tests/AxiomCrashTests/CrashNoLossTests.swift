import AxiomCrash
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The environment of a probe child: this process's, without a Swift backtracer, plus `extra`.
private func probeEnvironment(_ extra: [String] = []) -> [String] {
    ChildProcess.currentEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") } + ["SWIFT_BACKTRACE=enable=no"]
        + extra
}

@Suite("Crash reports are never lost")
struct CrashNoLossTests {
    // MARK: Installing at once

    @Test("250 processes that install at the same moment into one new folder all install")
    func manyProcessesInstallAtOnce() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The folder does not exist yet: each process creates it too.
        let reports = directory.path + "/crashes"
        let gate = directory.path + "/go"
        let environment = probeEnvironment(["AXIOM_PROBE_INSTALL_WHEN=" + gate])
        let children = (0..<250).map { index in
            ChildProcess.spawn(
                ChildProcess.probePath, [reports, "none"], environment: environment, stdoutPath: "/dev/null",
                stderrPath: directory.path + "/stderr-\(index)")
        }
        // Every child is started (or starting) and polls for the gate: they install within the same millisecond
        // or so.
        #expect(writeFile(gate, []))
        var failures: [String] = []
        for (index, pid) in children.enumerated() {
            let termination = ChildProcess.wait(pid)
            if termination != Termination(waitStatus: 0) {
                failures.append(
                    "\(index): \(termination): \(ChildProcess.readText(directory.path + "/stderr-\(index)"))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 250 did not install: \(failures.prefix(5))")
        // Each cleaned up its own writability probe.
        #expect(directoryEntries(reports).map(\.name) == [])
    }

    @Test("a crash whose report name another process's report already has is written under the next name")
    func aTakenReportNameIsNotOverwritten() throws {
        // Processes of two pid namespaces (two containers sharing the folder) can pick the same name. Here the
        // names the probe's main thread would take for its first report, in this second and the next few, are
        // taken before it installs and crashes.
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let gate = directory.path + ".go"
        defer { unlink(gate) }
        let pid = ChildProcess.spawn(
            ChildProcess.probePath, [directory.path, "null-write"],
            environment: probeEnvironment(["AXIOM_PROBE_INSTALL_WHEN=" + gate]), stdoutPath: "/dev/null",
            stderrPath: directory.path + ".stderr")
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let taken = (0..<30).map { "crash-\(Int(now.tv_sec) + $0)-\(pid)-\(pid)-0.axcrash" }
        for name in taken { #expect(writeFile(directory.path + "/" + name, Array("another's".utf8))) }
        #expect(writeFile(gate, []))
        let termination = ChildProcess.wait(pid)
        let stderr = ChildProcess.readText(directory.path + ".stderr")
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        #expect(!stderr.contains("axiom: crash report"), "\(stderr)")

        for name in taken { #expect(ChildProcess.readText(directory.path + "/" + name) == "another's") }
        let written = try CrashReporter.pendingReports(in: directory.path).filter {
            !taken.contains(String($0.split(separator: "/").last!))
        }
        #expect(written.count == 1)
        #expect(written.first?.hasSuffix("-\(pid)-\(pid)-1.axcrash") == true, "\(written)")
        #expect(try RawCrashReport(contentsOf: try #require(written.first)).pid == pid)
    }

    // MARK: A crash whose report cannot be written says so

    @Test("a crash into a folder removed after install says on standard error that its report was not written")
    func aCrashWhoseFolderIsGoneSaysSo() throws {
        // Root ignores a folder's write permission: a removed folder fails for everyone (openat in a directory
        // that was unlinked: ENOENT).
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let reports = directory.path + "/crashes"
        let (termination, stderr) = ChildProcess.runProbe(
            directory: reports, kind: "null-write", stderrPath: directory.path + "/stderr",
            environment: ["AXIOM_PROBE_REMOVE_DIRECTORY=1"])
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        let line = try #require(stderr.split(separator: "\n").first { $0.hasPrefix("axiom: crash report ") })
        #expect(line.hasPrefix("axiom: crash report could not be created: \(reports)/crash-"), "\(line)")
        #expect(line.hasSuffix(".axcrash.tmp (errno \(ENOENT))"), "\(line)")
    }

    @Test("a crash whose report is cut short says so on standard error, and leaves the partial .tmp file")
    func aReportCutShortSaysSo() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Every file the probe writes is capped at 4 KiB after install, as a full disk would stop it.
        let (termination, stderr) = ChildProcess.runProbe(
            directory: directory.path, kind: "null-write", environment: ["AXIOM_PROBE_FILE_SIZE_LIMIT=4096"])
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        let line = try #require(stderr.split(separator: "\n").first { $0.hasPrefix("axiom: crash report ") })
        #expect(line.hasPrefix("axiom: crash report was cut short: \(directory.path)/crash-"), "\(line)")
        #expect(line.hasSuffix(".axcrash.tmp (errno \(EFBIG))"), "\(line)")
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
        let temporary = try #require(directoryEntries(directory.path).first { $0.name.hasSuffix(".axcrash.tmp") })
        #expect(readFileBytes(directory.path + "/" + temporary.name)?.count == 4096)
    }
}
