import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// Every bad file is refused with its own reason, the host keeps running, and nothing of a refused catalog is
/// registered.
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
        #expect(refusal(directory.file("absent.so"))?.reason == .notFound)
    }

    @Test func aTextFileNamedSoIsNotELF() throws {
        let path = try directory.write("notes.so", Array("just some text\n".utf8))
        #expect(refusal(path)?.reason == .notELF)
    }

    @Test func anEmptyFileIsNotELF() throws {
        let path = try directory.write("empty.so", [])
        #expect(refusal(path)?.reason == .notELF)
    }

    @Test func anELF32IsTheWrongClass() throws {
        let path = try directory.write("elf32.so", FixtureDirectory.elfHeader(class: 1, machine: 3))
        #expect(refusal(path)?.reason == .wrongClass)
    }

    @Test func anAarch64ObjectIsTheWrongArchitecture() throws {
        let path = try directory.write("arm64.so", FixtureDirectory.elfHeader(class: 2, machine: 183))
        let rejection = try #require(refusal(path))
        #expect(rejection.reason == .wrongArchitecture)
        #expect(rejection.detail.contains("aarch64"))
    }

    @Test func anExecutableIsNotASharedObject() throws {
        let path = try directory.write("program.so", FixtureDirectory.elfHeader(class: 2, machine: 62, type: 2))
        #expect(refusal(path)?.reason == .notSharedObject)
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
        #expect(refusal(directory.file("stripped-plain.so"))?.reason == .missingEntrySymbol)
    }

    @Test func sectionHeadersOutsideTheFileAreMalformed() throws {
        var header = FixtureDirectory.elfHeader(class: 2, machine: 62)
        header[40] = 0x00  // e_shoff = 0x10000, far beyond the 64-byte file
        header[41] = 0x00
        header[42] = 0x01
        header[58] = 64  // e_shentsize
        header[60] = 3  // e_shnum
        let path = try directory.write("truncated.so", header)
        #expect(refusal(path)?.reason == .malformedELF)
    }

    @Test func aSharedObjectWithoutTheEntryIsRefused() throws {
        let path = try directory.plugin("libplain.so", ["FIXTURE_NO_ENTRY"])
        #expect(refusal(path)?.reason == .missingEntrySymbol)
    }

    @Test func anABIVersionMismatchIsRefused() throws {
        let path = try directory.plugin("v2.so", ["FIXTURE_ABI_VERSION=2"])
        let rejection = try #require(refusal(path))
        #expect(rejection.reason == .abiVersionMismatch)
        #expect(rejection.detail.contains("2"))
    }

    @Test func aFingerprintMismatchIsRefused() throws {
        let path = try directory.plugin("old.so", ["FIXTURE_ABI_HASH=\"0123456789abcdef\""])
        let rejection = try #require(refusal(path))
        #expect(rejection.reason == .fingerprintMismatch)
        #expect(rejection.detail.contains("0123456789abcdef"))
    }

    @Test func aFailedInitIsRefusedWithItsMessage() throws {
        let path = try directory.plugin("broken.so", ["FIXTURE_FAIL_INIT"])
        let rejection = try #require(refusal(path))
        #expect(rejection.reason == .initFailed)
        #expect(rejection.detail.contains("configuration file is missing"))
    }

    @Test func anUnknownCategoryIsAnInvalidCatalog() throws {
        let path = try directory.plugin("odd.so", ["FIXTURE_CATEGORY=\"weather\""])
        let rejection = try #require(refusal(path))
        #expect(rejection.reason == .invalidCatalog)
        #expect(rejection.detail.contains("weather"))
    }

    @Test func aDomainClashRegistersNothingOfTheClashingCatalog() throws {
        let first = try directory.plugin("a.so", ["FIXTURE_ID=\"test.a\"", "FIXTURE_DOMAIN=\"shared\""])
        let second = try directory.plugin(
            "b.so", ["FIXTURE_ID=\"test.b\"", "FIXTURE_DOMAIN=\"fresh\"", "FIXTURE_DOMAIN2=\"shared\""])
        _ = try host.load(file: first).get()
        let rejection = try #require(refusal(second))
        #expect(rejection.reason == .domainClash)
        #expect(rejection.detail.contains("test.a") && rejection.detail.contains("test.b"))
        #expect(registry.source(ofDomain: "fresh") == nil)
        #expect(registry.descriptor(for: ErrorCode("fresh", "E000")) == nil)
        #expect(registry.source(ofDomain: "shared") == "test.a")
        #expect(registry.catalogs.map(\.source) == ["builtin", "test.a"])
    }

    @Test func aDuplicatePluginIDIsRefused() throws {
        let first = try directory.plugin("one.so", ["FIXTURE_ID=\"test.same\"", "FIXTURE_DOMAIN=\"one\""])
        let second = try directory.plugin("two.so", ["FIXTURE_ID=\"test.same\"", "FIXTURE_DOMAIN=\"two\""])
        _ = try host.load(file: first).get()
        #expect(refusal(second)?.reason == .duplicatePluginID)
        #expect(registry.source(ofDomain: "two") == nil)
    }

    @Test func theSameFileThroughASymlinkLoadsOnce() throws {
        let path = try directory.plugin("real.so")
        #expect(symlink(path, directory.file("alias.so")) == 0)
        #expect(link(path, directory.file("hard.so")) == 0)
        _ = try host.load(file: path).get()
        #expect(refusal(directory.file("alias.so"))?.reason == .duplicateFile)
        let hard = try #require(refusal(directory.file("hard.so")))
        #expect(hard.reason == .duplicateFile)
        #expect(hard.detail.contains(path))
        #expect(host.loaded.count == 1)
    }

    @Test func aWorldWritableFileIsRefused() throws {
        let path = try directory.plugin("open.so")
        chmod(path, 0o757)
        #expect(refusal(path)?.reason == .fileWritableByOthers)
        chmod(path, 0o775)
        #expect(refusal(path)?.reason == .fileWritableByOthers)
    }

    @Test func aWorldWritableDirectoryIsRefused() throws {
        let path = try directory.plugin("inside.so")
        chmod(directory.path, 0o777)
        defer { chmod(directory.path, 0o700) }
        let rejection = try #require(refusal(path))
        #expect(rejection.reason == .directoryWritableByOthers)
        #expect(registry.catalogs.count == 1)
    }

    @Test func aFIFOIsNotARegularFileAndDoesNotBlock() throws {
        let fifo = directory.file("pipe.so")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(refusal(fifo)?.reason == .notRegularFile)
    }

    @Test func aDirectoryIsNotARegularFile() throws {
        let inner = directory.file("sub.so")
        #expect(mkdir(inner, 0o700) == 0)
        #expect(refusal(inner)?.reason == .notRegularFile)
    }
}
