import Axiom
import Foundation
import Testing

@Suite("Registry")
struct RegistryTests {
    static func paymentsCatalog(source: String = "com.example.payments", domain: String = "payments") -> ErrorCatalog {
        ErrorCatalog(
            source: source, domains: [domain],
            descriptors: [
                ErrorDescriptor(code: ErrorCode(domain, "DECLINED"), numericCode: 402, category: .api),
                ErrorDescriptor(
                    code: ErrorCode(domain, "BUSY"), numericCode: 503, category: .network, disposition: .recover,
                    retry: RetryPolicy(maxAttempts: 3, backoff: .constant, delay: .seconds(2))),
            ],
            messages: ["en": ["error.\(domain).DECLINED": "Declined."]])
    }

    @Test("the built-in domains are present from the start, with descriptions and recovery suggestions")
    func builtinCatalog() throws {
        let registry = ErrorRegistry()
        for error in [
            ClientError.invalidState.errorCode, ContextError.stateObservationFailed.errorCode,
            CapabilityError.validationTimeout.errorCode, AxiomError.configurationError("x").errorCode,
        ] {
            let descriptor = try #require(registry.descriptor(for: error))
            #expect(descriptor.source == "builtin")
            #expect(registry.message(forKey: descriptor.messageKey, locale: "en")?.isEmpty == false)
            let recoveryKey = try #require(descriptor.recoverySuggestionKey)
            #expect(registry.message(forKey: recoveryKey, locale: "en")?.isEmpty == false)
        }
        #expect(registry.source(ofDomain: "axiom.capability") == "builtin")
        #expect(ClientError.invalidState.recoverySuggestion?.isEmpty == false)
        #expect(
            CapabilityError.requirementNotMet(.init(capability: "storage", detail: "100 MB free"))
                .errorDescription?.contains("storage") == true)
    }

    @Test("an error envelope is identified and described as the error it carries, through nested envelopes")
    func envelopesAreTransparent() throws {
        struct Wrapped: ErrorEnvelope {
            let enclosedError: any Error
        }
        let registry = ErrorRegistry()
        let inner = ClientError.concurrencyViolation
        let twice = Wrapped(enclosedError: Wrapped(enclosedError: inner))
        #expect(registry.identity(of: twice).code == inner.errorCode)
        #expect(registry.descriptor(for: twice).code == inner.errorCode)
        #expect(registry.resolve(twice).descriptor.disposition == .recover)
        // A pipeline decides an envelope as what it carries.
        let pipeline = ErrorPipeline(
            layer: .application, escalatesTo: nil,
            configuration: PipelineConfiguration(registry: registry, observers: [])
        ) {
            Recover(.code(inner.errorCode), .fallback(7))
        }
        let outcome = try pipeline.decide(twice, operation: "wrapped")
        #expect(outcome.disposition == .recover)
        #expect(outcome.event?.code == inner.errorCode)
        // The envelope's own type is never registered as a code of its own.
        #expect(
            registry.identity(of: Wrapped(enclosedError: CancellationError())).code == ErrorCatalog.cancellationCode)
    }

    @Test("a Swift error value is identified by its type's code")
    func lookupByErrorValue() {
        let registry = ErrorRegistry()
        let descriptor = registry.descriptor(for: ClientError.updateFailed(underlying: CancellationError()))
        #expect(descriptor.code == ErrorCode("axiom.client", "updateFailed"))
        #expect(descriptor.disposition == .recover)
        // Same type, another case: the per-type cache must not pin the first case's code.
        #expect(registry.descriptor(for: ClientError.invalidState).code.code == "invalidState")
    }

    @Test("CancellationError is known and ignored by default")
    func cancellationIsKnown() {
        let descriptor = ErrorRegistry().descriptor(for: CancellationError())
        #expect(descriptor.code == ErrorCatalog.cancellationCode)
        #expect(descriptor.disposition == .ignore)
        #expect(descriptor.category == .cancellation)
    }

    @Test("an error the registry cannot identify gets the unknown descriptor and keeps its type name")
    func unknownError() {
        struct Mystery: Error {}
        let registry = ErrorRegistry()
        #expect(registry.descriptor(for: Mystery()).code == ErrorCatalog.unknownCode)
        #expect(registry.identity(of: Mystery()).code.code.contains("Mystery"))
    }

    @Test("a foreign error type can be taught its identity")
    func foreignErrors() {
        struct VendorError: Error { let status: Int }
        let registry = ErrorRegistry()
        registry.registerIdentity(of: VendorError.self) { ErrorCode("axiom", $0.status == 500 ? "unknownError" : "x") }
        #expect(registry.descriptor(for: VendorError(status: 500)).code == ErrorCatalog.unknownCode)
    }

    @Test("lookups work by code, by numeric alias, and for domain errors that arrive as data")
    func aliases() throws {
        let registry = ErrorRegistry()
        try registry.register(Self.paymentsCatalog())
        let byName = try #require(registry.descriptor(for: ErrorCode("payments", "BUSY")))
        #expect(registry.descriptor(domain: "payments", numericCode: 503) === byName)
        #expect(registry.descriptor(for: ErrorCode("payments", "503")) === byName)
        #expect(registry.descriptor(for: DomainError(domain: "payments", numericCode: 503)) === byName)
        #expect(registry.descriptor(for: DomainError(domain: "payments", code: "BUSY")) === byName)
        #expect(byName.source == "com.example.payments")
    }

    @Test("a domain owned by another source is refused, naming both sources, and nothing of it is registered")
    func domainClash() throws {
        let registry = ErrorRegistry()
        try registry.register(Self.paymentsCatalog())
        var clashing = Self.paymentsCatalog(source: "org.other.plugin")
        clashing.domains.append("other")
        clashing.descriptors.append(ErrorDescriptor(code: ErrorCode("other", "X"), category: .general))
        let error = #expect(throws: RegistrationError.self) { try registry.register(clashing) }
        #expect(error?.code == .domainClash)
        #expect(error?.description.contains("com.example.payments") == true)
        #expect(error?.description.contains("org.other.plugin") == true)
        #expect(registry.descriptor(for: ErrorCode("other", "X")) == nil)
        #expect(registry.source(ofDomain: "other") == nil)
        #expect(registry.catalogs.map(\.source) == ["builtin", "com.example.payments"])
    }

    @Test("a later catalog cannot rewrite a text another source registered, but adds its own keys and locales")
    func messagesFirstSourceWins() throws {
        let registry = ErrorRegistry()
        let builtinKey = try #require(registry.descriptor(for: ErrorCode("axiom.client", "invalidState"))?.messageKey)
        let original = try #require(registry.message(forKey: builtinKey, locale: "en"))
        try registry.register(
            ErrorCatalog(
                source: "test.texts", domains: ["texts"],
                descriptors: [ErrorDescriptor(code: ErrorCode("texts", "ONE"), category: .general)],
                messages: [
                    "en": [builtinKey: "Hijacked", "error.texts.ONE": "One"],
                    "eo": ["error.texts.ONE": "Unu"],
                ]))
        #expect(registry.message(forKey: builtinKey, locale: "en") == original)
        #expect(registry.message(forKey: "error.texts.ONE", locale: "en") == "One")
        #expect(registry.message(forKey: "error.texts.ONE", locale: "eo") == "Unu")
        #expect(registry.message(forKey: "error.texts.ONE", locale: "de") == nil)
        #expect(registry.locales.contains("eo"))
    }

    @Test("a built-in domain cannot be taken over by a plugin")
    func builtinDomainClash() {
        let registry = ErrorRegistry()
        let hijack = ErrorCatalog(
            source: "evil", domains: ["axiom.client"],
            descriptors: [ErrorDescriptor(code: ErrorCode("axiom.client", "invalidState"), category: .general)])
        #expect(throws: RegistrationError.self) { try registry.register(hijack) }
        #expect(registry.descriptor(for: ClientError.invalidState).source == "builtin")
    }

    @Test("duplicate codes, duplicate aliases, undeclared domains and a second registration are refused")
    func otherClashes() {
        let registry = ErrorRegistry()
        let duplicateCode = ErrorCatalog(
            source: "a", domains: ["d"],
            descriptors: [
                ErrorDescriptor(code: ErrorCode("d", "X"), category: .general),
                ErrorDescriptor(code: ErrorCode("d", "X"), category: .api),
            ])
        let duplicateAlias = ErrorCatalog(
            source: "b", domains: ["e"],
            descriptors: [
                ErrorDescriptor(code: ErrorCode("e", "X"), numericCode: 7, category: .general),
                ErrorDescriptor(code: ErrorCode("e", "Y"), numericCode: 7, category: .general),
            ])
        let undeclared = ErrorCatalog(
            source: "c", domains: ["f"], descriptors: [ErrorDescriptor(code: ErrorCode("g", "X"), category: .general)])
        let duplicate = #expect(throws: RegistrationError.self) { try registry.register(duplicateCode) }
        #expect(duplicate?.code == .duplicateCode && duplicate?.subject == "d/X")
        #expect(throws: RegistrationError.self) { try registry.register(duplicateAlias) }
        #expect(throws: RegistrationError.self) { try registry.register(undeclared) }
        #expect(registry.catalogs.count == 1)
        #expect(registry.source(ofDomain: "d") == nil && registry.source(ofDomain: "e") == nil)
        #expect(throws: RegistrationError.self) { try registry.register(.builtin) }
    }

    @Test("catalogs registered together are each all or nothing, in order, as if registered one after the other")
    func registeredTogether() throws {
        let first = Self.paymentsCatalog(source: "a", domain: "pay")
        // Refused at its last descriptor, after its first two codes, an alias and its text spelling went in.
        let lateRefusal = ErrorCatalog(
            source: "b", domains: ["ship"],
            descriptors: [
                ErrorDescriptor(code: ErrorCode("ship", "LOST"), numericCode: 3, category: .api),
                ErrorDescriptor(code: ErrorCode("ship", "LATE"), category: .api),
                ErrorDescriptor(code: ErrorCode("ship", "LOST"), category: .general),
            ],
            messages: ["en": ["error.ship.LOST": "Lost."]])
        let clash = Self.paymentsCatalog(source: "c", domain: "pay")
        let last = ErrorCatalog(
            source: "d", domains: ["ship"],
            descriptors: [ErrorDescriptor(code: ErrorCode("ship", "LOST"), category: .auth)])
        let catalogs = [first, lateRefusal, clash, last]

        let together = ErrorRegistry()
        let builtins = together.catalogs.count
        let refusals = together.register(catalogs).map(\.refusal)
        #expect(refusals.map { $0?.code } == [nil, .duplicateCode, .domainClash, nil])
        #expect(refusals[2]?.existingSource == "a")
        #expect(together.catalogs.map(\.source).suffix(2) == ["a", "d"])
        #expect(together.catalogs.count == builtins + 2)
        // Nothing of the refused catalog stayed: the code is the later catalog's, its alias and text are gone.
        #expect(together.descriptor(for: ErrorCode("ship", "LOST"))?.source == "d")
        #expect(together.descriptor(for: ErrorCode("ship", "LATE")) == nil)
        #expect(together.descriptor(for: ErrorCode("ship", "3")) == nil)
        #expect(together.descriptor(domain: "ship", numericCode: 3) == nil)
        #expect(together.message(forKey: "error.ship.LOST", locale: "en") == nil)

        let oneByOne = ErrorRegistry()
        let refusedOneByOne = catalogs.map { catalog -> RegistrationError.Code? in
            do throws(RegistrationError) {
                try oneByOne.register(catalog)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(refusedOneByOne == refusals.map { $0?.code })
        #expect(
            oneByOne.descriptors.map { "\($0.code) \($0.source)" }
                == together.descriptors.map { "\($0.code) \($0.source)" })
        #expect(together.register([lateRefusal]).map { $0.refusal?.code } == [.domainClash])
    }

    /// A caller's admission check sees which catalogs of the batch went in before, and one it holds back is as if it
    /// had never been given.
    @Test func aCatalogHeldBackFromABatchCountsForNothing() {
        let first = Self.paymentsCatalog(source: "a", domain: "pay")
        let second = Self.paymentsCatalog(source: "b", domain: "pay")
        let third = Self.paymentsCatalog(source: "c", domain: "pay")
        let registry = ErrorRegistry()
        var asked: [[Int]] = []
        let outcomes = registry.register([first, second, third]) { index, before in
            asked.append(before)
            return index != 0
        }
        #expect(outcomes.map { $0.refusal?.code } == [nil, nil, .domainClash])
        guard case .notAdmitted = outcomes[0], case .registered = outcomes[1] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(asked == [[], [], [1]])
        #expect(registry.source(ofDomain: "pay") == "b")
    }

    @Test("readers see either the old or the new catalog set while writers register concurrently")
    func concurrentReadsAndWrites() async throws {
        let registry = ErrorRegistry()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<200 {
                    try? registry.register(
                        ErrorCatalog(
                            source: "plugin.\(index)", domains: ["d\(index)"],
                            descriptors: [ErrorDescriptor(code: ErrorCode("d\(index)", "E"), category: .api)]))
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<20_000 {
                        precondition(registry.descriptor(for: ClientError.invalidState).code.code == "invalidState")
                    }
                }
            }
        }
        #expect(registry.catalogs.count == 201)
        #expect(registry.descriptor(for: ErrorCode("d199", "E"))?.source == "plugin.199")
    }

    @Test("a code looked up before its catalog is registered resolves once the catalog is")
    func missThenRegister() throws {
        let registry = ErrorRegistry()
        let code = ErrorCode("payments", "DECLINED")
        #expect(registry.descriptor(for: code) == nil)
        #expect(registry.descriptor(for: code) == nil)  // now a remembered miss
        try registry.register(Self.paymentsCatalog())
        #expect(registry.descriptor(for: code)?.source == "com.example.payments")
        #expect(registry.descriptor(for: ErrorCode("payments", "NOPE")) == nil)
    }

    /// A small plain error value (an enum without payloads, a struct of one integer) is remembered by its bytes once
    /// resolved. What it resolves to must stay what its code says, case by case, value by value.
    enum PaymentFailure: IdentifiableError {
        case declined, busy, unknown
        var errorCode: ErrorCode {
            switch self {
            case .declined: ErrorCode("payments", "DECLINED")
            case .busy: ErrorCode("payments", "BUSY")
            case .unknown: ErrorCode("payments", "NOT_REGISTERED")
            }
        }
    }

    struct NumberedFailure: IdentifiableError {
        let number: Int
        var errorCode: ErrorCode { ErrorCode("numbered", number.isMultiple(of: 2) ? "EVEN" : "ODD") }
    }

    @Test("small plain error values resolve case by case, and the same way on every later lookup")
    func plainValuesResolveByValue() throws {
        let registry = ErrorRegistry()
        try registry.register(Self.paymentsCatalog())
        for _ in 0..<3 {
            #expect(registry.descriptor(for: PaymentFailure.declined as any Error).code.code == "DECLINED")
            #expect(registry.descriptor(for: PaymentFailure.busy as any Error).code.code == "BUSY")
            #expect(registry.descriptor(for: PaymentFailure.unknown as any Error) === registry.unknownDescriptor)
            #expect(registry.identity(of: PaymentFailure.unknown).code == ErrorCode("payments", "NOT_REGISTERED"))
        }
    }

    /// An error whose code depends on a payload that is more than its bytes (a string), and one of three bytes: the
    /// registry keeps no descriptor for either by its type, so each value resolves by its own code, every time.
    struct NamedFailure: IdentifiableError {
        let name: String
        var errorCode: ErrorCode { ErrorCode("payments", name) }
    }

    struct ThreeByteFailure: IdentifiableError {
        let first: UInt8
        let second: UInt8
        let third: UInt8
        var errorCode: ErrorCode { ErrorCode("payments", third == 0 ? "DECLINED" : "BUSY") }
    }

    @Test("errors with a payload, or of an odd size, resolve by their own code every time, never by their type")
    func payloadValuesResolveByTheirCode() throws {
        let registry = ErrorRegistry()
        try registry.register(Self.paymentsCatalog())
        #expect(MemoryLayout<ThreeByteFailure>.size == 3)
        for _ in 0..<3 {
            for (name, expected) in [("DECLINED", "DECLINED"), ("BUSY", "BUSY"), ("NOPE", nil)] {
                let descriptor = registry.descriptor(for: NamedFailure(name: name) as any Error)
                #expect(expected.map { descriptor.code.code == $0 } ?? (descriptor === registry.unknownDescriptor))
            }
            let declined = ThreeByteFailure(first: 1, second: 2, third: 0)
            let busy = ThreeByteFailure(first: 1, second: 2, third: 3)
            #expect(registry.descriptor(for: declined as any Error).code.code == "DECLINED")
            #expect(registry.descriptor(for: busy as any Error).code.code == "BUSY")
        }
    }

    @Test("a value that resolved to nothing resolves once its code's catalog is registered")
    func plainValueMissThenRegister() throws {
        let registry = ErrorRegistry()
        #expect(registry.descriptor(for: PaymentFailure.declined as any Error) === registry.unknownDescriptor)
        try registry.register(Self.paymentsCatalog())
        #expect(
            registry.descriptor(for: PaymentFailure.declined as any Error).code == ErrorCode("payments", "DECLINED"))
    }

    @Test("more small values than the registry remembers still resolve, each by its own code")
    func plainValuesPastTheCacheLimit() throws {
        let registry = ErrorRegistry()
        try registry.register(
            ErrorCatalog(
                source: "numbered", domains: ["numbered"],
                descriptors: [
                    ErrorDescriptor(code: ErrorCode("numbered", "EVEN"), category: .api),
                    ErrorDescriptor(code: ErrorCode("numbered", "ODD"), category: .network),
                ]))
        for round in 0..<2 {
            for number in 0..<10_000 {
                let descriptor = registry.descriptor(for: NumberedFailure(number: number) as any Error)
                #expect(
                    descriptor.code.code == (number.isMultiple(of: 2) ? "EVEN" : "ODD"), "round \(round), \(number)")
            }
        }
    }

    @Test("an identity taught for a type replaces what its values had resolved to")
    func taughtIdentityReplacesRememberedValues() throws {
        let registry = ErrorRegistry()
        try registry.register(Self.paymentsCatalog())
        #expect(registry.descriptor(for: PaymentFailure.declined as any Error).code.code == "DECLINED")
        registry.registerIdentity(of: PaymentFailure.self) { _ in ErrorCode("payments", "BUSY") }
        #expect(registry.descriptor(for: PaymentFailure.declined as any Error).code.code == "BUSY")
    }

    @Test("the closest known codes are suggested for an unknown one")
    func suggestions() {
        let near = ErrorRegistry().suggestions(domain: "axiom.client", code: "invalidstate")
        #expect(near.first == ErrorCode("axiom.client", "invalidState"))
    }
}

