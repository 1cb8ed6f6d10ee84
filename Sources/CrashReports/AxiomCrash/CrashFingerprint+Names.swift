/// The fingerprint's rules for function names: which frames are the crash machinery's or the runtime failure path's
/// (skipped, as Socorro's irrelevant list and Sentry's grouping rules skip them), and how a demangled name is
/// normalised so that what a build changes (generic arguments, closure numbers, specialisations, clones) drops out.
package enum FingerprintNames {
    /// Functions skipped wherever they are on the stack: the runtime's way from a failed check to the signal, the C
    /// library's way from `abort` to the kernel, the signal trampoline, and the crash reporter's own code.
    static let skippedNames: Set<String> = [
        "abort", "raise", "gsignal", "pthread_kill", "__pthread_kill_implementation", "__pthread_kill_internal",
        "__GI_abort", "__GI_raise", "__restore_rt", "__libc_message", "__libc_fatal", "__assert_fail",
        "__assert_fail_base", "__assert_perror_fail", "__fortify_fail", "__chk_fail", "__stack_chk_fail",
        "swift_runtime_on_report", "_swift_runtime_on_report", "swift_reportError", "swift::fatalError",
        "swift::fatalErrorv", "swift_deletedMethodError", "swift_unexpectedError", "swift_willThrow",
    ]

    /// Prefixes of skipped functions (a name's signature follows them).
    static let skippedPrefixes: [String] = [
        "_swift_stdlib_reportFatalError", "_swift_stdlib_reportUnimplementedInitializer",
        "Swift._assertionFailure(", "Swift._fatalErrorMessage(", "Swift.fatalError(", "Swift.preconditionFailure(",
        "Swift.assertionFailure(", "Swift._preconditionFailure(", "Swift._unimplementedInitializer(",
        "swift::fatalError", "swift::swift_abortRetainUnowned", "swift::swift_abort",
        // A conformance's entry in a debug build, inlined away in a release build.
        "protocol witness for ",
        // Value operations the optimiser outlined (`outlined copy of …`): a release build's frames, not a debug's.
        "outlined ",
        // The crash reporter: its signal handler in C and its Swift module, wherever it is linked.
        "axiom_crash_", "AxiomCrash.",
    ]

    /// The modules of the Swift toolchain whose code an optimised build inlines into the application (the standard
    /// library's `Array` subscript, say): their frames are the toolchain's, wherever they lie, as in a debug build,
    /// where they are in the toolchain's libraries.
    static let toolchainModules = [
        "Swift.", "_Concurrency.", "_StringProcessing.", "Synchronization.", "Foundation.", "FoundationEssentials.",
        "Dispatch.",
    ]

    /// Whether a fatal message is the Swift runtime's (`file:line: Fatal error: …`, `Precondition failed: …`,
    /// `Assertion failed: …`) rather than the C library's (a failed C `assert`'s, which ends `' failed.`).
    package static func isSwiftRuntimeMessage(_ message: String) -> Bool {
        ["Fatal error", "Precondition failed", "Assertion failed"].contains { message.contains($0) }
    }

    /// Whether `function` (demangled) is a function of the Swift toolchain's libraries (see ``toolchainModules``):
    /// by the module its name starts with, once variants and enclosing closures are set aside, or the module
    /// an `(extension in Module):` qualifier names (an application's extension of `Array` is the application's).
    package static func isToolchainFunction(_ function: String) -> Bool {
        var name = Substring(withoutNumbering(withoutVariants(function)))
        for prefix in ["closure in ", "implicit closure in ", "static "] where name.hasPrefix(prefix) {
            name = name.dropFirst(prefix.count)
        }
        if name.hasPrefix("(extension in "), let close = name.firstIndex(of: ")") {
            let module = name[name.index(name.startIndex, offsetBy: "(extension in ".count)..<close]
            return toolchainModules.contains(module + ".")
        }
        return toolchainModules.contains { name.hasPrefix($0) }
    }

    /// Whether a frame of `function` (demangled) is never the bug's: skipped before frames are counted.
    package static func isSkipped(_ function: String) -> Bool {
        let name = normalized(function)
        return skippedNames.contains(name) || skippedPrefixes.contains { name.hasPrefix($0) }
    }

    /// Prefixes a Swift demangler writes before the function a compiler-made variant is of; the variant is the
    /// function's for the fingerprint. Each ends where the original name starts (after `of ` or `for `), and may
    /// carry its own `<…>` argument list first.
    private static let variantPrefixes: [String] = [
        "generic specialization ", "function signature specialization ", "generic partial specialization ",
        "merged ", "partial apply for ", "partial apply forwarder for ", "specialized ",
    ]

    /// A demangled function name without what differs between two builds of one function:
    ///
    /// - specialisations and variants (`generic specialization <…> of `, `function signature specialization <…>
    ///   of `, `merged `, `partial apply for `, `specialized `) and async partial functions
    ///   (`(1) suspend resume partial function for `, `(2) await resume partial function for `): the function
    ///   they were made of;
    /// - generic arguments and parameter lists (`<…>`, `<A where A: Swift.Equatable>`), with `->` left alone;
    /// - the numbering of closures and local functions (`closure #2 in` → `closure in`, `#1`);
    /// - `(extension in Module):` qualifiers;
    /// - the suffixes of compiler clones of C functions (`.cold`, `.constprop.0`, `.isra.0`, `.part.0`,
    ///   `.llvm.123`);
    /// - runs of spaces.
    package static func normalized(_ function: String) -> String {
        var result = withoutGenericArguments(withoutVariants(function))
        result = withoutExtensionQualifiers(result)
        result = withoutNumbering(result)
        result = withoutCloneSuffix(result)
        return result.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// `function` without its leading specialisation and variant prefixes (see ``normalized(_:)``).
    private static func withoutVariants(_ function: String) -> String {
        var name = Substring(function)
        var changed = true
        while changed {
            changed = false
            if let rest = droppingAsyncPartial(name) {
                name = rest
                changed = true
            }
            for prefix in variantPrefixes where name.hasPrefix(prefix) {
                name = name.dropFirst(prefix.count)
                // `<…>` of the specialisation, then ` of ` / `for ` (specialized has neither).
                if name.first == "<" { name = droppingGroup(name) }
                for joint in ["of ", "for ", " of ", " for "] where name.hasPrefix(joint) {
                    name = name.dropFirst(joint.count)
                    break
                }
                changed = true
            }
        }
        return String(name)
    }

    /// `(N) suspend resume partial function for X` and `(N) await resume partial function for X` as X.
    private static func droppingAsyncPartial(_ name: Substring) -> Substring? {
        guard name.first == "(", let close = name.firstIndex(of: ")") else { return nil }
        let number = name[name.index(after: name.startIndex)..<close]
        guard !number.isEmpty, number.allSatisfy(\.isNumber) else { return nil }
        let rest = name[name.index(after: close)...]
        for marker in [" suspend resume partial function for ", " await resume partial function for "]
        where rest.hasPrefix(marker) {
            return rest.dropFirst(marker.count)
        }
        return nil
    }

    /// `name` after its leading `<…>` group (nesting counted, `->` not a closing bracket).
    private static func droppingGroup(_ name: Substring) -> Substring {
        var depth = 0
        var previous: Character = " "
        for index in name.indices {
            let character = name[index]
            if character == "<" {
                depth += 1
            } else if character == ">" && previous != "-" {
                depth -= 1
                if depth == 0 { return name[name.index(after: index)...].drop { $0 == " " } }
            }
            previous = character
        }
        return name
    }

    /// Every `<…>` group removed; the arrow `->` is not a bracket.
    private static func withoutGenericArguments(_ name: String) -> String {
        var result = ""
        var depth = 0
        var previous: Character = " "
        for character in name {
            if character == "<" {
                depth += 1
            } else if character == ">" && previous != "-" && depth > 0 {
                depth -= 1
            } else if depth == 0 {
                result.append(character)
            }
            previous = character
        }
        return result
    }

    /// `(extension in Module):` removed.
    private static func withoutExtensionQualifiers(_ name: String) -> String {
        var result = Substring(name)
        var output = ""
        while let range = result.firstRange(of: "(extension in ") {
            output += result[..<range.lowerBound]
            let rest = result[range.upperBound...]
            guard let end = rest.firstRange(of: "):") else {
                output += result[range.lowerBound...]
                return output
            }
            result = rest[end.upperBound...]
        }
        return output + result
    }

    /// ` #N` (a closure's or a local function's number) removed.
    private static func withoutNumbering(_ name: String) -> String {
        var result = ""
        var characters = name[...]
        while let mark = characters.firstIndex(of: "#") {
            let digits = characters[characters.index(after: mark)...].prefix { $0.isASCII && $0.isNumber }
            if digits.isEmpty {
                result += characters[...mark]
                characters = characters[characters.index(after: mark)...]
                continue
            }
            var before = characters[..<mark]
            if before.last == " " { before = before.dropLast() }
            result += before
            characters = characters[digits.endIndex...]
        }
        return result + characters
    }

    /// A C function's clone suffix (`.cold`, `.constprop.0`, `.isra.0`, `.part.0`, `.llvm.123`) removed; a name
    /// with a space (Swift's, C++'s) is left as it is.
    private static func withoutCloneSuffix(_ name: String) -> String {
        guard !name.contains(" "), !name.contains("("), let dot = name.firstIndex(of: ".") else { return name }
        let suffix = name[name.index(after: dot)...]
        let clones = ["cold", "constprop", "isra", "part", "llvm", "lto_priv", "localalias"]
        guard clones.contains(where: { suffix.hasPrefix($0) }) else { return name }
        return String(name[..<dot])
    }
}
