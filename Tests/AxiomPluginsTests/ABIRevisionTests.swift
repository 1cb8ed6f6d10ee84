import Axiom
import CAxiomPluginABI
import Foundation
import Testing

@testable import AxiomPlugins

#if canImport(Glibc)
import Glibc
#endif

/// The plugin ABI grows by revisions that only append fields: a plugin built against the first header keeps
/// loading in a host built against today's, and one built against today's header is read with its new fields.
@Suite final class ABIRevisionTests {
    let registry = ErrorRegistry()
    let host: PluginHost
    let directory: FixtureDirectory

    init() throws {
        host = PluginHost(registry: registry)
        directory = try FixtureDirectory()
    }

    deinit { directory.remove() }

    /// FNV-1a 64 of a header without the line that defines its hash, as the header's comment describes.
    static func headerHash(_ path: String) throws -> String {
        let header = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let lines = header.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let marker = Array("#define AXIOM_PLUGIN_ABI_HASH ".utf8)
        let kept = lines.filter { !$0.starts(with: marker) }.map { Array($0) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(kept.joined(separator: [UInt8(ascii: "\n")])) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func theKeptRevision1HeaderIsTheOneTheHostKnows() throws {
        let path = FixtureDirectory.abiRevision1Include + "/axiom_plugin.h"
        let hash = try Self.headerHash(path)
        #expect(DescriptorReader.knownRevisions.first?.revision == 1)
        #expect(DescriptorReader.knownRevisions.first?.hash == hash)
        #expect(DescriptorReader.knownRevisions.last?.hash == AXIOM_PLUGIN_ABI_HASH)
        #expect(DescriptorReader.knownRevisions.last?.revision == AXIOM_PLUGIN_ABI_REVISION)
    }

    @Test func aPluginBuiltAgainstTheRevision1HeaderLoadsWhole() throws {
        // Its code elements are shorter than today's fields, and the bytes after its last field are junk: neither
        // may shift the codes after the first nor read as an HTTP status.
        let path = try directory.plugin(
            "old.so",
            [
                "FIXTURE_ID=\"test.revision1\"", "FIXTURE_DOMAIN=\"rev1\"", "FIXTURE_CODES=5",
                "FIXTURE_DIRTY_PADDING",
            ],
            include: FixtureDirectory.abiRevision1Include)
        let plugin = try host.load(file: path).get()
        #expect(plugin.codeCount == 5)
        for index in 0..<5 {
            let name = String(format: "E%03d", index)
            let descriptor = try #require(registry.descriptor(for: ErrorCode("rev1", name)))
            #expect(descriptor.numericAliases == [1000 + index])
            #expect(descriptor.disposition == (index % 2 == 1 ? .recover : .handle))
            #expect(descriptor.retry?.maxAttempts == (index % 2 == 1 ? 3 : nil))
            #expect(descriptor.httpStatus == nil)
            #expect(descriptor.messageKey == "error.rev1.\(name)")
            #expect(registry.message(forKey: "error.rev1.\(name)", locale: "en") == "Fixture error \(index).")
        }
    }

    @Test func aPluginBuiltAgainstTodaysHeaderCarriesItsHTTPStatus() throws {
        let path = try directory.plugin(
            "new.so",
            [
                "FIXTURE_ID=\"test.revision2\"", "FIXTURE_DOMAIN=\"rev2\"", "FIXTURE_HTTP_STATUS=429",
                "FIXTURE_DIRTY_PADDING",
            ])
        _ = try host.load(file: path).get()
        for index in 0..<3 {
            let descriptor = try #require(registry.descriptor(for: ErrorCode("rev2", String(format: "E%03d", index))))
            #expect(descriptor.httpStatus == 429)
            #expect(descriptor.numericAliases == [1000 + index])
        }
    }

    /// The header says a NULL `message_key` is `error.<category>.<code>`: a C plugin that ships its texts under that
    /// key, built against either revision, loads with them, and a host never reads NULL another way within ABI 1.
    @Test(arguments: [(1, FixtureDirectory.abiRevision1Include), (2, FixtureDirectory.abiInclude)])
    func aNullMessageKeyIsTheCategoryKeyTheHeaderPromises(revision: Int, include: String) throws {
        let domain = "nullkey\(revision)"
        let path = try directory.plugin(
            "nullkey\(revision).so",
            [
                "FIXTURE_ID=\"test.nullkey\(revision)\"", "FIXTURE_DOMAIN=\"\(domain)\"",
                "FIXTURE_CATEGORY=\"network\"", "FIXTURE_NULL_MESSAGE_KEY",
            ],
            include: include)
        let plugin = try host.load(file: path).get()
        #expect(plugin.codeCount == 3)
        for index in 0..<3 {
            let name = String(format: "E%03d", index)
            let code = ErrorCode(domain, name)
            let descriptor = try #require(registry.descriptor(for: code))
            #expect(descriptor.messageKey == "error.network.\(name)")
            #expect(registry.message(forKey: "error.network.\(name)", locale: "en") == "Fixture error \(index).")
            #expect(registry.message(forKey: "error.network.\(name).title", locale: "en") == "Fixture \(index)")
        }
    }

    @Test func aStatusThatIsNoErrorStatusIsRefusedWithItsCode() throws {
        let path = try directory.plugin(
            "ok.so", ["FIXTURE_ID=\"test.okstatus\"", "FIXTURE_DOMAIN=\"okstatus\"", "FIXTURE_HTTP_STATUS=200"])
        guard case .failure(let rejection) = host.load(file: path) else {
            Issue.record("a plugin that answers errors with 200 loaded")
            return
        }
        #expect(rejection.code == .invalidCatalog)
        #expect(rejection.detail.contains("HTTP status 200 of okstatus/E000"))
        #expect(registry.descriptor(for: ErrorCode("okstatus", "E000")) == nil)
    }

    @Test func anUnknownHeaderRevisionIsRefusedNamingTheKnownOnes() throws {
        let path = try directory.plugin(
            "later.so", ["FIXTURE_ID=\"test.later\"", "FIXTURE_ABI_HASH=\"00000000000000ff\""])
        guard case .failure(let rejection) = host.load(file: path) else {
            Issue.record("a plugin built against an unknown header loaded")
            return
        }
        #expect(rejection.code == .fingerprintMismatch)
        #expect(rejection.detail.contains("416c93d4eebb59f1 (revision 1)"))
        #expect(rejection.detail.contains("\(AXIOM_PLUGIN_ABI_HASH) (revision \(AXIOM_PLUGIN_ABI_REVISION))"))
    }

    @Test func theRegistryRefusesADescriptorWithANonErrorStatus() {
        let descriptor = ErrorDescriptor(code: ErrorCode("status", "FINE"), category: .api, httpStatus: 302)
        #expect(throws: RegistrationError.self) {
            try registry.register(ErrorCatalog(source: "test.status", domains: ["status"], descriptors: [descriptor]))
        }
        #expect(registry.descriptor(for: ErrorCode("status", "FINE")) == nil)
    }
}

/// Arrays read with the plugin's element sizes, built in memory: a later revision's larger elements, and sizes
/// that no revision has.
@Suite struct ElementSizeTests {
    func text(_ string: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(string)!) }

