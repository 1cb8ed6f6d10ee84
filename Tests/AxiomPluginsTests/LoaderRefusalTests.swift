import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// Every bad file is refused with its reason and a detail that names the check it failed, the host keeps running,
/// and nothing of a refused catalog is registered.
@Suite final class LoaderRefusalTests {
    let registry = ErrorRegistry()
    let host: PluginHost
    let directory: FixtureDirectory

    init() throws {
        host = PluginHost(registry: registry)
        directory = try FixtureDirectory()
    }

    // Loaded files stay mapped (RTLD_NODELETE); removing their directory entries is harmless.
    deinit { directory.remove() }

    func refusal(_ path: String) -> PluginRejection? {
        if case .failure(let rejection) = host.load(file: path) { return rejection }
        return nil
    }

    @Test func aGoodFixtureLoadsAndRegisters() throws {
        let path = try directory.plugin("good.so", ["FIXTURE_ID=\"test.good\"", "FIXTURE_DOMAIN=\"good\""])
        let plugin = try host.load(file: path).get()
        #expect(plugin.id == "test.good")
        #expect(plugin.domains == ["good"])
        #expect(plugin.codeCount == 3)
        let descriptor = try #require(registry.descriptor(for: ErrorCode("good", "E001")))
        #expect(descriptor.source == "test.good")
        #expect(descriptor.disposition == .recover)
        #expect(registry.descriptor(for: ErrorCode("good", "1001")) === descriptor)
        #expect(registry.message(forKey: "error.good.E001.title", locale: "en") == "Fixture 1")
    }

    @Test func aMissingFileIsNotFound() {
        #expect(refusal(directory.file("absent.so"))?.code == .notFound)
    }

    /// Refused as `code`, with a detail that starts with `detail`: which check failed.
    func expectRefusal(_ path: String, _ code: PluginRejection.Code, detail: String) throws {
        let rejection = try #require(refusal(path))
        #expect(rejection.code == code)
        #expect(rejection.detail.hasPrefix(detail), "\(rejection.detail)")
    }

    @Test func aTextFileNamedSoIsNotELF() throws {
        let path = try directory.write("notes.so", Array("just some text\n".utf8))
        try expectRefusal(path, .notAPlugin, detail: "not an ELF file: no ELF magic")
    }

    @Test func anEmptyFileIsNotELF() throws {
        let path = try directory.write("empty.so", [])
        try expectRefusal(path, .notAPlugin, detail: "not an ELF file: no ELF magic")
    }

    @Test func anELF32IsTheWrongClass() throws {
        let path = try directory.write("elf32.so", FixtureDirectory.elfHeader(class: 1, machine: 3))
        #expect(refusal(path)?.code == .wrongPlatform)
    }

    @Test func anELF32SaysWhichClassTheHostLoads() throws {
        let path = try directory.write("elf32-words.so", FixtureDirectory.elfHeader(class: 1, machine: 3))
        #expect(refusal(path)?.detail == "ELF32; this host loads ELF64")
    }

    @Test func aBigEndianELFIsTheWrongByteOrder() throws {
        var header = FixtureDirectory.elfHeader(class: 2, machine: 62)
        header[5] = 2
        let rejection = try #require(refusal(try directory.write("big-endian.so", header)))
        #expect(rejection.code == .wrongPlatform)
        #expect(rejection.detail == "big-endian ELF; this host is little-endian")
    }

    @Test func anELFHeaderCutShortIsMalformed() throws {
        let header = FixtureDirectory.elfHeader(class: 2, machine: 62)
        let rejection = try #require(refusal(try directory.write("cut.so", Array(header.prefix(20)))))
        #expect(rejection.code == .notAPlugin)
        #expect(rejection.detail == "malformed ELF: the ELF header is cut short (20 bytes)")
    }

    @Test func anAarch64ObjectIsTheWrongArchitecture() throws {
        let path = try directory.write("arm64.so", FixtureDirectory.elfHeader(class: 2, machine: 183))
        let rejection = try #require(refusal(path))
        #expect(rejection.code == .wrongPlatform)
        #expect(rejection.detail.hasPrefix("ELF for aarch64 (machine 183); this host is "), "\(rejection.detail)")
    }

    @Test func anExecutableIsNotASharedObject() throws {
        let path = try directory.write("program.so", FixtureDirectory.elfHeader(class: 2, machine: 62, type: 2))
        try expectRefusal(path, .notAPlugin, detail: "the file is an executable, not a shared library")
    }

    @Test func pluginsWithoutSectionHeadersAreReadThroughPTDynamic() throws {
        // Zero e_shoff, e_shnum and e_shstrndx: the dynamic loader never needs section headers.
        for (name, defines) in [
            ("stripped.so", ["FIXTURE_ID=\"test.stripped\"", "FIXTURE_DOMAIN=\"stripped\""]),
            ("stripped-plain.so", ["FIXTURE_NO_ENTRY"]),
        ] {
            let path = try directory.plugin(name, defines)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for offset in [40, 41, 42, 43, 44, 45, 46, 47, 60, 61, 62, 63] { bytes[offset] = 0 }
            try directory.write(name, bytes)
            chmod(path, 0o755)
        }
        #expect(try host.load(file: directory.file("stripped.so")).get().id == "test.stripped")
        try expectRefusal(
            directory.file("stripped-plain.so"), .notAPlugin, detail: "axiom_plugin_entry_v1 is not exported")
    }

