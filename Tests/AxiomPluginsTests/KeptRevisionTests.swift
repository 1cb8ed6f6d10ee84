import Axiom
import CAxiomPluginABI
import Foundation
import Testing

@testable import AxiomPlugins

/// The plugin ABI's promise for all of version 1: a plugin built against any kept revision of the header
/// (`Tests/PluginFixtures/abi-revision-N`, each as it shipped) loads in today's host with the same catalog, texts and
/// descriptors as the same plugin built against today's header, whether its message keys are given or NULL.
@Suite struct KeptRevisionTests {
    /// Every kept revision's include folder, oldest first.
    static let revisions: [String] = {
        let folder = FixtureDirectory.repository + "/Tests/PluginFixtures"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix("abi-revision-") }
            .sorted { Int($0.dropFirst("abi-revision-".count)) ?? 0 < Int($1.dropFirst("abi-revision-".count)) ?? 0 }
            .map { folder + "/" + $0 }
    }()

    /// A descriptor's fields and texts as plain values, to compare two registries.
    struct Seen: Equatable {
        let code: ErrorCode
        let fields: String
        let texts: [String?]
    }

    /// Loads the fixture built against `include` into a registry of its own, and reads back every code.
    func load(include: String, defines: [String], in directory: FixtureDirectory, as name: String) throws -> [Seen] {
        let registry = ErrorRegistry()
        let host = PluginHost(registry: registry)
        let path = try directory.plugin(name, defines, include: include)
        let plugin = try host.load(file: path).get()
        return try (0..<5).map { index in
            let code = ErrorCode("kept", String(format: "E%03d", index))
            let descriptor = try #require(registry.descriptor(for: code))
            let fields =
                "\(descriptor.numericAliases) \(descriptor.category) \(descriptor.severity) \(descriptor.disposition) "
                + "\(String(describing: descriptor.retry)) \(descriptor.messageKey) "
                + "\(String(describing: descriptor.recoverySuggestionKey)) \(descriptor.isSensitive) "
                + "\(plugin.codeCount)"
            let texts = [descriptor.messageKey, descriptor.messageKey + ".title"].map {
                registry.message(forKey: $0, locale: "en")
            }
            return Seen(code: code, fields: fields, texts: texts)
        }
    }

    @Test func everyRevisionIsKept() {
        #expect(Self.revisions.count == Int(AXIOM_PLUGIN_ABI_REVISION))
        #expect(Self.revisions.count == DescriptorReader.knownRevisions.count)
    }

    @Test(arguments: [false, true])
    func aPluginBuiltAgainstAnyKeptRevisionLoadsAsTodays(nullMessageKeys: Bool) throws {
        let directory = try FixtureDirectory()
        defer { directory.remove() }
        let defines =
            ["FIXTURE_ID=\"test.kept\"", "FIXTURE_DOMAIN=\"kept\"", "FIXTURE_CODES=5", "FIXTURE_CATEGORY=\"network\""]
            + (nullMessageKeys ? ["FIXTURE_NULL_MESSAGE_KEY"] : [])
        let today = try load(include: FixtureDirectory.abiInclude, defines: defines, in: directory, as: "today.so")
        #expect(today.allSatisfy { $0.texts.allSatisfy { $0 != nil } })
        for (index, include) in Self.revisions.enumerated() {
            let kept = try load(include: include, defines: defines, in: directory, as: "revision\(index + 1).so")
            #expect(kept == today, "a plugin built against revision \(index + 1) loads differently")
        }
    }
}