@Suite("Domain errors")
struct DomainErrorTests {
    @Test("an NWC error response becomes a domain error with its code and message")
    func nwcResponse() throws {
        let json = #"{"result_type":"pay_invoice","error":{"code":"RATE_LIMITED","message":"slow down"}}"#
        let error = try DomainError.decode(domain: "nwc", json: Data(json.utf8))
        #expect(error.errorCode == ErrorCode("nwc", "RATE_LIMITED"))
        #expect(error.message == "slow down")
        #expect(error.metadata["result_type"] == "pay_invoice")
    }

    @Test("a JSON-RPC error's numeric code is kept and resolves through aliases")
    func jsonRPC() throws {
        let json = #"{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"call not found","retry_after":2.5}}"#
        let error = try DomainError.decode(domain: "telnyx", json: Data(json.utf8))
        #expect(error.errorCode == ErrorCode("telnyx", "-32003"))
        #expect(error.retryAfter == .milliseconds(2500))
    }

    @Test("a payload that is not an error response is refused without echoing it")
    func malformed() {
        for payload in ["", "[1,2]", #"{"error":{"message":"secret-token-123"}}"#, #"{"error":{"code":1.5}}"#] {
            let failure = #expect(throws: DomainError.DecodingFailure.self) {
                try DomainError.decode(domain: "nwc", json: Data(payload.utf8))
            }
            #expect(failure?.description.contains("secret") == false)
        }
    }
}
