import Synchronization

// How a lookup flows:
//
//   any Error ──open existential──▶ E.self ──type table──▶ extractor ──▶ ErrorIdentity
//                                                                          │
//            fast code table (literal codes, no hashing of strings) ◀──────┤
//                                 snapshot.byCode[identity.code] ◀─────────┘ (other codes, and misses)
//
// All three tables are immutable objects published through an atomic pointer. Readers load the pointer and
// read; they never take a lock. Writers (catalog registrations, a first sight of an error type) serialize
// on a mutex, build a new table, publish it, and keep the old one alive until the registry dies, so a
// reader holding an old table never sees it freed. Registrations happen at start and per plugin, so the
// retained garbage is a handful of small tables.

/// Maps error identities to descriptors. Lookups are lock-free and allocation-free.
///
/// The framework's built-in catalog is present from the start. Plugins and applications add catalogs
/// with ``register(_:)``, which takes a catalog whole or refuses it whole.
public final class ErrorRegistry: Sendable {
    /// The process-wide registry that layers use unless given another.
    public static let shared = ErrorRegistry()

    private let snapshotPointer: Atomic<UInt>
    private let typeTablePointer: Atomic<UInt>
    private let fastCodesPointer: Atomic<UInt>
    private let writer: Mutex<Retired>

    /// Creates a registry holding the built-in catalog.
    public init() {
        let snapshot = Snapshot.empty
        // CancellationError is known from the start.
        let table = TypeTable(
            [(ObjectIdentifier(CancellationError.self), TypeExtractor.cancellation)], hash: { $0.slotHash })
        snapshotPointer = Atomic(Self.address(of: snapshot))
        typeTablePointer = Atomic(Self.address(of: table))
        fastCodesPointer = Atomic(Self.address(of: FastCodes([], hash: { $0.slotHash })))
        writer = Mutex(Retired())
        do {
            try register(.builtin)
        } catch {
            preconditionFailure("the built-in catalog is invalid: \(error)")
        }
    }

    deinit {
        // No reader can exist once the registry is gone: release the current and every retired table.
        Unmanaged<Snapshot>.fromOpaque(Self.pointer(snapshotPointer.load(ordering: .acquiring))).release()
        Unmanaged<TypeTable>.fromOpaque(Self.pointer(typeTablePointer.load(ordering: .acquiring))).release()
        Unmanaged<FastCodes>.fromOpaque(Self.pointer(fastCodesPointer.load(ordering: .acquiring))).release()
        writer.withLock { retired in
            for address in retired.objects { Unmanaged<AnyObject>.fromOpaque(Self.pointer(address)).release() }
        }
    }

    // MARK: Reading

