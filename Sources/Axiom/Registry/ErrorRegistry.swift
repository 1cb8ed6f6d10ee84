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
        let cancellation = FixedExtractor(ErrorCatalog.cancellationCode)
        let table = TypeTable(
            [(ObjectIdentifier(CancellationError.self), Unmanaged<TypeExtractor>.passUnretained(cancellation))],
            hash: { $0.slotHash })
        snapshotPointer = Atomic(Self.address(of: snapshot))
        typeTablePointer = Atomic(Self.address(of: table))
        fastCodesPointer = Atomic(Self.address(of: FastCodes([], hash: { $0.slotHash })))
        var retired = Retired()
        retired.extractors.append(cancellation)
        writer = Mutex(retired)
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
        guard let key = RawCodeKey(code) else { return snapshot.byCode[code] }
        switch lookupFast(key) {
        case .hit(let descriptor)?: return descriptor
        case .miss?: return nil
        case nil:
            let found = snapshot.byCode[code]
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
        resolve(error).descriptor
    }

    /// The identity of any error value: from `IdentifiableError`, from an extractor registered with
    /// ``registerIdentity(of:_:)``, or, for a type it does not know, `swift/<TypeName>`.
    ///
    /// The first sight of a type costs a protocol cast; later ones a table lookup.
    public func identity(of error: any Error) -> ErrorIdentity {
        _identity(of: error)
    }

    /// Identity and descriptor of an error in one pass: what an error event needs.
    public func resolve(_ error: any Error) -> (identity: ErrorIdentity, descriptor: ErrorDescriptor) {
        let identity = _identity(of: error)
        return (identity, descriptor(for: identity.code) ?? snapshot.unknown)
    }

    /// The descriptor of errors the registry cannot identify.
    public var unknownDescriptor: ErrorDescriptor { snapshot.unknown }

    private func _identity<E: Error>(of error: E) -> ErrorIdentity {
        if E.self == EscalatedError.self {
            return identity(of: unsafeBitCast(error, to: EscalatedError.self).error)
        }
        let key = ObjectIdentifier(E.self)
        let extractor = lookupExtractor(key) ?? learn(E.self, from: error)
        return withUnsafePointer(to: error) { pointer in
            extractor._withUnsafeGuaranteedRef { $0.identity(of: UnsafeRawPointer(pointer)) }
        }
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
        snapshot.messages[locale]?[key]
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
        install(ClosureExtractor<E>(extract), for: ObjectIdentifier(E.self))
    }

    private func learn<E: Error>(_ type: E.Type, from error: E) -> Unmanaged<TypeExtractor> {
        let extractor: TypeExtractor
        if let identifiable = error as? any IdentifiableError {
            extractor = Self.extractor(for: identifiable)
        } else {
            extractor = FixedExtractor(ErrorCode("swift", String(describing: E.self)))
        }
        return install(extractor, for: ObjectIdentifier(E.self))
    }

    private static func extractor<T: IdentifiableError>(for _: T) -> TypeExtractor {
        IdentifiableExtractor<T>()
    }

    /// Publishes an extractor for a type; the first one installed for a type wins a race between readers.
    @discardableResult
    private func install(_ extractor: TypeExtractor, for key: ObjectIdentifier) -> Unmanaged<TypeExtractor> {
        writer.withLock { retired in
            let current = typeTable
            if let existing = current.lookup(key, hash: key.slotHash), !(extractor is ClosureExtractorBase) {
                return existing
            }
            retired.extractors.append(extractor)
            let next = current.inserting(key, Unmanaged.passUnretained(extractor))
            typeTablePointer.store(Self.address(of: next), ordering: .releasing)
            retired.keep(current)
            return Unmanaged.passUnretained(extractor)
        }
    }

    /// Adds a literal code to the fast table, as a hit or as a known miss. Hits never go stale (a code never
    /// changes its descriptor); misses are dropped by every registration, and this re-reads the snapshot under
    /// the writer lock, so a miss recorded here is true of the current snapshot.
    private func remember(_ key: RawCodeKey, _ code: ErrorCode) {
        writer.withLock { retired in
            let current = fastCodes
            guard current.lookup(key, hash: key.slotHash) == nil else { return }
            let entry: FastEntry = snapshot.byCode[code].map { .hit($0) } ?? .miss
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
    /// Every extractor ever installed: the type tables refer to them without retaining them.
    var extractors: [TypeExtractor] = []

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
/// A class, so the type table can hold it unretained and a lookup calls it without touching its reference
/// count. Subclasses are immutable after init.
class TypeExtractor: @unchecked Sendable {
    // @unchecked: a non-final class cannot be checked. Every subclass has only `let` properties of Sendable
    // types, set in init and never changed, so sharing an extractor between threads is safe.
    /// The identity of the value `pointer` points at, which is of the type this extractor was made for.
    func identity(of pointer: UnsafeRawPointer) -> ErrorIdentity { preconditionFailure("abstract") }
}

/// Reads `errorCode` and `retryAfter` of an `IdentifiableError`.
final class IdentifiableExtractor<T: IdentifiableError>: TypeExtractor, @unchecked Sendable {
    override func identity(of pointer: UnsafeRawPointer) -> ErrorIdentity {
        let value = pointer.assumingMemoryBound(to: T.self)
        return ErrorIdentity(code: value.pointee.errorCode, retryAfter: value.pointee.retryAfter)
    }
}

/// One code for every value of a type the registry does not know (and for `CancellationError`).
final class FixedExtractor: TypeExtractor, @unchecked Sendable {
    let identity: ErrorIdentity
    init(_ code: ErrorCode) { identity = ErrorIdentity(code: code) }
    override func identity(of pointer: UnsafeRawPointer) -> ErrorIdentity { identity }
}

/// Marks extractors an application registered on purpose: they replace a learned one.
class ClosureExtractorBase: TypeExtractor, @unchecked Sendable {}

/// An application's extractor for a foreign error type.
final class ClosureExtractor<E: Error>: ClosureExtractorBase, @unchecked Sendable {
    let extract: @Sendable (E) -> ErrorCode
    init(_ extract: @escaping @Sendable (E) -> ErrorCode) { self.extract = extract }
    override func identity(of pointer: UnsafeRawPointer) -> ErrorIdentity {
        ErrorIdentity(code: extract(pointer.assumingMemoryBound(to: E.self).pointee))
    }
}

typealias TypeTable = OpenTable<ObjectIdentifier, Unmanaged<TypeExtractor>>
typealias FastCodes = OpenTable<RawCodeKey, FastEntry>

/// What the fast table knows of a literal code: its descriptor, or that no catalog registers it.
enum FastEntry: Sendable {
    case hit(ErrorDescriptor)
    case miss
}
