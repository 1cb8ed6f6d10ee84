import AxiomSchemaCheck
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fleet's crash folders as `axiom crash-reports group` reads them: 20 hosts, 3 builds, 1,000 processed JSON
/// reports of 4 bugs, a file that is not JSON, a report from before fingerprints and a pending raw report.
struct Fleet {
    /// One bug: its fingerprint, kind, innermost frame and how many reports it has.
    struct Bug {
        var fingerprint: String
        var kind: String
        var function: String
        var count: Int
    }

    static let bugs = [
        Bug(fingerprint: "0123456789abcdef", kind: "fatalError", function: "Shop.checkout(_:)", count: 500),
        Bug(fingerprint: "fedcba9876543210", kind: "SIGSEGV", function: "Cart.total()", count: 300),
        Bug(fingerprint: "00000000deadbeef", kind: "fatalError", function: "closure in Cart.apply(_:)", count: 150),
        Bug(fingerprint: "1111222233334444", kind: "SIGABRT", function: "Inventory.load()", count: 50),
    ]
    static let builds = ["aaaa000000000000000000000000000000000001", "bbbb2", "cccc3"]
    static let hosts = (1...20).map { $0 < 10 ? "host-0\($0)" : "host-\($0)" }

    let root: TemporaryDirectory
    /// Every report written: its bug, host, build and timestamp.
    private(set) var reports: [(bug: Int, host: String, build: String, timestamp: String, path: String)] = []

    var directories: [String] { Self.hosts.map { root.path + "/" + $0 } }