    /// The address of a table, retained once on behalf of the registry. Addresses are stored as integers
    /// because `Atomic` needs a `Sendable` value; the tables themselves are immutable and `Sendable`.
    private static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())
    }

    @inline(__always)
    private static func pointer(_ address: UInt) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: address)!
    }

    @inline(__always)
    var snapshot: Snapshot {
        Unmanaged<Snapshot>.fromOpaque(Self.pointer(snapshotPointer.load(ordering: .acquiring))).takeUnretainedValue()
    }

    @inline(__always)
    private var typeTable: TypeTable {
        Unmanaged<TypeTable>.fromOpaque(Self.pointer(typeTablePointer.load(ordering: .acquiring)))
            .takeUnretainedValue()
    }

    @inline(__always)
    private var fastCodes: FastCodes {
        Unmanaged<FastCodes>.fromOpaque(Self.pointer(fastCodesPointer.load(ordering: .acquiring)))
            .takeUnretainedValue()
    }

    // The hot path reads the tables through guaranteed references: the registry holds every table it ever
    // published until it dies, so a reader needs no retain/release of its own (two atomic operations each).
    @inline(__always)
    private func lookupFast(_ key: RawCodeKey) -> FastEntry? {
        Unmanaged<FastCodes>.fromOpaque(Self.pointer(fastCodesPointer.load(ordering: .acquiring)))
            ._withUnsafeGuaranteedRef { $0.lookup(key, hash: key.slotHash) }
    }

    @inline(__always)
    private func lookupExtractor(_ key: ObjectIdentifier) -> Unmanaged<TypeExtractor>? {
        Unmanaged<TypeTable>.fromOpaque(Self.pointer(typeTablePointer.load(ordering: .acquiring)))
            ._withUnsafeGuaranteedRef { $0.lookup(key, hash: key.slotHash) }
    }

    /// The descriptor registered for a code or for one of its numeric aliases (`ErrorCode("telnyx", "-32003")`).
    public func descriptor(for code: ErrorCode) -> ErrorDescriptor? {
        descriptorReference(for: code)?.takeUnretainedValue()
    }

    /// The same, unretained: registered descriptors are immortal (see ``Snapshot``).
    @usableFromInline
    func descriptorReference(for code: ErrorCode) -> Unmanaged<ErrorDescriptor>? {
        guard let key = RawCodeKey(code) else { return snapshot.byCode[code].map(Unmanaged.passUnretained) }
        switch lookupFast(key) {
        case .hit(let descriptor)?: return descriptor
        case .miss?: return nil
        case nil:
            let found = snapshot.byCode[code].map(Unmanaged.passUnretained)
            remember(key, code)
            return found
        }
    }

    /// The descriptor registered under a numeric alias of a domain.
    public func descriptor(domain: String, numericCode: Int) -> ErrorDescriptor? {
        snapshot.byAlias[AliasKey(domain: domain, number: numericCode)]
    }

    /// The descriptor of any error value. Errors the registry cannot identify get the descriptor of
    /// `axiom/unknownError`; use ``identity(of:)`` to see what they were.
    public func descriptor(for error: any Error) -> ErrorDescriptor {
        resolveForEvent(error).descriptor.takeUnretainedValue()
    }

    /// The identity of any error value: from `IdentifiableError`, from an extractor registered with
    /// ``registerIdentity(of:_:)``, or, for a type it does not know, `swift/<TypeName>`.
    ///
    /// The first sight of a type costs a protocol cast; later ones a table lookup.
    public func identity(of error: any Error) -> ErrorIdentity {
        let error = EscalatedError.unwrap(error)
        return extractor(for: error)._withUnsafeGuaranteedRef { $0.identity(of: error) }
    }

    /// Identity and descriptor of an error in one pass.
    public func resolve(_ error: any Error) -> (identity: ErrorIdentity, descriptor: ErrorDescriptor) {
        let identity = identity(of: error)
        return (identity, descriptor(for: identity.code) ?? snapshot.unknown)
    }

    /// What an error event keeps: the descriptor, and the extractor that reads the identity again on demand.
    /// An ``EscalatedError`` resolves as the error it carries.
    @usableFromInline
    func resolveForEvent(
        _ error: any Error
    ) -> (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>) {
        resolveUnlessEscalated(error) ?? resolveForEvent(EscalatedError.unwrap(error))
    }

    /// Descriptor and extractor of an error, or nil when it is an ``EscalatedError`` (the caller unwraps it).
    /// The error's type is read once, when the existential is opened.
    @usableFromInline
    func resolveUnlessEscalated(
        _ error: any Error
    ) -> (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>)? {
        resolveOpened(error)
    }

    private func resolveOpened<E: Error>(
        _ value: E
    ) -> (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>)? {
        if E.self == EscalatedError.self { return nil }
        let extractor = lookupExtractor(ObjectIdentifier(E.self)) ?? learn(value)
        let code = withUnsafePointer(to: value) { pointer in
            extractor._withUnsafeGuaranteedRef { $0.identity(at: UnsafeRawPointer(pointer)).code }
        }
        return (descriptorReference(for: code) ?? Unmanaged.passUnretained(snapshot.unknown), extractor)
    }

    /// The descriptor of errors the registry cannot identify.
    public var unknownDescriptor: ErrorDescriptor { snapshot.unknown }

    @inline(__always)
    private func extractor(for error: any Error) -> Unmanaged<TypeExtractor> {
        let type = type(of: error)
        return lookupExtractor(ObjectIdentifier(type)) ?? learn(error)
    }

    /// All registered catalogs, the built-in one first, in registration order.
    public var catalogs: [ErrorCatalog] { snapshot.catalogs }

    /// Every registered descriptor, sorted by domain and code.
    public var descriptors: [ErrorDescriptor] {
        snapshot.descriptorsSorted
    }

    /// Which source owns a domain, or nil if nobody does.
    public func source(ofDomain domain: String) -> String? { snapshot.domainOwners[domain] }

    /// A message for a localization key in a locale, if a catalog provides it.
    public func message(forKey key: String, locale: String) -> String? {
        snapshot.message(forKey: key, locale: locale)
    }

    /// The locales some catalog provides messages for.
    public var locales: [String] { snapshot.messages.keys.sorted() }

    // MARK: Writing

    /// Registers a catalog, all or nothing.
    ///
    /// - Throws: ``RegistrationError`` naming both sources when a domain is already owned, a code or a
    ///   numeric alias is taken twice, a descriptor lies outside the declared domains, or the source is
    ///   already registered. Nothing of a refused catalog is registered.
    public func register(_ catalog: ErrorCatalog) throws(RegistrationError) {
        try writer.withLock { retired throws(RegistrationError) in
            let current = snapshot
            let next = try current.adding(catalog)
            // Known misses may be codes this catalog brings: drop them before the new codes become visible.
            let fast = fastCodes
            let hits = fast.entries.filter { if case .hit = $0.1 { true } else { false } }
            if hits.count != fast.entries.count {
                fastCodesPointer.store(Self.address(of: FastCodes(hits, hash: { $0.slotHash })), ordering: .releasing)
                retired.keep(fast)
            }
            publish(next, replacing: current, retired: &retired)
        }
    }

    /// Teaches the registry the identity of a foreign error type that does not conform to
    /// ``IdentifiableError`` (an error of a library you do not own).
    public func registerIdentity<E: Error>(of type: E.Type, _ extract: @escaping @Sendable (E) -> ErrorCode) {
        install(TypeExtractor.immortal(ClosureExtractor<E>(extract)), for: ObjectIdentifier(E.self))
    }

    private func learn(_ error: any Error) -> Unmanaged<TypeExtractor> {
        // Cold: once per type and registry.
        install(TypeExtractor.learned(for: error), for: ObjectIdentifier(type(of: error)))
    }

    /// Publishes an extractor for a type; the first one installed for a type wins a race between readers.
    @discardableResult
    private func install(_ extractor: Unmanaged<TypeExtractor>, for key: ObjectIdentifier) -> Unmanaged<TypeExtractor> {
        writer.withLock { retired in
            let current = typeTable
            if let existing = current.lookup(key, hash: key.slotHash),
                !(extractor._withUnsafeGuaranteedRef { $0 is ClosureExtractorBase })
            {
                return existing
            }
            let next = current.inserting(key, extractor)
            typeTablePointer.store(Self.address(of: next), ordering: .releasing)
            retired.keep(current)
            return extractor
        }
    }

    /// Adds a literal code to the fast table, as a hit or as a known miss. Hits never go stale (a code never
    /// changes its descriptor); misses are dropped by every registration, and this re-reads the snapshot under
    /// the writer lock, so a miss recorded here is true of the current snapshot.
    private func remember(_ key: RawCodeKey, _ code: ErrorCode) {
        writer.withLock { retired in
            let current = fastCodes
            guard current.lookup(key, hash: key.slotHash) == nil else { return }
            let entry: FastEntry = snapshot.byCode[code].map { .hit(Unmanaged.passUnretained($0)) } ?? .miss
            let next = current.inserting(key, entry)
            fastCodesPointer.store(Self.address(of: next), ordering: .releasing)
            retired.keep(current)
        }
    }

    private func publish(_ next: Snapshot, replacing current: Snapshot, retired: inout Retired) {
        snapshotPointer.store(Self.address(of: next), ordering: .releasing)
        retired.keep(current)
    }
}