    @Test func sectionHeadersOutsideTheFileAreMalformed() throws {
        var header = FixtureDirectory.elfHeader(class: 2, machine: 62)
        header[40] = 0x00  // e_shoff = 0x10000, far beyond the 64-byte file
        header[41] = 0x00
        header[42] = 0x01
        header[58] = 64  // e_shentsize
        header[60] = 3  // e_shnum
        let path = try directory.write("truncated.so", header)
        try expectRefusal(path, .notAPlugin, detail: "malformed ELF: the section headers lie past the end of the file")
    }

    /// A fixture with its section headers dropped (e_shoff = 0), so the loader reads the symbols through
    /// PT_DYNAMIC and the program headers, which `patch` then corrupts.
    func strippedFixture(_ name: String, _ patch: (inout [UInt8]) throws -> Void) throws -> String {
        let path = try directory.plugin(name, ["FIXTURE_ID=\"test.\(name.prefix { $0 != "." })\""])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.setU64(at: 40, 0)
        try patch(&bytes)
        try directory.write(name, bytes)
        chmod(path, 0o755)
        return path
    }

    /// Refused with a reason and a detail, and the host still loads a good plugin afterwards.
    func expectMalformedAndHostAlive(_ path: String, _ name: String) throws {
        let rejection = try #require(refusal(path))
        #expect(rejection.code == .notAPlugin)
        #expect(rejection.path == path)
        #expect(rejection.description.contains(name) && rejection.detail.hasPrefix("malformed ELF: "))
        let good = try directory.plugin("after-\(name)", ["FIXTURE_ID=\"test.after\"", "FIXTURE_DOMAIN=\"after\""])
        #expect(try host.load(file: good).get().id == "test.after")
    }

    @Test func aPTLoadOffsetOfAllOnesIsMalformedNotATrap() throws {
        // Once trapped: address - p_vaddr + p_offset overflowed while translating DT_SYMTAB to a file offset.
        let path = try strippedFixture("all-ones.so") { bytes in
            let load = try #require(bytes.programHeaders.first { bytes.u32(at: $0) == 1 })
            bytes.setU64(at: load + 8, 0xFFFF_FFFF_FFFF_FFFF)
        }
        try expectMalformedAndHostAlive(path, "all-ones.so")
    }

