import Axiom
import AxiomSymbolication
import Testing

@testable import AxiomCrash

/// The crash reporter's and the symbolicator's errors are identified under `axiom.crash` and
/// `axiom.symbolication`, each code registered with its fate and texts, from the declarations alone.
@Suite("Crash error domains")
struct CrashErrorDomainTests {
    @Test func everyErrorTheTypesThrowIsRegisteredWithItsTexts() throws {
        let registry = ErrorRegistry()
        try CrashErrorDomains.register(in: registry)
        try CrashErrorDomains.register(in: registry)  // idempotent
        for (domain, errors) in CrashErrorDomains.samples {
            #expect(registry.source(ofDomain: domain.name) == domain.name)
            #expect(domain.problems(samples: errors, in: registry) == [], "\(domain.name)")
        }
        let decided = registry.resolve(RawReportError.notAReport())
        #expect(decided.identity.code == ErrorCode("axiom.crash", "notAReport"))
        let malformed = registry.resolve(RawReportError.malformed(headerLength: 40))
        #expect(malformed.identity.code == ErrorCode("axiom.crash", "malformed"))
        #expect(decided.descriptor.category == .storage)
        #expect(decided.descriptor.disposition == .handle)
    }

    @Test func aSymbolicationErrorIsIdentifiedByItsCode() throws {
        let registry = ErrorRegistry()
        try CrashErrorDomains.register(in: registry)
        let error = SymbolicationError.dwarf("/x", "reading", "bad")
        #expect(CrashErrorDomains.errorCode(of: error) == ErrorCode("axiom.symbolication", "dwarfError"))
        #expect(registry.resolve(error).identity.code == ErrorCode("axiom.symbolication", "dwarfError"))
        #expect(
            CrashErrorDomains.symbolication.codes.map(\.code) == SymbolicationError.Code.all.map(\.name))
    }

    @Test func aDomainNameTakenByAnotherSourceIsRefusedNotReplaced() throws {
        let registry = ErrorRegistry()
        let squatter = ErrorDescriptor(code: ErrorCode("axiom.crash", "X"), category: .general)
        try registry.register(
            ErrorCatalog(source: "org.example.squat", domains: ["axiom.crash"], descriptors: [squatter]))
        #expect(throws: RegistrationError.self) { try CrashErrorDomains.register(in: registry) }
        #expect(registry.source(ofDomain: "axiom.crash") == "org.example.squat")
    }
}
