import Axiom
import AxiomCrash
import Foundation
import MetricsTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The environment of a probe child: this process's, without a Swift backtracer, plus `extra`.
private func probeEnvironment(_ extra: [String] = []) -> [String] {
    ChildProcess.currentEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") } + ["SWIFT_BACKTRACE=enable=no"]
        + extra
}

/// `count` complete raw reports in `directory`, named as the handler names them (a writer that is gone).
private func writeReports(_ count: Int, in directory: String) {
    for index in 0..<count {
        precondition(
            writeFile(directory + "/crash-1700000000-999999-\(index + 1)-0.axcrash", RawReportBuilder().bytes()))
    }
}

/// The report ids of the lines `<reportID> <level or "exported"> …` in `path`, in order (lines without one
/// left out).
private func loggedReportIDs(_ path: String) -> [String] {
    ChildProcess.readText(path).split(separator: "\n").compactMap { line in
        let id = line.split(separator: " ").first.map(String.init)
        return id == "-" ? nil : id
    }
}

/// A pid that no process has: a child that has exited and been waited for. (A pid is reused only after the
/// kernel has gone round all the others.)
func deadPID() -> pid_t {
    let pid = ChildProcess.spawn("/bin/true", [], stdoutPath: "/dev/null")
    _ = ChildProcess.wait(pid)
    return pid
}

@Suite("Crash reports are never lost")
struct CrashNoLossTests {
    // MARK: Installing at once

    /// Each child under a sanitizer maps the sanitizer's shadow memory first, which makes 250 of them take seconds
    /// of the machine: there 64 race for the folder.
    @Test("250 processes (64 under a sanitizer) that install at the same moment into one new folder all install")
    func manyProcessesInstallAtOnce() throws {
        let count = Sanitizers.any ? 64 : 250
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The folder does not exist yet: each process creates it too.
        let reports = directory.path + "/crashes"
        let gate = directory.path + "/go"
        let environment = probeEnvironment(["AXIOM_PROBE_INSTALL_WHEN=" + gate])
        let children = (0..<count).map { index in
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
        #expect(failures.isEmpty, "\(failures.count) of \(count) did not install: \(failures.prefix(5))")
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

    @Test("two axiom crash-reports run at once on one folder process every report, each file whole")
    func twoProcessorsOfOneFolderAtOnce() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        writeReports(40, in: directory.path)
        let runs = (0..<2).map { index in
            ChildProcess.spawn(
                ChildProcess.axiomPath, ["crash-reports", "--dir", directory.path, "--json"],
                stdoutPath: directory.path + ".stdout-\(index)", stderrPath: directory.path + ".stderr-\(index)")
        }
        var processed: Set<String> = []
        for (index, pid) in runs.enumerated() {
            let termination = ChildProcess.wait(pid)
            let stdout = ChildProcess.readText(directory.path + ".stdout-\(index)")
            defer {
                unlink(directory.path + ".stdout-\(index)")
                unlink(directory.path + ".stderr-\(index)")
            }
            // Neither says a report failed or was left pending: one taken by the other is the other's.
            #expect(termination.exitCode == 0, "\(termination) \(stdout)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
            #expect((object["failed"] as? [Any])?.isEmpty == true, "\(stdout)")
            for entry in object["processed"] as? [[String: Any]] ?? [] {
                processed.insert(entry["rawReport"] as? String ?? "")
            }
        }
        #expect(processed.count == 40)
        let files = directoryEntries(directory.path + "/processed").map(\.name)
        #expect(files.filter { $0.hasSuffix(".axcrash") }.count == 40)
        #expect(files.filter { $0.hasSuffix(".json") }.count == 40)
        #expect(files.filter { $0.hasSuffix(".txt") }.count == 40)
        #expect(files.count == 120, "\(files.filter { $0.hasSuffix(".tmp") })")
        for name in files where name.hasSuffix(".json") {
            let json = ChildProcess.readText(directory.path + "/processed/" + name)
            #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil, "\(name) is not whole")
        }
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
    }

    // MARK: Logged and exported at least once, with one id

    @Test("a logger killed after writing an entry and before marking its report done logs it again, same id")
    func loggerKilledMidwayLogsEveryReportAgainWithTheSameID() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path + ".log"
        defer { unlink(log) }
        writeReports(6, in: directory.path)

        // The third entry's process is killed right after writing it: its report is still pending.
        let killed = ChildProcess.run(
            ChildProcess.probePath, [directory.path, "log-pending"],
            environment: probeEnvironment(["AXIOM_PROBE_LOG_FILE=" + log, "AXIOM_PROBE_KILL_AFTER=3"]),
            stdoutPath: "/dev/null")
        #expect(killed.signal == SIGKILL)
        let first = loggedReportIDs(log)
        #expect(first.count == 3)
        #expect(try CrashReporter.pendingReports(in: directory.path).count == 4)

        let finished = ChildProcess.run(
            ChildProcess.probePath, [directory.path, "log-pending"],
            environment: probeEnvironment(["AXIOM_PROBE_LOG_FILE=" + log]), stdoutPath: "/dev/null")
        #expect(finished == Termination(waitStatus: 0))
        let all = loggedReportIDs(log)
        // Every report once, and the interrupted one twice with the same id.
        #expect(Set(all).count == 6, "\(all)")
        #expect(all.count == 7, "\(all)")
        #expect(all.filter { $0 == first[2] }.count == 2)
        for index in 1...6 {
            #expect(all.contains { $0.hasPrefix("crash-1700000000-999999-\(index)-0-") }, "\(all)")
        }
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
    }