    /// Reads a catalog of `count` codes laid out `stride` bytes apart, with the element sizes given.
    func read(count: Int, stride: Int, codeSize: UInt32, status: Int32 = 0) -> Result<ErrorCatalog, PluginCatalogError>
    {
        var descriptor = axiom_plugin_descriptor()
        descriptor.struct_size = UInt32(MemoryLayout<axiom_plugin_descriptor>.size)
        descriptor.abi_version = AXIOM_PLUGIN_ABI_VERSION
        descriptor.fingerprint = axiom_plugin_fingerprint(
            abi_hash: text(AXIOM_PLUGIN_ABI_HASH), toolchain: text("C test"), language: AXIOM_PLUGIN_LANGUAGE_C)
        let domains = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)
        domains.initialize(to: text("sized"))
        descriptor.catalog.domains = UnsafePointer(domains)
        descriptor.catalog.domain_count = 1
        descriptor.code_size = codeSize
        // Elements `stride` apart; the bytes between them (a later revision's fields) are 0xEE.
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: max(1, count) * stride, alignment: MemoryLayout<axiom_plugin_code>.alignment)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xEE, count: max(1, count) * stride)
        for index in 0..<count {
            var code = axiom_plugin_code()
            code.domain = text("sized")
            code.code = text("C\(index)")
            code.category = text("api")
            code.severity = text("error")
            code.disposition = text("escalate")
            code.http_status = status + Int32(index)
            withUnsafeBytes(of: &code) { bytes in
                (buffer + index * stride).copyMemory(
                    from: bytes.baseAddress!, byteCount: MemoryLayout<axiom_plugin_code>.size)
            }
        }
        descriptor.catalog.codes = UnsafePointer(buffer.assumingMemoryBound(to: axiom_plugin_code.self))
        descriptor.catalog.code_count = count
        return DescriptorReader.catalog(descriptor, id: "test.sized", version: "1")
    }

    @Test func aLaterRevisionsLargerCodesAreWalkedWithTheirOwnStride() throws {
        let stride = MemoryLayout<axiom_plugin_code>.stride + 24
        let catalog = try read(count: 4, stride: stride, codeSize: UInt32(stride), status: 500).get()
        #expect(catalog.descriptors.map(\.code.code) == ["C0", "C1", "C2", "C3"])
        #expect(catalog.descriptors.map(\.httpStatus) == [500, 501, 502, 503])
    }

    @Test func elementSizesNoRevisionHasAreRefused() {
        for size: UInt32 in [8, 104, 1 << 20] {
            let result = read(count: 1, stride: MemoryLayout<axiom_plugin_code>.stride, codeSize: size)
            guard case .failure(let error) = result else {
                Issue.record("code_size \(size) was accepted")
                continue
            }
            #expect(error.reason == .invalidCatalog)
            #expect(error.detail.contains("code_size is \(size) bytes"))
        }
    }

    @Test func zeroSizesMeanTheSizesOfTheHeaderThePluginNames() throws {
        let catalog = try read(count: 2, stride: MemoryLayout<axiom_plugin_code>.stride, codeSize: 0, status: 404).get()
        #expect(catalog.descriptors.map(\.httpStatus) == [404, 405])
    }
}

/// A host registers `axiom.plugins`, so a refusal handed to a pipeline is decided with its own code and texts.
@Suite struct PluginRejectionDomainTests {
    @Test func everyReasonIsRegisteredWithItsTexts() {
        let registry = ErrorRegistry()
        _ = PluginHost(registry: registry)
        _ = PluginHost(registry: registry)  // a second host on the same registry registers nothing twice
        #expect(registry.source(ofDomain: PluginRejection.domain) == PluginRejection.domain)
        #expect(PluginRejection.builtinDomain.problems(samples: PluginRejection.samples, in: registry) == [])
        let refusal = PluginRejection.refused(.domainClash, path: "/x.so", detail: "nwc is owned by …")
        let decided = registry.resolve(refusal)
        #expect(decided.identity.code == ErrorCode("axiom.plugins", "domainClash"))
        #expect(decided.descriptor.category == .configuration)
    }
}