/// Tables replaced by newer ones; released when the registry is.
private struct Retired: ~Copyable {
    /// Addresses of replaced tables, each still retained once.
    var objects: [UInt] = []

    /// Takes over the registry's reference to a table that was just replaced.
    mutating func keep(_ table: AnyObject) {
        objects.append(UInt(bitPattern: Unmanaged.passUnretained(table).toOpaque()))
    }
}

struct AliasKey: Hashable {
    var domain: String
    var number: Int
}

/// Reads an identity out of a value of one known dynamic type.
///
/// A class, so the type table and error events can hold it unretained and call it without touching its
/// reference count. Extractors are immortal: once made, one is never freed (see ``immortal(_:)``), so an
/// event that outlives its registry can still read its identity. Learned extractors are shared by every
/// registry, so there is at most one per error type, plus one per ``ErrorRegistry/registerIdentity(of:_:)``.
@usableFromInline
class TypeExtractor: @unchecked Sendable {
    // @unchecked: a non-final class cannot be checked. Every subclass has only `let` properties of Sendable
    // types, set in init and never changed, so sharing an extractor between threads is safe.

    /// The identity of the value `pointer` points at, which is of the type this extractor was made for.
    @usableFromInline
    func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity { preconditionFailure("abstract") }

    /// The identity of `error`, whose dynamic type is the one this extractor was made for.
    @usableFromInline
    final func identity(of error: any Error) -> ErrorIdentity {
        func read<E: Error>(_ value: E) -> ErrorIdentity {
            withUnsafePointer(to: value) { identity(at: UnsafeRawPointer($0)) }
        }
        return read(error)
    }