    @Test(
        "a logger, or an exporter, killed at random points and restarted hands every report on at least once",
        arguments: ["log-pending", "export-pending"])
    func killedAtRandomPointsThenRestarted(mode: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path + ".log"
        defer { unlink(log) }
        let reportCount = 8
        writeReports(reportCount, in: directory.path)

        // Each run is killed at a random point after a random number of its entries (0 to 2) were written: while
        // it writes one, sleeps after one (its report not yet marked done), or marks one done. Waiting for the
        // entries rather than for a time keeps the kill inside the run however loaded the machine is.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let before = loggedReportIDs(log).count
            let pid = ChildProcess.spawn(
                ChildProcess.probePath, [directory.path, mode],
                environment: probeEnvironment(["AXIOM_PROBE_LOG_FILE=" + log, "AXIOM_PROBE_DELIVERY_DELAY_US=5000"]),
                stdoutPath: "/dev/null")
            let entries = Int.random(in: 0...2, using: &generator)
            var status: Int32 = 0
            var exited = false
            // At most 60 s: a run that writes nothing in that time has failed anyway (checked below).
            var waited = 0
            while !exited && waited < 60_000 && loggedReportIDs(log).count < before + entries {
                exited = waitpid(pid, &status, WNOHANG) == pid
                usleep(1000)
                waited += 1
            }
            if !exited {
                usleep(UInt32.random(in: 0...8000, using: &generator))
                kill(pid, SIGKILL)
                _ = ChildProcess.wait(pid)
            }
        }
        let finished = ChildProcess.run(
            ChildProcess.probePath, [directory.path, mode],
            environment: probeEnvironment(["AXIOM_PROBE_LOG_FILE=" + log]), stdoutPath: "/dev/null")
        #expect(finished == Termination(waitStatus: 0))