    init() throws {
        root = TemporaryDirectory()
        for host in Self.hosts { try #require(mkdir(root.path + "/" + host, 0o755) == 0) }
        for host in Self.hosts { try #require(mkdir(root.path + "/" + host + "/processed", 0o755) == 0) }
        var index = 0
        for (bugIndex, bug) in Self.bugs.enumerated() {
            for _ in 0..<bug.count {
                let host = Self.hosts[index % Self.hosts.count]
                let build = Self.builds[index % Self.builds.count]
                // Spread over November: day 1 to 30, hour by index.
                let day = 1 + (index * 7) % 30
                let timestamp =
                    "2026-11-\(day < 10 ? "0" : "")\(day)T\(index % 24 < 10 ? "0" : "")\(index % 24):00:00.000000Z"
                let path = root.path + "/" + host + "/processed/crash-\(index).json"
                try Self.write(
                    Self.report(bug: bug, build: build, timestamp: timestamp), to: path)
                reports.append((bugIndex, host, build, timestamp, path))
                index += 1
            }
        }
        try Self.write("{ not json", to: root.path + "/host-01/processed/broken.json")
        try Self.write(
            #"{"kind": "crashReport", "timestamp": "2026-11-02T00:00:00.000000Z", "description": "old", "images": []}"#,
            to: root.path + "/host-02/processed/old.json")
        try Self.write("raw", to: root.path + "/host-03/crash-1-2-3-4.axcrash")
    }

    /// A processed report's JSON, with what grouping reads and a thread it does not.
    static func report(bug: Bug, build: String, timestamp: String) -> String {
        """
        {"timestamp": "\(timestamp)", "kind": "crashReport", "description": "\(bug.kind) in \(bug.function)\\nmore",
         "fingerprint": {"value": "\(bug.fingerprint)", "version": 1, "provisional": false, "kind": "\(bug.kind)",
          "frames": [{"module": "Shop", "function": "\(bug.function)"}, {"module": "Shop", "function": "main"}]},
         "threads": [{"id": 1, "crashed": true, "frames": [{"kind": "programCounter", "address": "0x1000"}]}],
         "images": [{"name": "Shop", "buildId": "\(build)", "path": "/srv/shop/Shop"}]}
        """
    }

    static func write(_ text: String, to path: String) throws {
        try #require(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }
}

@Suite("axiom crash-reports group")
struct CrashGroupsTests {
    /// Runs `axiom crash-reports group arguments…`.
    private func group(_ arguments: [String], in fleet: Fleet) -> CommandResult {
        ChildProcess.runAxiom(["crash-reports", "group"] + arguments, outputIn: fleet.root.path)
    }

    @Test("1,000 reports from 20 hosts and 3 builds come out as 4 groups with their counts, hosts, builds and times")
    func groupsAFleet() throws {
        let fleet = try Fleet()
        defer { fleet.root.remove() }
        let result = group(["--json"] + fleet.directories, in: fleet)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(SchemaCheck.problems(in: result.stdout, against: "crash-groups") == [])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["reports"] as? Int == 1_000)
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.count == Fleet.bugs.count)
        for (bugIndex, bug) in Fleet.bugs.enumerated() {
            // Most reports first: the bugs are declared in that order.
            let group = try #require(groups.indices.contains(bugIndex) ? groups[bugIndex] : nil)
            let members = fleet.reports.filter { $0.bug == bugIndex }
            #expect(group["fingerprint"] as? String == bug.fingerprint)
            #expect(group["count"] as? Int == bug.count)
            #expect(group["kind"] as? String == bug.kind)
            #expect(group["frame"] as? String == "Shop \(bug.function)")
            #expect(group["summary"] as? String == "\(bug.kind) in \(bug.function)")
            #expect(group["firstSeen"] as? String == members.map(\.timestamp).min())
            #expect(group["lastSeen"] as? String == members.map(\.timestamp).max())
            let hosts = try #require(group["hosts"] as? [[String: Any]])
            #expect(hosts.count == 20)
            #expect(hosts.map { $0["count"] as? Int ?? 0 }.reduce(0, +) == bug.count)
            let builds = try #require(group["builds"] as? [[String: Any]])
            #expect(Set(builds.compactMap { $0["name"] as? String }) == Set(Fleet.builds))
            #expect(builds.map { $0["count"] as? Int ?? 0 }.reduce(0, +) == bug.count)
            let newest = members.max { ($0.timestamp, $0.path) < ($1.timestamp, $1.path) }
            #expect(group["example"] as? String == newest?.path)
        }
        let skipped = try #require(json["skipped"] as? [[String: Any]])
        #expect(skipped.compactMap { $0["path"] as? String }.sorted().map { $0.hasSuffix(".json") } == [true, true])
        let reasons = skipped.compactMap { $0["reason"] as? String }
        #expect(reasons.contains { $0.hasPrefix("not a JSON crash report") })
        #expect(reasons.contains("no fingerprint (processed before reports had one)"))
        let pending = try #require(json["pending"] as? [[String: Any]])
        #expect(pending.count == 1 && pending.first?["count"] as? Int == 1)
        // Nothing goes to standard error with --json, and no progress when it is not a terminal.
        #expect(result.stderr == "")
    }

    @Test("--since keeps the reports from that moment on, as a date and as a span back from now")
    func since() throws {
        let fleet = try Fleet()
        defer { fleet.root.remove() }
        let result = group(["--json", "--since", "2026-11-21"] + fleet.directories, in: fleet)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["reports"] as? Int == fleet.reports.filter { $0.timestamp >= "2026-11-21" }.count)
        let groups = try #require(json["groups"] as? [[String: Any]])
        for group in groups { #expect((group["firstSeen"] as? String ?? "") >= "2026-11-21") }

        // The fleet's reports are of November 2026: a span back from now reaches them only if now is close.
        let recent = group(["--json", "--since", "100000d"] + fleet.directories, in: fleet)
        let all = try #require(try JSONSerialization.jsonObject(with: Data(recent.stdout.utf8)) as? [String: Any])
        #expect(all["reports"] as? Int == 1_000)
        let none = group(["--json", "--since", "2999-01-01T00:00:00Z"] + fleet.directories, in: fleet)
        let empty = try #require(try JSONSerialization.jsonObject(with: Data(none.stdout.utf8)) as? [String: Any])
        #expect(empty["reports"] as? Int == 0)

        let bad = group(["--since", "last week"] + fleet.directories, in: fleet)
        #expect(bad.termination.exitCode == 64)
        #expect(bad.stderr.contains("--since last week is neither an ISO 8601 date or time nor a span like 7d."))
    }

    @Test("The text form has one row per group, most reports first, and names the files it skipped")
    func text() throws {
        let fleet = try Fleet()
        defer { fleet.root.remove() }
        let result = group(fleet.directories, in: fleet)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "1000 reports in 4 groups (20 hosts, 3 builds); 2 files skipped")
        #expect(lines.contains { $0.hasPrefix("\(fleet.root.path)/host-03: 1 pending, not grouped") })
        let rows = lines.filter { $0.contains("fatalError in") || $0.contains("SIG") && $0.contains(" in Shop ") }
        #expect(rows.count == 4)
        #expect(rows.first?.hasPrefix("  500     20       3  2026-11-") == true, "\(rows)")
        #expect(rows.first?.contains("0123456789abcdef  fatalError in Shop Shop.checkout(_:)") == true)
        #expect(result.stderr.contains("axiom: skipped \(fleet.root.path)/host-01/processed/broken.json: not a JSON"))
        #expect(result.stderr.contains("host-02/processed/old.json: no fingerprint"))
    }

    @Test("A folder that does not exist is an error, named")
    func missingFolder() throws {
        let fleet = try Fleet()
        defer { fleet.root.remove() }
        let result = group([fleet.root.path + "/nowhere"], in: fleet)
        #expect(result.termination.exitCode == 1)
        #expect(result.stderr == "axiom: no crash report directory at \(fleet.root.path)/nowhere\n")
    }

