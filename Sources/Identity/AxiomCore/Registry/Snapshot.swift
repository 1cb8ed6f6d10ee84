import AxiomCatalog

/// One immutable state of the registry. A registration builds a new one; readers never see a half-built one.
final class Snapshot: Sendable {
    let byCode: [ErrorCode: ErrorDescriptor]
    let byAlias: [AliasKey: ErrorDescriptor]
    /// `byCode` keyed by the names' bytes, for codes that are no fast key: see ``CodeTable``.
    let codes: CodeTable
    let domainOwners: [String: String]
    let catalogs: [ErrorCatalog]
    /// Message tables by locale, one per catalog that provides the locale, in registration order: the first
    /// table with a key has its text (a plugin cannot rewrite another source's texts). Registering appends a
    /// table instead of merging it, so it never copies or rehashes the texts already registered.
    let messages: [String: [[String: String]]]
    /// The locales of `messages`, sorted: read for every answer that negotiates a language.
    let locales: [String]
    /// How many catalogs have been registered: a new snapshot has a higher one.
    var revision: Int { catalogs.count }
    let unknown: ErrorDescriptor

    private init(
        byCode: [ErrorCode: ErrorDescriptor], byAlias: [AliasKey: ErrorDescriptor], domainOwners: [String: String],
        catalogs: [ErrorCatalog], messages: [String: [[String: String]]]
    ) {
        self.byCode = byCode
        self.codes = CodeTable(byCode)
        self.byAlias = byAlias
        self.domainOwners = domainOwners
        self.catalogs = catalogs
        self.messages = messages
        self.locales = messages.keys.sorted()
        self.unknown =
            byCode[ErrorCatalog.unknownCode]
            ?? ErrorDescriptor(
                code: ErrorCatalog.unknownCode, category: .general, messageKey: "error.general.unexpected")
        // Registered descriptors are immortal: error events and the fast code table hold them unretained, so
        // deciding an error counts no references for its descriptor, and an event may outlive its registry.
        // Registration is rare (start-up, plugin load), so what is kept is what was registered. A descriptor
        // in several snapshots is made immortal again, which changes nothing.
        for descriptor in byCode.values { _ = Unmanaged.passRetained(descriptor) }
        _ = Unmanaged.passRetained(unknown)
    }

    deinit { codes.deallocate() }

    /// The descriptor registered under a code (a name, or a numeric alias as text), unretained: registered
    /// descriptors are immortal.
    @inline(__always)
    func descriptorReference(for code: ErrorCode) -> Unmanaged<ErrorDescriptor>? {
        withUnsafePointer(to: code) { descriptorReference(forCodeAt: $0) }
    }

    /// The same, for a code read where it lies (see ``CodeTable/lookup(_:)``).
    @inline(__always)
    func descriptorReference(forCodeAt code: UnsafePointer<ErrorCode>) -> Unmanaged<ErrorDescriptor>? {
        switch codes.lookup(code) {
        case .hit(let descriptor): descriptor
        case .miss: nil
        case .unknown: byCode[code.pointee].map(Unmanaged.passUnretained)
        }
    }

    /// The text of a key in a locale: from the first catalog, in registration order, that has it.
    func message(forKey key: String, locale: String) -> String? {
        guard let tables = messages[locale] else { return nil }
        for table in tables {
            if let text = table[key] { return text }
        }
        return nil
    }

    /// Every descriptor once (alias keys share descriptors with their names), sorted by domain and code.
    /// Computed when asked: listing is rare, registering should not pay for it.
    var descriptorsSorted: [ErrorDescriptor] {
        byCode.filter { $0.key == $0.value.code }.values.sorted {
            ($0.code.domain, $0.code.code) < ($1.code.domain, $1.code.code)
        }
    }

    static let empty = Snapshot(byCode: [:], byAlias: [:], domainOwners: [:], catalogs: [], messages: [:])

    /// A new snapshot with the catalog added, or the first reason it cannot be.
    func adding(_ catalog: ErrorCatalog) throws(RegistrationError) -> Snapshot {
        var builder = Builder(self, adding: [catalog])
        try builder.add(catalog)
        return builder.snapshot()
    }

    /// A new snapshot with every catalog added that `admit` admits and that can be, in order, each all or nothing,
    /// and what became of each catalog; nil instead of a snapshot when none was added. `admit` is asked with the
    /// indices of the catalogs added before. The tables are copied once for all of them: registering n catalogs one
    /// at a time copies every code registered before each, O(n × codes), which a start with a hundred plugins feels.
    func adding(
        _ catalogs: [ErrorCatalog], admitting admit: (_ index: Int, _ addedBefore: [Int]) -> Bool
    ) -> (Snapshot?, [BatchRegistration<RegistrationError>]) {
        var builder = Builder(self, adding: catalogs)
        var outcomes: [BatchRegistration<RegistrationError>] = []
        outcomes.reserveCapacity(catalogs.count)
        var added: [Int] = []
        for (index, catalog) in catalogs.enumerated() {
            guard admit(index, added) else {
                outcomes.append(.notAdmitted)
                continue
            }
            do throws(RegistrationError) {
                try builder.add(catalog)
                outcomes.append(.registered)
                added.append(index)
            } catch {
                outcomes.append(.refused(error))
            }
        }
        return (added.isEmpty ? nil : builder.snapshot(), outcomes)
    }