        let all = loggedReportIDs(log)
        // One id per report, whatever run handed it on: a repeat has the id of its first time.
        #expect(Set(all).count == reportCount, "\(all)")
        for index in 1...reportCount {
            #expect(all.contains { $0.hasPrefix("crash-1700000000-999999-\(index)-0-") }, "\(all)")
        }
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
        #expect(
            directoryEntries(directory.path + "/processed").filter { $0.name.hasSuffix(".axcrash") }.count
                == reportCount)
    }

    @Test("a report whose forms cannot be written is logged once as left pending, and is not marked done")
    func aReportThatCannotBeWrittenStaysPending() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        writeReports(1, in: directory.path)
        // processed/ is a file: its JSON cannot be written (for root too).
        #expect(writeFile(directory.path + "/processed", []))
        let (logger, handler) = memoryLogger()
        let metrics = TestMetrics()
        let outcomes = try CrashReportLogger(logger: logger, metricsFactory: metrics)
            .processPendingReports(with: CrashReportProcessor(directory: directory.path))
        guard outcomes.count == 1, case .failed = outcomes[0] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(handler.entries.map(\.level) == [.warning], "\(handler.entries)")
        let message = handler.entries.first.map { "\($0.message)" } ?? ""
        #expect(message.hasPrefix("crash report left pending: "), "\(message)")
        #expect(metrics.counterTotal(label: CrashReportLogger.counterLabel) == 0)
        #expect(try CrashReporter.pendingReports(in: directory.path).count == 1)
    }

    @Test("a report whose exporter fails stays pending and is handed on again, with the same id, by the next run")
    func aFailedExportLeavesTheReportPending() async throws {
        struct Refused: Error {}
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        writeReports(3, in: directory.path)
        let processor = CrashReportProcessor(directory: directory.path)

        var handed: [String] = []
        let outcomes = try await processor.processPendingReports { pending async throws in
            let id = try #require(pending.reportID)
            handed.append(id)
            if handed.count == 2 { throw Refused() }
        }
        #expect(outcomes.count == 3)
        guard case .failed(let path, let reason) = outcomes[1] else {
            Issue.record("the refused report was marked done: \(outcomes[1])")
            return
        }
        #expect(path == directory.path + "/crash-1700000000-999999-2-0.axcrash")
        #expect(reason.contains("Refused"))
        #expect(try CrashReporter.pendingReports(in: directory.path) == [path])

        var again: [String] = []
        _ = try await processor.processPendingReports { pending async throws in again.append(pending.reportID ?? "") }
        #expect(again == [handed[1]])
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
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

    /// Root writes into a read-only folder: as root, the probe runs as `nobody` through setpriv (util-linux), which
    /// needs every folder above the probe, and the probe, to be open to others.
    static let readOnlyFolderApplies: Bool = {
        if geteuid() != 0 { return true }
        guard access("/usr/bin/setpriv", X_OK) == 0 else { return false }
        var path = ""
        for component in ChildProcess.probePath.split(separator: "/") {
            path += "/" + component
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        }
        return true
    }()

    @Test(
        "a crash into a folder made read-only after install says on standard error that its report was not written",
        .enabled(
            if: readOnlyFolderApplies,
            "root writes into a read-only folder, and the probe cannot run as nobody here (setpriv, open folders)"))
    func aCrashIntoAReadOnlyFolderSaysSo() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let reports = directory.path + "/crashes"
        var command = [ChildProcess.probePath, reports, "null-write"]
        if geteuid() == 0 {
            chmod(directory.path, 0o777)
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        let termination = ChildProcess.run(
            command[0], Array(command.dropFirst()),
            environment: probeEnvironment(["AXIOM_PROBE_READ_ONLY_DIRECTORY=1"]),
            stdoutPath: "/dev/null", stderrPath: directory.path + "/stderr")
        let stderr = ChildProcess.readText(directory.path + "/stderr")
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        let line = try #require(stderr.split(separator: "\n").first { $0.hasPrefix("axiom: crash report ") })
        #expect(line.hasPrefix("axiom: crash report could not be created: \(reports)/crash-"), "\(line)")
        #expect(line.hasSuffix(".axcrash.tmp (errno \(EACCES))"), "\(line)")
    }

    // MARK: A report cut short is reported

    @Test("a crash whose report is cut short says so, and the processor, the logger and the metric report it once")
    func aReportCutShortIsReportedAsIncomplete() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Every file the probe writes is capped at 1 KiB after install, as a full disk would stop it: well inside a
        // whole report (about 2.5 KiB for the probe: its header, one thread's stack, the modules it maps).
        let limit = 1024
        let (termination, stderr) = ChildProcess.runProbe(
            directory: directory.path, kind: "null-write", environment: ["AXIOM_PROBE_FILE_SIZE_LIMIT=\(limit)"])
        #expect(termination.signal == SIGSEGV, "\(termination) \(stderr)")
        let line = try #require(stderr.split(separator: "\n").first { $0.hasPrefix("axiom: crash report ") })
        #expect(line.hasPrefix("axiom: crash report was cut short: \(directory.path)/crash-"), "\(line)")
        #expect(line.hasSuffix(".axcrash.tmp (errno \(EFBIG))"), "\(line)")
        #expect(try CrashReporter.pendingReports(in: directory.path).isEmpty)
        let temporary = try #require(directoryEntries(directory.path).first { $0.name.hasSuffix(".axcrash.tmp") })
        let bytes = try #require(readFileBytes(directory.path + "/" + temporary.name))
        #expect(bytes.count == limit)

        let (logger, handler) = memoryLogger()
        let metrics = TestMetrics()
        let crashLogger = CrashReportLogger(logger: logger, metricsFactory: metrics)
        let outcomes = try crashLogger.processPendingReports(with: CrashReportProcessor(directory: directory.path))
        guard outcomes.count == 1, case .incomplete(let path, let pid, let reportID) = outcomes[0] else {
            Issue.record("not reported as incomplete: \(outcomes)")
            return
        }
        // Kept, byte for byte, where it says.
        #expect(path == directory.path + "/incomplete/" + temporary.name)
        #expect(readFileBytes(path) == bytes)
        #expect(pid > 0 && temporary.name.contains("-\(pid)-"))
        #expect(reportID.hasPrefix(String(temporary.name.dropLast(".axcrash.tmp".count)) + "-"))

        let entry = try #require(handler.entries.first)
        #expect(handler.entries.count == 1)
        #expect(entry.level == .critical)
        #expect("\(entry.message)".hasPrefix("crash report incomplete: process \(pid) crashed"))
        #expect(entry.metadata["reportID"] == "\(reportID)")
        #expect(entry.metadata["rawReport"] == "\(path)")
        let counter = try metrics.expectCounter(
            CrashReportLogger.counterLabel, [("outcome", "incomplete"), ("signal", "unknown")])
        #expect(counter.totalValue == 1)

        // Reported once: the next run finds nothing.
        #expect(try crashLogger.processPendingReports(with: CrashReportProcessor(directory: directory.path)).isEmpty)
        #expect(handler.entries.count == 1)
        #expect(counter.totalValue == 1)
    }

    @Test("axiom crash-reports lists a report cut short as incomplete, in text and JSON, and exits 1")
    func theCommandReportsAnIncompleteReport() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let output = TemporaryDirectory()
        defer { output.remove() }
        // As a crash cut short leaves it: a header's worth of a report, named by a writer that is gone.
        let pid = deadPID()
        let name = "crash-1700000000-\(pid)-\(pid)-0.axcrash.tmp"
        #expect(writeFile(directory.path + "/" + name, Array(RawReportBuilder().bytes().prefix(100))))
        let twin = TemporaryDirectory()
        defer { twin.remove() }
        #expect(writeFile(twin.path + "/" + name, Array(RawReportBuilder().bytes().prefix(100))))

        let text = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path], outputIn: output.path)
        #expect(text.termination.exitCode == 1, "\(text.termination) \(text.stderr)")
        #expect(
            text.stdout
                == "incomplete \(directory.path)/incomplete/\(name): process \(pid) crashed at "
                + "2023-11-14T22:13:20.000000Z but its report was cut short (its writer died before finishing it: "
                + "a full disk?); the partial file is kept\n")
        #expect(access(directory.path + "/incomplete/" + name, F_OK) == 0)
        // Reported once: nothing is pending now.
        let again = ChildProcess.runAxiom(["crash-reports", "--dir", directory.path], outputIn: output.path)
        #expect(again.termination.exitCode == 0)
        #expect(again.stdout == "no pending crash reports in \(directory.path)\n")

        let json = ChildProcess.runAxiom(["crash-reports", "--dir", twin.path, "--json"], outputIn: output.path)
        #expect(json.termination.exitCode == 1, "\(json.termination) \(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let incomplete = try #require(object["incomplete"] as? [[String: Any]])
        #expect(incomplete.count == 1)
        #expect(incomplete.first?["rawReport"] as? String == twin.path + "/incomplete/" + name)
        #expect(incomplete.first?["pid"] as? Int == Int(pid))
        #expect(incomplete.first?["timestamp"] as? String == "2023-11-14T22:13:20.000000Z")
        let reportID = try #require(incomplete.first?["reportID"] as? String)
        #expect(reportID.hasPrefix("crash-1700000000-\(pid)-\(pid)-0-"))
        #expect((object["processed"] as? [Any])?.isEmpty == true)
    }

    @Test("a .tmp report of a writer that died and was not yet waited for (a zombie) is incomplete")
    func aReportOfAZombieWriterIsIncomplete() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pid = ChildProcess.spawn("/bin/true", [], stdoutPath: "/dev/null")
        // Not waited for until the end: once it has exited, the pid is a zombie's.
        defer { _ = ChildProcess.wait(pid) }
        var state = ""
        for _ in 0..<10_000 where state != "Z" {
            let stat = ChildProcess.readText("/proc/\(pid)/stat")
            state = stat.split(separator: ")").last.flatMap { $0.split(separator: " ").first }.map(String.init) ?? ""
            if state != "Z" { usleep(1000) }
        }
        #expect(state == "Z")
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let name = "crash-\(now.tv_sec)-\(pid)-\(pid)-0.axcrash.tmp"
        #expect(writeFile(directory.path + "/" + name, Array(RawReportBuilder().bytes().prefix(100))))

        let outcomes = try CrashReportProcessor(directory: directory.path).processPendingReports()
        guard outcomes.count == 1, case .incomplete(let path, let writer, _) = outcomes[0] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(path == directory.path + "/incomplete/" + name)
        #expect(writer == pid)
    }

    @Test("a .tmp report whose writer is still running is left alone; one whose pid was reused is not")
    func aReportBeingWrittenIsLeftAlone() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pid = getpid()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // This process is alive and started before "now": it may be writing this one.
        let writing = "crash-\(now.tv_sec)-\(pid)-\(pid)-0.axcrash.tmp"
        #expect(writeFile(directory.path + "/" + writing, Array(RawReportBuilder().bytes().prefix(100))))
        // The same pid, but a crash long before this process started: another process had the pid then.
        let reused = "crash-1000000000-\(pid)-\(pid)-0.axcrash.tmp"
        #expect(writeFile(directory.path + "/" + reused, Array(RawReportBuilder().bytes().prefix(100))))
        // A name that does not say whose it is.
        #expect(writeFile(directory.path + "/crash-x.axcrash.tmp", []))

        let outcomes = try CrashReportProcessor(directory: directory.path).processPendingReports()
        #expect(outcomes.count == 1)
        guard case .incomplete(let path, _, _) = outcomes.first else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(path == directory.path + "/incomplete/" + reused)
        #expect(access(directory.path + "/" + writing, F_OK) == 0)
        #expect(access(directory.path + "/crash-x.axcrash.tmp", F_OK) == 0)
    }
}
