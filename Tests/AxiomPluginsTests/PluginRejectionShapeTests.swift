import Axiom
import Foundation
import Testing

@testable import AxiomPlugins

@Suite("PluginRejection's shape")
struct PluginRejectionShapeTests {
    @Test("a factory gives its code, its identity and where it was called")
    func factoryGivesCodeIdentityAndThrowSite() {
        let line: UInt = #line + 1
        let rejection = PluginRejection.refused(.notAPlugin, path: "/p/x.so", detail: "bad magic")
        #expect(rejection.code == .notAPlugin)
        #expect(rejection.errorCode == ErrorCode("axiom.plugins", "notAPlugin"))
        #expect(rejection.description == "/p/x.so: notAPlugin: bad magic")
        #expect(rejection.throwSite.file == #fileID)
        #expect(rejection.throwSite.line == line)
    }

    @Test("the host's refusal records the loader's file")
    func hostRefusalRecordsTheLoader() {
        guard case .failure(let rejection) = PluginHost(registry: ErrorRegistry()).load(file: "/nonexistent/x.so")
        else {
            Issue.record("a missing file was loaded")
            return
        }
        #expect(rejection.code == .notFound)
        #expect(rejection.throwSite.file.hasPrefix("AxiomPlugins/"))
    }

    @Test("every code is in Code.all once, and the catalog has one code per entry, in order")
    func everyCodeListed() {
        let names = PluginRejection.Code.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(PluginRejection.builtinDomain.codes.map(\.code) == names)
        #expect(PluginRejection.Code(named: "domainClash") == .domainClash)
        #expect(PluginRejection.Code(named: "nope") == nil)
    }
}