    /// Chromium as the README's test command installs it.
    static let chromium = "/usr/bin/chromium"

    @Test("The HTML page, opened in headless Chromium, shows each group with its count and a timeline")
    func htmlPage() throws {
        try #require(
            access(Self.chromium, X_OK) == 0, "\(Self.chromium) is missing: the README's test command installs it")
        let fleet = try Fleet()
        defer { fleet.root.remove() }
        let page = fleet.root.path + "/groups.html"
        let result = group(["--html", page] + fleet.directories, in: fleet)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")

        // The page as Chromium renders it, read back from its DOM.
        let dom = fleet.root.path + "/dom.html"
        let profile = fleet.root.path + "/profile"
        let chromiumFlags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(profile)",
        ]
        let dumped = ChildProcess.run(
            Self.chromium, chromiumFlags + ["--dump-dom", "file://" + page], stdoutPath: dom)
        #expect(dumped.exitCode == 0, "\(dumped)")
        let rendered = ChildProcess.readText(dom)
        #expect(rendered.contains("<p id=\"summary\">1000 reports in 4 groups, 20 hosts, 3 builds; 2 files skipped."))
        for bug in Fleet.bugs {
            #expect(
                rendered.contains(
                    "<tr class=\"group\" data-fingerprint=\"\(bug.fingerprint)\">"
                        + "<td class=\"number count\">\(bug.count)</td><td class=\"number hosts\">20</td>"
                        + "<td class=\"number builds\">3</td>"))
        }
        // One timeline per group, with a bar per day that had reports of it.
        #expect(rendered.components(separatedBy: "<tr class=\"timeline\">").count == 5)
        #expect(rendered.contains("<title>2026-11-01: "))

        // A screenshot, kept beside the test binary as an artifact for a person to look at.
        let artifacts =
            String(ChildProcess.probePath.dropLast("AxiomCrashProbe".count)) + "test-artifacts"
        mkdir(artifacts, 0o755)
        let screenshot = artifacts + "/crash-groups.png"
        unlink(screenshot)
        let shot = ChildProcess.run(
            Self.chromium, chromiumFlags + ["--screenshot=\(screenshot)", "--window-size=1400,1000", "file://" + page],
            stdoutPath: "/dev/null")
        #expect(shot.exitCode == 0, "\(shot)")
        let png = try #require(FileManager.default.contents(atPath: screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG: \(png.count) bytes")
    }
}

@Suite("axiom crash-reports group over real crashes")
struct RealCrashGroupsTests {
    @Test(
        "Crashes of two machines, processed there, group by bug: two force unwraps on two hosts are one group, a null write another"
    )
    func realCrashes() throws {
        let fleet = TemporaryDirectory()
        defer { fleet.remove() }
        let hosts = ["web-1", "web-2"].map { fleet.path + "/" + $0 }
        for host in hosts { try #require(mkdir(host, 0o755) == 0) }
        for (host, kind) in [(hosts[0], "force-unwrap"), (hosts[1], "force-unwrap"), (hosts[1], "null-write")] {
            let crashed = ChildProcess.runProbe(directory: host, kind: kind)
            #expect(crashed.termination.signal != nil, "\(kind): \(crashed.termination) \(crashed.stderr)")
        }
        for host in hosts {
            let processed = ChildProcess.runAxiom(["crash-reports", "--dir", host], outputIn: fleet.path)
            #expect(processed.termination.exitCode == 0, "\(processed.termination) \(processed.stderr)")
        }
        let result = ChildProcess.runAxiom(["crash-reports", "group", "--json"] + hosts, outputIn: fleet.path)
        #expect(result.termination.exitCode == 0, "\(result.termination) \(result.stderr)")
        #expect(SchemaCheck.problems(in: result.stdout, against: "crash-groups") == [])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["reports"] as? Int == 3)
        #expect((json["skipped"] as? [Any])?.isEmpty == true, "\(json["skipped"] ?? "")")
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.count == 2)
        let unwraps = try #require(groups.first)
        #expect(unwraps["count"] as? Int == 2)
        #expect(
            (unwraps["hosts"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["web-1", "web-2"])
        #expect(unwraps["kind"] as? String == "fatalError")
        #expect((unwraps["frame"] as? String)?.hasPrefix("AxiomCrashProbe ") == true, "\(unwraps["frame"] ?? "")")
        #expect(unwraps["provisional"] as? Bool == false)
        let nullWrite = try #require(groups.last)
        #expect(nullWrite["count"] as? Int == 1)
        #expect(nullWrite["kind"] as? String == "SIGSEGV")
        #expect(nullWrite["fingerprint"] as? String != unwraps["fingerprint"] as? String)
    }
}
