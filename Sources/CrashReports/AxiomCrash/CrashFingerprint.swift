#if canImport(Glibc)
import Glibc
#endif

/// What identifies a crash's bug rather than its build: the same bug crashing in two builds, on two machines, has
/// one fingerprint, so a fleet counts bugs rather than reports.
///
/// Made of the crash's kind and the crashed thread's top application frames, by module file name and normalised
/// function name; never of addresses, offsets, build-ids or paths. See <doc:CrashFingerprints> for the algorithm.
/// A report whose application frames have no debug info gets a provisional fingerprint, made of module offsets
/// instead of names: it groups the reports of one build only, and differs from the final fingerprint the same
/// report gets once symbolicated with its debug info.
public struct CrashFingerprint: Sendable, Hashable {
    /// The fingerprint: 16 lowercase hexadecimal digits (FNV-1a 64 of the canonical text).
    public var value: String
    /// The version of the algorithm that made ``value``; fingerprints of two versions are not comparable.
    public var version: Int
    /// Made from module offsets because frames it uses had no debug info: stable within one build only, and
    /// unlike the fingerprint the report gets once its debug info is found.
    public var isProvisional: Bool
    /// The crash's kind: `fatalError` for a Swift runtime failure (`fatalError`, a precondition, a force unwrap
    /// of nil, an index out of range, an overflow), else the signal's name (`SIGSEGV`).
    public var kind: String
    /// The frames used, innermost first, as they entered the hash.
    package var frames: [Frame]

    /// The algorithm's version; a change to any rule that moves a fingerprint is a new version.
    package static let currentVersion = 1
    /// How many application frames the fingerprint uses.
    package static let frameLimit = 5

    /// One frame as it enters the fingerprint.
    package struct Frame: Sendable, Hashable {
        /// The module's file name, without its folder.
        package var module: String
        package var identity: Identity

        package init(module: String, identity: Identity) {
            self.module = module
            self.identity = identity
        }

        /// What names the frame within its module.
        package enum Identity: Sendable, Hashable {
            /// The normalised function name (final fingerprints).
            case function(String)
            /// The offset of the function's start in the module, from its symbol table (provisional).
            case functionStart(UInt64)
            /// The frame's own offset in the module, when no symbol covers it (provisional).
            case imageOffset(UInt64)
        }

        /// The frame's line of the canonical text.
        var canonicalLine: String {
            switch identity {
            case .function(let name): return "frame \(module) function \(name)"
            case .functionStart(let offset): return "frame \(module) function-start 0x" + String(offset, radix: 16)
            case .imageOffset(let offset): return "frame \(module) image-offset 0x" + String(offset, radix: 16)
            }
        }
    }

    /// The fingerprint of `kind` and `frames` with the current version.
    package init(kind: String, frames: [Frame], isProvisional: Bool) {
        self.kind = kind
        self.frames = frames
        self.isProvisional = isProvisional
        self.version = Self.currentVersion
        self.value = Self.hexadecimal(Self.fnv1a64(Self.canonicalText(kind: kind, frames: frames)))
    }

    /// The text that is hashed: a header naming the version, the kind, then one line per frame, each line ended by
    /// a line feed.
    package static func canonicalText(kind: String, frames: [Frame]) -> String {
        var text = "axiom-crash-fingerprint \(currentVersion)\nkind \(kind)\n"
        for frame in frames { text += frame.canonicalLine + "\n" }
        return text
    }

    /// FNV-1a, 64 bits, over the UTF-8 bytes of `text`.
    package static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private static func hexadecimal(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension SymbolicatedCrashReport {
    /// The crash's fingerprint, the same for every report of one bug (see ``CrashFingerprint``).
    public var fingerprint: CrashFingerprint {
        let kind = fingerprintKind
        let candidates = fingerprintCandidates()
        // Only the application's frames, as in-app rules do; a crash with none (a thread of a library alone) is
        // identified by the frames it has.
        let application = candidates.filter { !$0.isSystem }
        var used: [CrashFingerprint.Frame] = []
        var isProvisional = false
        for candidate in application.isEmpty ? candidates : application {
            // A frame repeated (recursion, a specialisation above its original) counts once.
            if used.last == candidate.frame { continue }
            used.append(candidate.frame)
            if candidate.isProvisional { isProvisional = true }
            if used.count == CrashFingerprint.frameLimit { break }
        }
        return CrashFingerprint(kind: kind, frames: used, isProvisional: isProvisional)
    }

    /// `fatalError` when the Swift runtime failed the process on purpose (its fatal message, or a check the
    /// compiler inlined as a `Swift runtime failure` frame): the same bug traps by SIGILL on x86_64 and SIGTRAP on
    /// aarch64, with a message in a debug build and without one in a release build. Else the signal's name.
    var fingerprintKind: String {
        let swiftMessage = raw.fatalMessage.map(FingerprintNames.isSwiftRuntimeMessage) ?? false
        if swiftMessage || frames.contains(where: \.isRuntimeFailure) { return "fatalError" }
        return raw.signalName
    }

    /// The crashed thread's frames that may identify the bug, innermost first: those with a module, without the
    /// crash machinery's and the runtime failure path's frames and compiler thunks. A frame is the system's when its
    /// module is a system or toolchain library, or its function the Swift toolchain's (inlined into the
    /// application by an optimised build).
    private func fingerprintCandidates() -> [(frame: CrashFingerprint.Frame, isSystem: Bool, isProvisional: Bool)] {
        var candidates: [(frame: CrashFingerprint.Frame, isSystem: Bool, isProvisional: Bool)] = []
        for frame in frames {
            guard let module = frame.image, !module.isEmpty, let imageOffset = frame.imageOffset else { continue }
            if let function = frame.function {
                if frame.isRuntimeFailure || frame.isThunk || FingerprintNames.isSkipped(function) { continue }
            }
            // Code the compiler made (a `@_cdecl` function's C entry point, which a debug build calls and a release
            // build merges with the function; synthesized conformances) is not where a bug is written.
            if frame.file?.hasSuffix("<compiler-generated>") == true { continue }
            let hasDWARF: Bool
            switch frame.imagePath.flatMap({ debugInfo[$0] }) {
            case .success(let info): hasDWARF = info.source != nil
            default: hasDWARF = false
            }
            let name = frame.function.map(FingerprintNames.normalized)
            let identity: CrashFingerprint.Frame.Identity
            if hasDWARF, let name {
                identity = .function(name)
            } else if frame.isInlined {
                // Names without DWARF come from a symbol table, which knows nothing of inlining.
                continue
            } else if let offset = frame.offset, frame.function != nil {
                // The symbolicator looked a return address up one byte back, and measured from there.
                let looked = imageOffset &- (frame.kind == .programCounter || imageOffset == 0 ? 0 : 1)
                identity = .functionStart(looked &- offset)
            } else {
                identity = .imageOffset(imageOffset)
            }
            let isProvisional: Bool
            if case .function = identity { isProvisional = false } else { isProvisional = true }
            let isSystem = frame.isSystem || frame.function.map(FingerprintNames.isToolchainFunction) == true
            candidates.append((CrashFingerprint.Frame(module: module, identity: identity), isSystem, isProvisional))
        }
        return candidates
    }
}
