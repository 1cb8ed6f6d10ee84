import AxiomCore
import CAxiomPluginABI
import CAxiomPluginScan

#if canImport(Glibc)
import Glibc
#endif

/// The body of the scanner: the child process in which a plugin's code runs for the first time, so that a plugin
/// that crashes, hangs or exits takes down a disposable process instead of the host.
///
/// The scanner is the host's own executable by default: the host starts `/proc/self/exe` again with the argument
/// `--axiom-plugin-scan` and its pid, and a constructor of the library (which runs before `main`) sees them, runs
/// the scan and exits, so the application's `main` never runs in the scanner. The separate `axiom-plugin-scanner`
/// executable, whose `main` is ``main()``, does the same in a smaller process; a host uses it when it finds it (see
/// ``PluginVetting``).
///
/// The host starts the scanner with the plugin file open on descriptor 3 (the very file it checked, so nothing can
/// swap it in between) and a pipe on descriptor 4; standard output and error are `/dev/null`, so whatever the plugin
/// prints cannot mix with the verdict. The scanner `dlopen`s the file through `/proc/self/fd/3`, calls
/// `axiom_plugin_entry_v1`, copies the catalog with the host's own reader, writes the verdict to descriptor 4 and
/// leaves with `_exit`, so no destructor of the plugin runs either. When the plugin crashes, a signal handler writes
/// where (`SIGSEGV in axiom_plugin_entry_v1 + 16`) before the process dies of the signal.
package enum PluginScanner {
    /// The scanner's executable name, looked for beside the running executable.
    package static let executableName = "axiom-plugin-scanner"

    /// The first argument of the host's own executable started as its scanner; the host's pid follows.
    static let marker = AXIOM_PLUGIN_SCAN_MARKER
    /// The descriptor the plugin file is open on in the scanner.
    static let fileDescriptor: Int32 = 3
    /// The descriptor of the pipe the verdict goes to.
    static let verdictDescriptor: Int32 = 4
    /// The netstring tag of a crash note: the signal handler's last words.
    static let crashTag = "axiom-plugin-crash"

    /// Runs the scanner: reads the plugin on descriptor 3, writes its verdict to descriptor 4, and exits. Called
    /// by the `axiom-plugin-scanner` executable only; it never returns.
    package static func main() -> Never {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let host = Int(arguments[1]) else { _exit(2) }
        run(host: host)
    }

    /// The scan, for the host whose pid is `host`: ``main()``'s, and the constructor's when the host's own
    /// executable is the scanner.
    static func run(host: Int) -> Never {
        // Dies with the host: a plugin that never returns must not keep running once nobody waits for it.
        guard axiom_plugin_die_with_parent(host) == 0 else { _exit(2) }
        // A plugin that crashes here is expected: no core file for each one.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        installCrashHandler()
        let verdict = read(path: "/proc/self/fd/\(fileDescriptor)").verdict
        writeAll(verdictDescriptor, verdict.encoded())
        _exit(0)
    }

    /// Maps the plugin at `path`, calls its entry and reads its catalog: the part of loading that runs the
    /// plugin's code. The scanner calls it in its own process; a host in ``PluginVetting/Mode/inProcess`` mode calls
    /// it itself. `entry` is the entry's address when it resolved (the plugin stays mapped: it is never closed).
    static func read(path: String) -> (verdict: PluginVerdict, entry: UnsafeRawPointer?) {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            return (.refused(.dlopenFailed, dlerror().map { String(cString: $0) } ?? "dlopen failed"), nil)
        }
        guard let symbol = dlsym(handle, AXIOM_PLUGIN_ENTRY_SYMBOL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlsym failed"
            return (.refused(.notAPlugin, "\(AXIOM_PLUGIN_ENTRY_SYMBOL) did not resolve after loading: \(reason)"), nil)
        }
        let entry = unsafeBitCast(symbol, to: axiom_plugin_entry_v1_fn.self)
        let address = UnsafeRawPointer(symbol)
        guard let plugin = entry() else {
            return (
                .refused(.notAPlugin, "\(AXIOM_PLUGIN_ENTRY_SYMBOL) returned NULL instead of a descriptor"), address
            )
        }
        if let (reason, detail) = DescriptorReader.checkHeader(plugin) { return (.refused(reason, detail), address) }
        let header = DescriptorReader.descriptor(plugin)
        let identification: (id: String, version: String, toolchain: String)
        switch DescriptorReader.identity(header) {
        case .success(let value): identification = value
        case .failure(let error): return (.refused(error.reason, error.detail), address)
        }
        switch DescriptorReader.catalog(header, id: identification.id, version: identification.version) {
        case .success(let catalog):
            return (
                .accepted(
                    PluginVerdict.Accepted(
                        id: identification.id, version: identification.version, toolchain: identification.toolchain,
                        catalog: catalog)),
                address
            )
        case .failure(let error):
            return (.refused(error.reason, "plugin \(identification.id): \(error.detail)"), address)
        }
    }

    /// Fatal signals write a crash note to the verdict pipe, then kill the process with the same signal. The
    /// handler formats with the allocator and `dladdr`, which a signal handler should not: the process is a
    /// throwaway, and if the handler itself hangs the host's time limit ends it.
    private static func installCrashHandler() {
        let stackSize = 64 * 1024
        var stack = stack_t()
        stack.ss_sp = malloc(stackSize)
        stack.ss_size = stackSize
        sigaltstack(&stack, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, _, context in
            PluginScanner.writeCrashNote(signal: signal, context: context)
            raise(signal)  // SA_RESETHAND restored the default action: delivered when the handler returns
        }
        action.sa_flags = Int32(SA_SIGINFO | SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
        sigemptyset(&action.sa_mask)
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS] { sigaction(signal, &action, nil) }
    }

    fileprivate static func writeCrashNote(signal: Int32, context: UnsafeMutableRawPointer?) {
        var place = ""
        if let context, let pc = programCounter(context), pc != 0 {
            place = " at 0x" + String(pc, radix: 16)
            var buffer = [CChar](repeating: 0, count: 512)
            if axiom_plugin_describe_address(UnsafeRawPointer(bitPattern: pc), &buffer, buffer.count) > 0 {
                place =
                    " in " + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        var writer = PluginVerdict.Writer()
        writer.put(crashTag)
        writer.put(signalName(signal) + place)
        writeAll(verdictDescriptor, writer.bytes)
    }

    private static func programCounter(_ context: UnsafeMutableRawPointer) -> UInt? {
        let machine = context.assumingMemoryBound(to: ucontext_t.self).pointee.uc_mcontext
        #if arch(x86_64)
        return UInt(bitPattern: Int(machine.gregs.16))  // REG_RIP
        #elseif arch(arm64)
        return UInt(machine.pc)
        #else
        return nil
        #endif
    }

    /// `SIGSEGV` for 11.
    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGABRT: "SIGABRT",
            SIGTRAP: "SIGTRAP", SIGSYS: "SIGSYS", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGPIPE: "SIGPIPE",
            SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT", SIGXCPU: "SIGXCPU",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}

/// The scan when the host's own executable is the scanner: called by the constructor in `CAxiomPluginScan`
/// (`axiom_plugin_self_scan.c`) before `main`, once it has seen the marker argument and the scanner's descriptors.
@_cdecl("axiom_plugin_scanner_run")
func axiomPluginScannerRun(_ host: Int) {
    PluginScanner.run(host: host)
}
