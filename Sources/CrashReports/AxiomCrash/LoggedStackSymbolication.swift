import AxiomSymbolication

/// Finishes log lines whose stacks were logged module-relative (see `ModuleStackDescriber`): each
/// `module+0xoffset` frame of a module the same line lists (`module:buildid:path`) becomes its functions, files
/// and lines.
///
/// ```
/// … stack=[MyApp+0x1a2f3,libswift_Concurrency.so+0x4c1d0] stackModules=[MyApp:5f3e…:/srv/myapp/MyApp,…]
/// … stack=[MyApp.Ledger.append() (/src/Ledger.swift:42),…] stackModules=[…]
/// ```
///
/// Each module is found by its build-id, as crash reports are (see ``DebugInfoSearch``): its file when that still
/// has the build-id, its debuglink, debug folders, symbol stores, debuginfod. A frame that cannot be symbolicated
/// (no module with that build-id anywhere) stays as it was. Works on any machine that has the debug info.
package struct LoggedStackSymbolication: Sendable {
    /// Reads the debug info.
    package let symbolicator: Symbolicator

    /// Creates a finisher reading debug info through `symbolicator`.
    package init(symbolicator: Symbolicator) {
        self.symbolicator = symbolicator
    }

    /// A module a log line lists.
    package struct Module: Sendable, Hashable {
        /// The module's file name, as its frames name it.
        package var name: String
        /// Its GNU build-id (lowercase hex), or nil when it had none.
        package var buildID: String?
        /// Its path where it ran.
        package var path: String
    }

    /// The modules listed in `line` (`module:buildid:path` entries).
    package func modules(in line: String) -> [Module] {
        var modules: [Module] = []
        for match in line.matches(of: Self.moduleEntry) {
            let buildID = String(match.output.2)
            modules.append(
                Module(
                    name: String(match.output.1), buildID: buildID == "-" ? nil : buildID, path: String(match.output.3))
            )
        }
        return modules
    }

    /// `line` with every module-relative frame of a listed module replaced by its symbolicated frames
    /// (`function (file:line)`, `[inlined] ` in front of inlined ones, joined by `, `).
    package func symbolicate(line: String) -> String {
        let modules = modules(in: line)
        guard !modules.isEmpty else { return line }
        var byName: [String: Module] = [:]
        for module in modules where byName[module.name] == nil { byName[module.name] = module }
        var result = ""
        var rest = line[...]
        while let match = rest.firstMatch(of: Self.relativeFrame) {
            result += rest[..<match.range.lowerBound]
            // The name class stops at separators, so the leftmost match takes the whole name.
            if let module = byName[String(match.output.1)], let offset = UInt64(match.output.2, radix: 16),
                let frames = symbolicate(module, offset: offset)
            {
                result += frames
            } else {
                result += rest[match.range]
            }
            rest = rest[match.range.upperBound...]
        }
        result += rest
        return result
    }

    /// Reads ahead what finishing `lines` will need, module by module (`Symbolicator.prepare`): the tables of a
    /// module's units are then built on every processor at once, rather than one after the other as the lines ask
    /// for them. Changes no answer; ``symbolicate(line:)`` finishes each line as it would have.
    package func prepare(lines: some Sequence<String>) {
        var byModule: [Module: [UInt64]] = [:]
        for line in lines {
            let modules = modules(in: line)
            guard !modules.isEmpty else { continue }
            var byName: [String: Module] = [:]
            for module in modules where byName[module.name] == nil { byName[module.name] = module }
            for match in line.matches(of: Self.relativeFrame) {
                guard let module = byName[String(match.output.1)], let offset = UInt64(match.output.2, radix: 16),
                    let address = Self.address(ofOffset: offset)
                else { continue }
                byModule[module, default: []].append(address)
            }
        }
        for (module, addresses) in byModule where addresses.count > 1 {
            symbolicator.prepare(modulePath: module.path, buildID: module.buildID, addresses: addresses)
        }
    }

    /// The address a logged offset is looked up at: one byte back, since return addresses point after their call
    /// (an async caller's resume point was logged plus one for the same reason).
    static func address(ofOffset offset: UInt64) -> UInt64? { offset > 0 ? offset - 1 : nil }

    /// One module-relative frame, symbolicated, or nil when its module's debug info is nowhere to be found.
    func symbolicate(_ module: Module, offset: UInt64) -> String? {
        guard let address = Self.address(ofOffset: offset),
            let frames = try? symbolicator.symbolicate(
                modulePath: module.path, buildID: module.buildID, address: address),
            frames.contains(where: { $0.function != nil })
        else { return nil }
        return frames.map { frame in
            var text = frame.isInlined ? "[inlined] " : ""
            text += frame.function ?? "?"
            if let file = frame.file, let line = frame.line { text += " (\(file):\(line))" }
            return text
        }.joined(separator: ", ")
    }

    // Regex values are not Sendable; these two are never mutated after they are made, and matching reads them only.
    /// `name:buildid:path`: a name without separators, hex digits or `-`, an absolute path.
    nonisolated(unsafe) static let moduleEntry = #/([^\s,\[\]"():=]+):([0-9a-f]{2,}|-):(/[^\s,\]"]*)/#
    /// `name+0xoffset`.
    nonisolated(unsafe) static let relativeFrame = #/([^\s,\[\]"():=]+)\+0x([0-9a-f]+)/#
}
