import AxiomCrash
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Helpers of StrippedBinaryTests: reports read back as frame groups, a silent loopback listener, a debuginfod
// server for the length of one command.

/// The frames of one captured address: its module, its module-relative address (return addresses minus one),
/// and `symbol file:line` per location, innermost inlined first.
struct FrameGroup: CustomStringConvertible {
    var modulePath: String?
    var address: UInt64
    var locations: [String]
    var hasNoFile: Bool

    var description: String { "\(modulePath ?? "?")+0x\(String(address, radix: 16)) \(locations)" }

    static func groups(of report: SymbolicatedCrashReport) -> [FrameGroup] {
        report.raw.frames.enumerated().map { index, pc in
            let module = report.raw.module(containing: pc)
            let frames = report.frames.filter { $0.index == index }
            return FrameGroup(
                modulePath: module?.path, address: pc &- (module?.bias ?? 0) - (index == 0 ? 0 : 1),
                locations: frames.map { "\($0.symbol ?? "??") \($0.file ?? ""):\($0.line ?? 0)" },
                hasNoFile: frames.allSatisfy { $0.file == nil })
        }
    }
}

/// `axiom symbolicate --json` output, read back.
struct JSONReport {
    let object: [String: Any]

    init(path: String) throws {
        let data = Data(try #require(readFileBytes(path)))
        object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    var images: [[String: Any]] { object["images"] as? [[String: Any]] ?? [] }

    func debugInfo(of path: String) -> [String: String]? {
        images.first { $0["path"] as? String == path }?["debugInfo"] as? [String: String]
    }

    /// The frames grouped by captured address: an address's frames end with its physical (not inlined) frame.
    func groups() throws -> [FrameGroup] {
        let threads = try #require(object["threads"] as? [[String: Any]])
        let frames = try #require(threads.first?["frames"] as? [[String: Any]])
        var paths: [String: String] = [:]
        for image in images {
            if let name = image["name"] as? String, let path = image["path"] as? String { paths[name] = path }
        }
        var groups: [FrameGroup] = []
        var pending: [[String: Any]] = []
        for frame in frames {
            pending.append(frame)
            guard frame["inlined"] as? Bool == false else { continue }
            let offset = (frame["imageOffset"] as? String).flatMap { UInt64($0.dropFirst(2), radix: 16) } ?? 0
            let locations = pending.map { frame -> String in
                let location = frame["sourceLocation"] as? [String: Any]
                let file = location?["file"] as? String ?? ""
                return "\(frame["symbol"] as? String ?? "??") \(file):\(location?["line"] as? Int ?? 0)"
            }
            groups.append(
                FrameGroup(
                    modulePath: (frame["image"] as? String).flatMap { paths[$0] },
                    address: offset &- (groups.isEmpty ? 0 : 1), locations: locations,
                    hasNoFile: pending.allSatisfy { $0["sourceLocation"] == nil }))
            pending = []
        }
        return groups
    }
}

/// A TCP socket listening on 127.0.0.1 at a free port, never accepting.
final class LoopbackListener {
    private var descriptor: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
        try #require(bound == 0 && listen(fd, 16) == 0 && named == 0)
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}

/// Runs Debian's `debuginfod` over a folder of debug files, waits until it serves `buildID`, runs one command
/// against it, and stops it; all in a bash script, in a private network namespace when `unshare --net` is
/// allowed (only its loopback exists there; debuginfod 0.188 cannot be told to listen on loopback alone).
enum DebuginfodServer {
    static let script = #"""
        set -u
        folder=$1 buildid=$2 port=$3 log=$4
        shift 4
        if [ -n "${AXIOM_IN_NETNS:-}" ]; then ip link set lo up; fi
        debuginfod -p "$port" -F "$folder" -d "$folder/../debuginfod.sqlite" >"$log" 2>&1 &
        server=$!
        # SIGKILL: on SIGTERM debuginfod 0.188 waits for its scanner threads' next wake-up (minutes).
        trap 'kill -KILL "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT
        ready=
        for attempt in $(seq 1 200); do
            if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
                printf 'GET /buildid/%s/debuginfo HTTP/1.0\r\n\r\n' "$buildid" >&3
                status=$(head -1 <&3)
                exec 3<&-
                case "$status" in *" 200 "*) ready=1; break ;; esac
            fi 2>/dev/null
            sleep 0.1
        done
        [ -n "$ready" ] || { echo "debuginfod did not serve $buildid within 20 s" >>"$log"; exit 97; }
        export PORT=$port
        args=()
        for argument in "$@"; do args+=("${argument//\$PORT/$port}"); done
        timeout 60 "${args[@]}"
        """#

    static func run(
        serving folder: String, buildID: String, in directory: String, log: String, then command: [String],
        environment: [String], stdoutPath: String
    ) -> Termination {
        let isolated = ChildProcess.run("/usr/bin/unshare", ["--net", "true"], stdoutPath: "/dev/null") == .exited(0)
        // In its own namespace any port is free; otherwise a free port of this one.
        let port = isolated ? 8002 : (try? LoopbackListener())?.port ?? 8002
        let arguments = ["-c", script, "bash", folder, buildID, String(port), log] + command
        if isolated {
            return ChildProcess.run(
                "/usr/bin/unshare", ["--net", "/bin/bash"] + arguments, environment: environment + ["AXIOM_IN_NETNS=1"],
                stdoutPath: stdoutPath, stderrPath: directory + "/server-script.stderr")
        }
        return ChildProcess.run(
            "/bin/bash", arguments, environment: environment, stdoutPath: stdoutPath,
            stderrPath: directory + "/server-script.stderr")
    }
}

extension Termination {
    static func exited(_ code: Int32) -> Termination {
        var termination = Termination(waitStatus: 0)
        termination.exitCode = code
        return termination
    }
}

/// The bytes of a hexadecimal string (an even number of digits).
func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