    @Test func aSymbolTableNearTheTopOfTheOffsetsIsMalformedNotATrap() throws {
        // Once trapped: symtab + index * 24 overflowed. A PT_LOAD put first that covers DT_SYMTAB alone maps the
        // table to Int.max - 8, while DT_STRTAB and DT_GNU_HASH stay readable through the real segments, so the
        // hash lookup reaches the symbol at its (nonzero) index.
        let path = try strippedFixture("high-symtab.so") { bytes in
            let headers = bytes.programHeaders
            let dynamic = try #require(headers.first { bytes.u32(at: $0) == 2 })
            let entries = Int(bytes.u64(at: dynamic + 8))
            let symtab = try #require(
                stride(from: entries, to: entries + Int(bytes.u64(at: dynamic + 32)), by: 16).first {
                    bytes.u64(at: $0) == 6
                }.map { bytes.u64(at: $0 + 8) })
            let spare = try #require(headers.first { bytes.u32(at: $0) == 0x6474_E551 })  // PT_GNU_STACK
            let first = headers[0]
            let original = Array(bytes[first..<(first + 56)])
            bytes.setU32(at: first, 1)  // PT_LOAD
            bytes.setU64(at: first + 8, UInt64(Int.max) - 8)  // p_offset
            bytes.setU64(at: first + 16, symtab)  // p_vaddr
            bytes.setU64(at: first + 32, 1)  // p_filesz
            bytes.setU64(at: first + 40, 1)  // p_memsz
            bytes.replaceSubrange(spare..<(spare + 56), with: original)
        }
        try expectMalformedAndHostAlive(path, "high-symtab.so")
    }

    @Test func aSharedObjectWithoutTheEntryIsRefused() throws {
        let path = try directory.plugin("libplain.so", ["FIXTURE_NO_ENTRY"])
        try expectRefusal(path, .notAPlugin, detail: "axiom_plugin_entry_v1 is not exported")
    }

    @Test func anABIVersionMismatchIsRefused() throws {
        let path = try directory.plugin("v2.so", ["FIXTURE_ABI_VERSION=2"])
        try expectRefusal(path, .incompatibleABI, detail: "plugin speaks ABI version 2; this host speaks 1")
    }

    @Test func aFingerprintMismatchIsRefused() throws {
        let path = try directory.plugin("old.so", ["FIXTURE_ABI_HASH=\"0123456789abcdef\""])
        let rejection = try #require(refusal(path))
        #expect(rejection.code == .fingerprintMismatch)
        #expect(rejection.detail.contains("0123456789abcdef"))
    }

    @Test func aFailedInitIsRefusedWithItsMessage() throws {
        let path = try directory.plugin("broken.so", ["FIXTURE_FAIL_INIT"])
        let rejection = try #require(refusal(path))
        #expect(rejection.code == .initFailed)
        #expect(rejection.detail.contains("configuration file is missing"))
    }

    @Test func anUnknownCategoryIsAnInvalidCatalog() throws {
        let path = try directory.plugin("odd.so", ["FIXTURE_CATEGORY=\"weather\""])
        let rejection = try #require(refusal(path))
        #expect(rejection.code == .invalidCatalog)
        #expect(rejection.detail.contains("weather"))
    }

    @Test func aDomainClashRegistersNothingOfTheClashingCatalog() throws {
        let first = try directory.plugin("a.so", ["FIXTURE_ID=\"test.a\"", "FIXTURE_DOMAIN=\"shared\""])
        let second = try directory.plugin(
            "b.so", ["FIXTURE_ID=\"test.b\"", "FIXTURE_DOMAIN=\"fresh\"", "FIXTURE_DOMAIN2=\"shared\""])
        _ = try host.load(file: first).get()
        let rejection = try #require(refusal(second))
        #expect(rejection.code == .domainClash)
        #expect(rejection.detail.contains("test.a") && rejection.detail.contains("test.b"))
        #expect(registry.source(ofDomain: "fresh") == nil)
        #expect(registry.descriptor(for: ErrorCode("fresh", "E000")) == nil)
        #expect(registry.source(ofDomain: "shared") == "test.a")
        #expect(registry.catalogs.map(\.source) == ["builtin", PluginRejection.domain, "test.a"])
    }

    @Test func aDuplicatePluginIDIsRefused() throws {
        let first = try directory.plugin("one.so", ["FIXTURE_ID=\"test.same\"", "FIXTURE_DOMAIN=\"one\""])
        let second = try directory.plugin("two.so", ["FIXTURE_ID=\"test.same\"", "FIXTURE_DOMAIN=\"two\""])
        _ = try host.load(file: first).get()
        #expect(refusal(second)?.code == .duplicatePluginID)
        #expect(registry.source(ofDomain: "two") == nil)
    }

    @Test func theSameFileThroughASymlinkLoadsOnce() throws {
        let path = try directory.plugin("real.so")
        #expect(symlink(path, directory.file("alias.so")) == 0)
        #expect(link(path, directory.file("hard.so")) == 0)
        _ = try host.load(file: path).get()
        #expect(refusal(directory.file("alias.so"))?.code == .duplicateFile)
        let hard = try #require(refusal(directory.file("hard.so")))
        #expect(hard.code == .duplicateFile)
        #expect(hard.detail.contains(path))
        #expect(host.loaded.count == 1)
    }

    @Test func aWorldWritableFileIsRefused() throws {
        let path = try directory.plugin("open.so")
        chmod(path, 0o757)
        try expectRefusal(path, .unsafePermissions, detail: "the file is writable by everyone (mode 757)")
        chmod(path, 0o775)
        try expectRefusal(path, .unsafePermissions, detail: "the file is writable by its group (mode 775)")
    }

    @Test func aWorldWritableDirectoryIsRefused() throws {
        let path = try directory.plugin("inside.so")
        chmod(directory.path, 0o777)
        defer { chmod(directory.path, 0o700) }
        let rejection = try #require(refusal(path))
        #expect(rejection.code == .unsafePermissions)
        #expect(rejection.detail.hasPrefix("the plugin's folder "), "\(rejection.detail)")
        #expect(
            rejection.detail.hasSuffix(" is writable by its group and by everyone (mode 777)"), "\(rejection.detail)")
        #expect(registry.catalogs.map(\.source) == ["builtin", PluginRejection.domain])
    }

    @Test func aFIFOIsNotARegularFileAndDoesNotBlock() throws {
        let fifo = directory.file("pipe.so")
        #expect(mkfifo(fifo, 0o600) == 0)
        try expectRefusal(fifo, .unreadable, detail: "not a regular file: a FIFO")
    }

    @Test func aDirectoryIsNotARegularFile() throws {
        let inner = directory.file("sub.so")
        #expect(mkdir(inner, 0o700) == 0)
        try expectRefusal(inner, .unreadable, detail: "not a regular file: a directory")
    }
}

extension [UInt8] {
    // Little-endian fields of an ELF64 file, for patching fixtures.
    func u32(at offset: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[offset + $1]) << (8 * $1) } }
    func u64(at offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[offset + $1]) << (8 * $1) } }
    mutating func setU32(at offset: Int, _ value: UInt32) {
        for index in 0..<4 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
    mutating func setU64(at offset: Int, _ value: UInt64) {
        for index in 0..<8 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
    /// The file offsets of the program headers (e_phoff, e_phentsize, e_phnum).
    var programHeaders: [Int] {
        let phoff = Int(u64(at: 32))
        let size = Int(self[54]) | Int(self[55]) << 8
        let count = Int(self[56]) | Int(self[57]) << 8
        return (0..<count).map { phoff + $0 * size }
    }
}
