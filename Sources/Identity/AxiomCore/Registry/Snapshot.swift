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
        switch codes.lookup(code) {
        case .hit(let descriptor): descriptor
        case .miss: nil
        case .unknown: byCode[code].map(Unmanaged.passUnretained)
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
        let source = catalog.source
        func refuse(_ kind: RegistrationError.Code, _ subject: String, existing: String? = nil) -> RegistrationError {
            RegistrationError(code: kind, source: source, existingSource: existing, subject: subject)
        }
        guard !source.isEmpty else { throw refuse(.invalidCatalog, "empty source id") }
        if catalogs.contains(where: { $0.source == source }) {
            throw refuse(.duplicateSource, source, existing: source)
        }

        var owners = domainOwners
        for domain in catalog.domains {
            guard !domain.isEmpty else { throw refuse(.invalidCatalog, "empty domain name") }
            if let owner = owners[domain] { throw refuse(.domainClash, domain, existing: owner) }
            owners[domain] = source
        }

        // Room for the new entries at once (names and aliases spelled as text): the copy of the tables is then
        // the only rehash, rather than one per doubling.
        let aliasCount = catalog.descriptors.reduce(0) { $0 + $1.numericAliases.count }
        var byCode = self.byCode
        byCode.reserveCapacity(byCode.count + catalog.descriptors.count + aliasCount)
        var byAlias = self.byAlias
        byAlias.reserveCapacity(byAlias.count + aliasCount)
        let declared = Set(catalog.domains)
        for original in catalog.descriptors {
            let descriptor = original.owned(by: source)
            let code = descriptor.code
            guard declared.contains(code.domain) else { throw refuse(.undeclaredDomain, code.description) }
            guard !code.code.isEmpty else { throw refuse(.invalidCatalog, "empty code in domain \(code.domain)") }
            if let status = descriptor.httpStatus, !ErrorDescriptor.httpStatusRange.contains(status) {
                throw refuse(.invalidCatalog, "HTTP status \(status) of \(code) is not a client or server error")
            }
            // One hash per code: a refused catalog discards these tables whole.
            if let existing = byCode.updateValue(descriptor, forKey: code) {
                throw refuse(.duplicateCode, code.description, existing: existing.source)
            }
            for number in descriptor.numericAliases {
                let key = AliasKey(domain: code.domain, number: number)
                if let existing = byAlias.updateValue(descriptor, forKey: key) {
                    throw refuse(
                        .duplicateAlias, "\(code.domain)/\(number) (\(existing.code.code))", existing: existing.source)
                }
                // A numeric code that arrives as text ("-32003") resolves through the same table as names.
                let text = ErrorCode(code.domain, String(number))
                if let existing = byCode.updateValue(descriptor, forKey: text), existing !== descriptor {
                    throw refuse(
                        .duplicateAlias, "\(code.domain)/\(number) (\(existing.code.code))", existing: existing.source)
                }
            }
        }

        var messages = self.messages
        for (locale, table) in catalog.messages where !table.isEmpty {
            messages[locale, default: []].append(table)
        }
        return Snapshot(
            byCode: byCode, byAlias: byAlias, domainOwners: owners, catalogs: catalogs + [catalog], messages: messages)
    }
}
