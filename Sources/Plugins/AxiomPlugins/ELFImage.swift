import AxiomELF

// The checks made on a file before it is handed to dlopen, through the shared ELF reader reading the descriptor the
// host opened (with pread: a file that is not a plugin is never mapped, no constructor of it ever runs, and the file
// checked is the file loaded).

/// What the pre-load inspection found out about an open file.
enum ELFImage {
    /// Why the checks refused a file: its code, and a detail that says which check failed.
    struct Refusal {
        var code: PluginRejection.Code
        var detail: String
        /// The file makes no claim to be a plugin: it is not ELF, or a shared object without the entry. A search of
        /// a folder where other files are expected (the executable's own) passes over it.
        var isUnrelated = false
    }

    /// Checks that the file open at `descriptor` is an ELF64 little-endian shared object for this machine
    /// that defines `symbol` in its dynamic symbol table.
    static func check(descriptor: Int32, size: Int, exporting symbol: String) -> Refusal? {
        do throws(ELFError) {
            let file = try ELFFile(DescriptorELFBytes(descriptor: descriptor, count: size))
            let machine = file.header.machine
            let host = ELFHeader.hostMachine
            guard machine == host else {
                return Refusal(
                    code: .wrongPlatform,
                    detail: "ELF for \(ELFHeader.machineName(machine)) (machine \(machine)); this host is "
                        + "\(ELFHeader.machineName(host)) (machine \(host))")
            }
            let type = file.header.type
            guard type == ELFHeader.sharedObject else {
                return Refusal(
                    code: .notAPlugin,
                    detail:
                        "the file is \(ELFHeader.typeName(type)), not a shared library; link the plugin with -shared"
                )
            }
            let lookup = try file.dynamicSymbol(named: symbol)
            // A position-independent executable is ET_DYN too: say so, since the fix is a link flag.
            let executable = (try? file.programHeaders())?.contains { $0.type == ELFProgramHeader.interpreter } ?? false
            let hint =
                executable
                ? " (the file is a position-independent executable, not a shared library: link the plugin with -shared)"
                : ""
            let detail: String
            switch lookup {
            case .found(let entry) where isExportedFunction(entry): return nil
            case .found: detail = "\(symbol) is in the dynamic symbol table but not as a defined function"
            case .absent: detail = "\(symbol) is not exported"
            case .unavailable(let why): detail = "\(symbol) cannot be looked up: \(why)"
            }
            return Refusal(code: .notAPlugin, detail: detail + hint, isUnrelated: true)
        } catch {
            return rejection(error)
        }
    }

    /// The reader's failure as the host's refusal: the one place its words become reasons.
    static func rejection(_ error: ELFError) -> Refusal {
        switch error {
        case .notELF: Refusal(code: .notAPlugin, detail: "not an ELF file: \(error)", isUnrelated: true)
        case .truncated, .malformed: Refusal(code: .notAPlugin, detail: "malformed ELF: \(error)")
        case .unsupportedClass(let value):
            Refusal(
                code: .wrongPlatform,
                detail: value == 1 ? "ELF32; this host loads ELF64" : "\(error); this host loads ELF64")
        case .unsupportedByteOrder: Refusal(code: .wrongPlatform, detail: "\(error); this host is little-endian")
        }
    }

    /// Defined (not `SHN_UNDEF`), a function, global or weak, of default or protected visibility.
    private static func isExportedFunction(_ symbol: ELFSymbol) -> Bool {
        symbol.sectionIndex != ELFSymbol.undefinedSection && symbol.type == ELFSymbol.function
            && (symbol.binding == ELFSymbol.global || symbol.binding == ELFSymbol.weak)
            && (symbol.visibility == ELFSymbol.defaultVisibility || symbol.visibility == ELFSymbol.protectedVisibility)
    }

    /// The GNU build-id of the ELF file open at `descriptor`, or nil when it has none or the file is not one the
    /// reader reads. Read with pread, like the checks.
    static func buildID(descriptor: Int32, size: Int) -> [UInt8]? {
        (try? ELFFile(DescriptorELFBytes(descriptor: descriptor, count: size)))?.buildID()
    }
}