    /// The tables of the next snapshot, copied once from the current one, as catalogs are added to them.
    private struct Builder {
        var byCode: [ErrorCode: ErrorDescriptor]
        var byAlias: [AliasKey: ErrorDescriptor]
        var owners: [String: String]
        var catalogs: [ErrorCatalog]
        var sources: Set<String>
        var messages: [String: [[String: String]]]

        /// Room for every catalog's entries at once (names and aliases spelled as text): the copy of the tables is
        /// then the only rehash, rather than one per doubling.
        init(_ base: Snapshot, adding catalogs: [ErrorCatalog]) {
            var codes = 0
            var aliases = 0
            for catalog in catalogs {
                codes += catalog.descriptors.count
                for descriptor in catalog.descriptors { aliases += descriptor.numericAliases.count }
            }
            byCode = base.byCode
            byCode.reserveCapacity(byCode.count + codes + aliases)
            byAlias = base.byAlias
            byAlias.reserveCapacity(byAlias.count + aliases)
            owners = base.domainOwners
            self.catalogs = base.catalogs
            self.catalogs.reserveCapacity(base.catalogs.count + catalogs.count)
            sources = Set(base.catalogs.map(\.source))
            messages = base.messages
        }

        func snapshot() -> Snapshot {
            Snapshot(byCode: byCode, byAlias: byAlias, domainOwners: owners, catalogs: catalogs, messages: messages)
        }

        /// Adds a catalog, or leaves the tables as they were and says why it cannot be added.
        mutating func add(_ catalog: ErrorCatalog) throws(RegistrationError) {
            let source = catalog.source
            func refuse(_ kind: RegistrationError.Code, _ subject: String, existing: String? = nil) -> RegistrationError
            {
                RegistrationError(code: kind, source: source, existingSource: existing, subject: subject)
            }
            guard !source.isEmpty else { throw refuse(.invalidCatalog, "empty source id") }
            if sources.contains(source) { throw refuse(.duplicateSource, source, existing: source) }
            var seen: Set<String> = []
            for domain in catalog.domains {
                guard !domain.isEmpty else { throw refuse(.invalidCatalog, "empty domain name") }
                if let owner = owners[domain] { throw refuse(.domainClash, domain, existing: owner) }
                // Declared twice by one catalog: a clash with itself.
                guard seen.insert(domain).inserted else { throw refuse(.domainClash, domain, existing: source) }
            }

            // What this catalog put in the tables, taken out again if it is refused.
            var codes: [ErrorCode] = []
            var aliases: [AliasKey] = []
            func undo() {
                for code in codes { byCode.removeValue(forKey: code) }
                for alias in aliases { byAlias.removeValue(forKey: alias) }
            }
            for original in catalog.descriptors {
                let descriptor = original.owned(by: source)
                let code = descriptor.code
                guard seen.contains(code.domain) else {
                    undo()
                    throw refuse(.undeclaredDomain, code.description)
                }
                guard !code.code.isEmpty else {
                    undo()
                    throw refuse(.invalidCatalog, "empty code in domain \(code.domain)")
                }
                if let status = descriptor.httpStatus, !ErrorDescriptor.httpStatusRange.contains(status) {
                    undo()
                    throw refuse(.invalidCatalog, "HTTP status \(status) of \(code) is not a client or server error")
                }
                // One hash per code; a code taken already is put back.
                if let existing = byCode.updateValue(descriptor, forKey: code) {
                    byCode[code] = existing
                    undo()
                    throw refuse(.duplicateCode, code.description, existing: existing.source)
                }
                codes.append(code)
                for number in descriptor.numericAliases {
                    let key = AliasKey(domain: code.domain, number: number)
                    if let existing = byAlias.updateValue(descriptor, forKey: key) {
                        byAlias[key] = existing
                        undo()
                        throw refuse(
                            .duplicateAlias, "\(code.domain)/\(number) (\(existing.code.code))",
                            existing: existing.source)
                    }
                    aliases.append(key)
                    // A numeric code that arrives as text ("-32003") resolves through the same table as names.
                    let text = ErrorCode(code.domain, String(number))
                    if let existing = byCode.updateValue(descriptor, forKey: text) {
                        guard existing === descriptor else {
                            byCode[text] = existing
                            undo()
                            throw refuse(
                                .duplicateAlias, "\(code.domain)/\(number) (\(existing.code.code))",
                                existing: existing.source)
                        }
                    } else {
                        codes.append(text)
                    }
                }
            }

            for domain in catalog.domains { owners[domain] = source }
            sources.insert(source)
            catalogs.append(catalog)
            for (locale, table) in catalog.messages where !table.isEmpty {
                messages[locale, default: []].append(table)
            }
        }
    }
}

/// What became of one catalog of a batch registration (`ErrorRegistry.register(_:admitting:)`).
package enum BatchRegistration<Refusal: Error> {
    /// Registered.
    case registered
    /// Refused, and why: by the registry's rules, or by a check of its messages.
    case refused(Refusal)
    /// Held back by the caller's admission check, before the registry looked at it.
    case notAdmitted

    /// Why it was refused; nil when it was registered or not admitted.
    package var refusal: Refusal? {
        if case .refused(let refusal) = self { return refusal }
        return nil
    }
}