    /// Keeps an extractor alive for the rest of the process, and returns it unretained.
    static func immortal(_ extractor: TypeExtractor) -> Unmanaged<TypeExtractor> {
        Unmanaged.passRetained(extractor)
    }

    /// The extractor of `CancellationError`.
    static let cancellation = immortal(FixedExtractor(ErrorCatalog.cancellationCode))

    /// Extractors learned from the first value of each type, shared by all registries.
    private static let learnedByType = Mutex<[ObjectIdentifier: Unmanaged<TypeExtractor>]>([:])

    /// The extractor for the dynamic type of `error`: `errorCode` for an `IdentifiableError` (found with one
    /// protocol cast, the first time a type is seen), `swift/<TypeName>` for any other.
    static func learned(for error: any Error) -> Unmanaged<TypeExtractor> {
        let key = ObjectIdentifier(type(of: error))
        return learnedByType.withLock { learned in
            if let known = learned[key] { return known }
            let extractor: TypeExtractor
            if let identifiable = type(of: error) as? any IdentifiableError.Type {
                extractor = IdentifiableExtractor(identifiable)
            } else {
                extractor = FixedExtractor(ErrorCode("swift", String(describing: type(of: error))))
            }
            let made = immortal(extractor)
            learned[key] = made
            return made
        }
    }
}

/// Reads `errorCode` and `retryAfter` of an `IdentifiableError`, through the type's own specialized
/// `_axiomIdentity(of:)`.
final class IdentifiableExtractor: TypeExtractor, @unchecked Sendable {
    let type: any IdentifiableError.Type
    init(_ type: any IdentifiableError.Type) { self.type = type }
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity { type._axiomIdentity(at: pointer) }
}

/// One code for every value of a type the registry does not know (and for `CancellationError`).
final class FixedExtractor: TypeExtractor, @unchecked Sendable {
    let identity: ErrorIdentity
    init(_ code: ErrorCode) { identity = ErrorIdentity(code: code) }
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity { identity }
}

/// Marks extractors an application registered on purpose: they replace a learned one.
class ClosureExtractorBase: TypeExtractor, @unchecked Sendable {}

/// An application's extractor for a foreign error type.
final class ClosureExtractor<E: Error>: ClosureExtractorBase, @unchecked Sendable {
    let extract: @Sendable (E) -> ErrorCode
    init(_ extract: @escaping @Sendable (E) -> ErrorCode) { self.extract = extract }
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity {
        ErrorIdentity(code: extract(pointer.assumingMemoryBound(to: E.self).pointee))
    }
}

typealias TypeTable = OpenTable<ObjectIdentifier, Unmanaged<TypeExtractor>>
typealias FastCodes = OpenTable<RawCodeKey, FastEntry>

/// What the fast table knows of a literal code: its descriptor, or that no catalog registers it.
enum FastEntry: Sendable {
    /// Registered descriptors are immortal, so the table holds them unretained.
    case hit(Unmanaged<ErrorDescriptor>)
    case miss
}
