import AxiomCatalog
import Synchronization

/// Maps error identities to descriptors. Lookups are lock-free and allocation-free.
///
/// The framework's built-in catalog is present from the start. Plugins and applications add catalogs
/// with ``register(_:)``, which takes a catalog whole or refuses it whole.
///
/// How a lookup flows:
///
/// ```
///   any Error ──open existential──▶ E.self ──type table──▶ extractor ──▶ ErrorIdentity
///                                                                          │
///            fast code table (literal codes, no hashing of strings) ◀──────┤
///        snapshot.codes (the names' bytes, then the dictionary) ◀──────────┘ (other codes, and misses)
/// ```
///
/// Readers never take a lock. The snapshot is immutable and published (`PublishedReference`): a registration
/// builds a new one and publishes it, and the old one is retired, kept until the registry dies, so a reader
/// holding it never sees it freed (registrations happen at start and per plugin: a handful). The
/// type table and the fast code table are grow-only tables (`PublishedTable`): a first sight of an error type or
/// of a code adds one entry without copying the table. Codes can come from peers (decoded error bodies), so the
/// fast table remembers at most `rememberedMissLimit` codes that no catalog registers; later unknown codes take
/// the snapshot's path and are not remembered, and the registry's memory stays bounded whatever peers send.
public final class ErrorRegistry: Sendable {
    /// The process-wide registry that layers use unless given another.
    public static let shared = ErrorRegistry()

    /// How many codes that no catalog registers the fast table remembers as misses. Beyond it, unknown codes
    /// cost a dictionary lookup each time, and nothing of them is kept.
    package static let rememberedMissLimit = 256

    private let published: PublishedReference<Snapshot>
    private let typeTable: PublishedTable<ObjectIdentifier, Unmanaged<TypeExtractor>>
    private let fastCodes: PublishedTable<RawCodeKey, FastEntry>
    /// What error values already resolved to, descriptor and extractor, keyed by the value's type and its bytes (small
    /// plain values: 1, 2, 4 or 8 bytes, no references) or by its type alone (a type whose values all have one
    /// identity; see ``TypeExtractor/valueKeyBytes``): a value seen before costs one lookup, without asking the error
    /// for its code. Only registered descriptors are kept (a code never changes its descriptor, and they are
    /// immortal), at most `valueCacheLimit` of them.
    private let valueCache:
        PublishedTable<ValueKey, (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>)>
    /// Set once the value cache is full, so that new values then skip its writer's lock.
    private let valueCacheFull = Atomic(false)
    /// Set once `rememberedMissLimit` misses are remembered, so that unknown codes then skip the writer's lock.
    private let missesFull = Atomic(false)
    /// Set once an application teaches the registry an identity of `DomainError` of its own, which its lookups then
    /// take (see `resolveSlowly`).
    private let domainErrorTaught = Atomic(false)
    /// Set once the fast code table holds `fastCodeLimit` entries, so that codes it lacks then skip the writer's lock.
    private let fastCodesFull = Atomic(false)
    private let writer: Mutex<WriterState>

    /// Creates a registry holding the built-in catalog.
    public init() {
        let snapshot = Snapshot.empty
        // CancellationError is known from the start.
        published = PublishedReference(snapshot)
        typeTable = PublishedTable(
            [(ObjectIdentifier(CancellationError.self), TypeExtractor.cancellation)], maxCount: Self.typeTableLimit,
            hash: { $0.slotHash })
        fastCodes = PublishedTable(maxCount: Self.fastCodeLimit, hash: { $0.slotHash })
        valueCache = PublishedTable(maxCount: Self.valueCacheLimit, hash: { $0.slotHash })
        writer = Mutex(WriterState())
        do {
            try register(.builtin)
        } catch {
            preconditionFailure("the built-in catalog is invalid: \(error)")
        }
    }

    // MARK: Reading

    /// The live snapshot (see ``PublishedReference`` for why it needs no reference of its own).
    @inline(__always)
    var snapshot: Snapshot { published.object.takeUnretainedValue() }

    // The hot path reads the tables through guaranteed references: the registry holds every table it ever
    // published until it dies, so a reader needs no retain/release of its own (two atomic operations each).
    @inline(__always)
    private func lookupFast(_ key: RawCodeKey) -> FastEntry? {
        fastCodes.lookup(key, hash: key.slotHash)
    }

    @inline(__always)
    private func lookupExtractor(_ key: ObjectIdentifier) -> Unmanaged<TypeExtractor>? {
        typeTable.lookup(key, hash: key.slotHash)
    }

    /// The descriptor registered for a code or for one of its numeric aliases (`ErrorCode("telnyx", "-32003")`).
    public func descriptor(for code: ErrorCode) -> ErrorDescriptor? {
        descriptorReference(for: code)?.takeUnretainedValue()
    }

    /// The same, unretained: registered descriptors are immortal (see ``Snapshot``).
    @usableFromInline
    func descriptorReference(for code: ErrorCode) -> Unmanaged<ErrorDescriptor>? {
        guard let key = RawCodeKey(code) else { return registered(code) }
        switch lookupFast(key) {
        case .hit(let descriptor)?: return descriptor
        case .miss?: return nil
        case nil:
            let found = registered(code)
            // Once the table is full, nothing more can be remembered: asking would take the writer's lock on
            // every lookup of a code it lacks.
            if found != nil ? !fastCodesFull.load(ordering: .relaxed) : !missesFull.load(ordering: .relaxed) {
                remember(key, code)
            }
            return found
        }
    }

    /// The descriptor registered for the code at `code`, read where it lies: a `DomainError`'s code, whose heap
    /// strings a copy would retain and release (two atomic operations each, a third of a long code's lookup).
    @inline(__always)
    func descriptorReference(forCodeAt code: UnsafePointer<ErrorCode>) -> Unmanaged<ErrorDescriptor>? {
        guard let key = RawCodeKey(at: code) else {
            return published.object._withUnsafeGuaranteedRef { $0.descriptorReference(forCodeAt: code) }
        }
        switch lookupFast(key) {
        case .hit(let descriptor)?: return descriptor
        case .miss?: return nil
        // Not yet remembered: the copy is paid once, by the lookup that remembers it.
        case nil: return descriptorReference(for: code.pointee)
        }
    }

    /// The snapshot's descriptor for a code, read through a guaranteed reference (see `lookupFast`).
    @inline(__always)
    private func registered(_ code: ErrorCode) -> Unmanaged<ErrorDescriptor>? {
        published.object._withUnsafeGuaranteedRef { $0.descriptorReference(for: code) }
    }

    /// The descriptor registered under a numeric alias of a domain.
    package func descriptor(domain: String, numericCode: Int) -> ErrorDescriptor? {
        snapshot.byAlias[AliasKey(domain: domain, number: numericCode)]
    }

    /// The descriptor of any error value. Errors the registry cannot identify get the descriptor of
    /// `axiom/unknownError`; use ``resolve(_:)`` to see what they were.
    public func descriptor(for error: any Error) -> ErrorDescriptor {
        resolveForEvent(error).descriptor.takeUnretainedValue()
    }

    /// The identity of any error value: from `IdentifiableError`, from an extractor registered with
    /// ``registerIdentity(of:_:)``, or, for a type it does not know, `swift/<TypeName>`.
    ///
    /// The first sight of a type costs a protocol cast; later ones a table lookup.
    package func identity(of error: any Error) -> ErrorIdentity {
        var error = unboxed(error)
        while true {
            let extractor = extractor(for: error)
            guard extractor._withUnsafeGuaranteedRef({ $0.isEnvelope }) else {
                return extractor._withUnsafeGuaranteedRef { $0.identity(of: error) }
            }
            error = Self.enclosed(in: error)
        }
    }

    /// What an ``ErrorEnvelope`` carries. Called only for a type whose extractor says it is an envelope, so the
    /// protocol cast is paid by envelopes alone.
    private static func enclosed(in error: any Error) -> any Error {
        guard let envelope = error as? any ErrorEnvelope else { return error }
        return envelope.enclosedError
    }

    /// Identity and descriptor of an error in one pass.
    public func resolve(_ error: any Error) -> (identity: ErrorIdentity, descriptor: ErrorDescriptor) {
        let identity = identity(of: error)
        return (identity, descriptor(for: identity.code) ?? snapshot.unknown)
    }

    /// What an error event keeps: the descriptor, and the extractor that reads the identity again on demand.
    /// An ``ErrorEnvelope`` (an escalation) resolves as the error it carries.
    @usableFromInline
    func resolveForEvent(
        _ error: any Error
    ) -> (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>) {
        resolveUnlessEscalated(error) ?? resolveForEvent(Self.enclosed(in: error))
    }

    /// Descriptor and extractor of an error, or nil when it is an ``ErrorEnvelope`` (the caller unwraps it).
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
        if let inner = nestedError(value) { return resolveUnlessEscalated(inner) }
        // A domain error (every error from a peer or a plugin) has one extractor in every registry, unless an
        // application taught its own: its code is read in place, without asking the value cache (which never
        // holds one: its identity is its code, not a key of a few bytes), the type table or the extractor.
        if E.self == DomainError.self && !domainErrorTaught.load(ordering: .relaxed) {
            let found = withUnsafePointer(to: value) { DomainErrorExtractor.descriptor(at: $0, in: self) }
            return (found ?? Unmanaged.passUnretained(snapshot.unknown), TypeExtractor.domainError)
        }
        // A value seen before: one lookup, keyed by its type and (for a small plain value) its bytes, read in
        // place. Nothing else is read, and no closure is called.
        let type = ObjectIdentifier(E.self)
        let bits = plainBits(of: value)
        if let known = valueCache.lookup(
            ValueKey(type: type, bits: bits ?? 0), hash: ValueKey.slotHash(type, bits ?? 0))
        {
            return known
        }
        return resolveSlowly(value, bits: bits)
    }

    /// `resolveOpened` for a value the value cache does not know: its type's extractor, then its code's descriptor;
    /// the pair is kept for the next value with the same key, when the value's identity is a function of that key.
    @inline(never)
    private func resolveSlowly<E: Error>(
        _ value: E, bits: UInt64?
    ) -> (descriptor: Unmanaged<ErrorDescriptor>, extractor: Unmanaged<TypeExtractor>)? {
        let type = ObjectIdentifier(E.self)
        let extractor = lookupExtractor(type) ?? learn(value)
        if extractor._withUnsafeGuaranteedRef({ $0.isEnvelope }) { return nil }
        let code = withUnsafePointer(to: value) { pointer in
            extractor._withUnsafeGuaranteedRef { $0.identity(at: UnsafeRawPointer(pointer)).code }
        }
        guard let found = descriptorReference(for: code) else {
            return (Unmanaged.passUnretained(snapshot.unknown), extractor)
        }
        // The key: the value's bytes when the extractor reads nothing else, or none at all when every value of the
        // type has one identity. Values of any other type are never cached.
        let keyBytes = extractor._withUnsafeGuaranteedRef { $0.valueKeyBytes }
        let key: UInt64?
        switch (keyBytes, bits) {
        case (0?, _): key = bits ?? 0
        case (_?, let bits?): key = bits
        default: key = nil
        }
        if let key, !valueCacheFull.load(ordering: .relaxed) {
            rememberValue(ValueKey(type: type, bits: key), found, extractor)
        }
        return (found, extractor)
    }

    /// Keeps what a value resolved to (cold: once per value).
    private func rememberValue(
        _ key: ValueKey, _ descriptor: Unmanaged<ErrorDescriptor>, _ extractor: Unmanaged<TypeExtractor>
    ) {
        if valueCache.value(for: key, orAdd: { (descriptor, extractor) }) == nil {
            valueCacheFull.store(true, ordering: .relaxed)
        }
    }

    /// The descriptor of errors the registry cannot identify.
    package var unknownDescriptor: ErrorDescriptor { snapshot.unknown }

    @inline(__always)
    private func extractor(for error: any Error) -> Unmanaged<TypeExtractor> {
        let type = type(of: error)
        return lookupExtractor(ObjectIdentifier(type)) ?? learn(error)
    }

    /// All registered catalogs, the built-in one first, in registration order.
    package var catalogs: [ErrorCatalog] { snapshot.catalogs }

    /// Every registered descriptor, sorted by domain and code.
    package var descriptors: [ErrorDescriptor] {
        snapshot.descriptorsSorted
    }

    /// Which source owns a domain, or nil if nobody does.
    package func source(ofDomain domain: String) -> String? { snapshot.domainOwners[domain] }

    /// A message for a localization key in a locale, if a catalog provides it.
    package func message(forKey key: String, locale: String) -> String? {
        snapshot.message(forKey: key, locale: locale)
    }

    /// The locales some catalog provides messages for.
    package var locales: [String] { snapshot.locales }

    /// A number that grows whenever a catalog is registered, and stays the same otherwise: what a cache of texts
    /// or descriptors taken from this registry is valid for.
    package var revision: Int { snapshot.revision }

    // MARK: Writing

    /// Registers a catalog, all or nothing.
    ///
    /// - Throws: ``RegistrationError`` naming both sources when a domain is already owned, a code or a
    ///   numeric alias is taken twice, a descriptor lies outside the declared domains, or the source is
    ///   already registered. Nothing of a refused catalog is registered.
    public func register(_ catalog: ErrorCatalog) throws(RegistrationError) {
        try writer.withTrackedLock { state throws(RegistrationError) in
            publish(try snapshot.adding(catalog), &state)
        }
    }

    /// Registers catalogs in order, each all or nothing, as `register(_:)` one after the other would, but into
    /// one new snapshot: the registered codes are copied once, not once per catalog. What a plugin search
    /// registers.
    ///
    /// - Parameter admitting: asked for each catalog, in order, before the registry's rules are: whether the
    ///   caller still wants it registered, given the indices of the catalogs of `catalogs` registered before it
    ///   (not those it was refused). A caller's own checks that depend on what is registered (a plugin's text keys,
    ///   its id) are made here, so that a catalog refused earlier in the batch counts for nothing, as it would
    ///   when registering one at a time. Called with the registry's writer lock held: it must not register.
    /// - Returns: what became of each catalog.
    package func register(
        _ catalogs: [ErrorCatalog], admitting: (_ index: Int, _ registeredBefore: [Int]) -> Bool = { _, _ in true }
    ) -> [BatchRegistration<RegistrationError>] {
        writer.withTrackedLock { state in
            let (next, outcomes) = snapshot.adding(catalogs, admitting: admitting)
            if let next { publish(next, &state) }
            return outcomes
        }
    }

    /// Makes `next` the registry's snapshot; the writer's lock is held.
    private func publish(_ next: Snapshot, _ state: inout WriterState) {
        // Known misses may be codes the new catalogs bring: drop them before the new codes become visible.
        if state.misses > 0 {
            fastCodes.replaceEntries { entries in entries.filter { if case .hit = $0.1 { true } else { false } } }
            state.misses = 0
            missesFull.store(false, ordering: .relaxed)
            fastCodesFull.store(false, ordering: .relaxed)
        }
        published.replace(with: next)
    }

    /// Registers one of the framework's own domains that live above the core (`axiom.plugins`, `axiom.crash`,
    /// `axiom.symbolication`), once: the modules that throw its errors call this when they are first used, so that
    /// the registry they decide through knows their codes. A second call for the same domain does nothing.
    ///
    /// - Returns: whether this call registered it (false: it was there already), so that a caller teaches the
    ///   registry the identity of a foreign type once (``registerIdentity(of:_:)`` makes an extractor each time).
    /// - Throws: ``RegistrationError`` when another source already owns the domain's name.
    @discardableResult
    package func registerFrameworkDomain(_ domain: BuiltinDomain) throws(RegistrationError) -> Bool {
        if source(ofDomain: domain.name) == domain.name { return false }
        do {
            try register(domain.catalog)
            return true
        } catch  where error.code == .duplicateSource && source(ofDomain: domain.name) == domain.name {
            // Another thread registered it first.
            return false
        }
    }

    /// Teaches the registry the identity of a foreign error type that does not conform to
    /// ``IdentifiableError`` (an error of a library you do not own).
    package func registerIdentity<E: Error>(of type: E.Type, _ extract: @escaping @Sendable (E) -> ErrorCode) {
        install(
            TypeExtractor.immortal(ClosureExtractor<E> { ErrorIdentity(code: extract($0)) }),
            for: ObjectIdentifier(E.self))
    }

    /// Teaches the registry the whole identity of a foreign error type, its code and the wait it carries (a
    /// client library's error that holds a peer's answer, say), so that a retry waits what the value says.
    public func registerIdentity<E: Error>(of type: E.Type, identity: @escaping @Sendable (E) -> ErrorIdentity) {
        install(TypeExtractor.immortal(ClosureExtractor<E>(identity)), for: ObjectIdentifier(E.self))
    }

    private func learn(_ error: any Error) -> Unmanaged<TypeExtractor> {
        // Cold: once per type and registry.
        install(TypeExtractor.learned(for: error), for: ObjectIdentifier(type(of: error)))
    }

    /// Publishes an extractor for a type; the first one installed for a type wins a race between readers.
    @discardableResult
    private func install(_ extractor: Unmanaged<TypeExtractor>, for key: ObjectIdentifier) -> Unmanaged<TypeExtractor> {
        guard extractor._withUnsafeGuaranteedRef({ $0 is ClosureExtractorBase }) else {
            return typeTable.value(for: key) { extractor } ?? extractor
        }
        // An application's extractor replaces whatever is there; rare, so the table is rebuilt, and what the value
        // cache learned of the type through the old extractor is forgotten.
        if key == ObjectIdentifier(DomainError.self) { domainErrorTaught.store(true, ordering: .relaxed) }
        typeTable.replaceEntries { entries in [(key, extractor)] + entries.filter { $0.0 != key } }
        valueCache.replaceEntries { entries in entries.filter { $0.0.type != key } }
        valueCacheFull.store(false, ordering: .relaxed)
        return extractor
    }

    /// The most error types whose extractor the type table keeps; a type past it is identified through the shared
    /// learned extractor on each lookup, uncached.
    static let typeTableLimit = 4096
    /// The most codes the fast code table keeps, hits and misses together; past it, lookups take the snapshot's
    /// dictionary, which is as correct and slower.
    static let fastCodeLimit = 1 << 16
    /// The most small plain values whose descriptor the value cache keeps; past it, values resolve through their
    /// code as before.
    static let valueCacheLimit = 4096

    /// Adds a code with an immortal key to the fast table, as a hit or as a known miss. Hits never go stale (a
    /// code never changes its descriptor) and are bounded by what is registered; misses are bounded by
    /// `rememberedMissLimit` and dropped by every registration. This re-reads the snapshot under the writer lock,
    /// so a miss recorded here is true of the current snapshot.
    private func remember(_ key: RawCodeKey, _ code: ErrorCode) {
        writer.withTrackedLock { state in
            var asked = false
            let entry = fastCodes.value(for: key) {
                asked = true
                if let descriptor = snapshot.byCode[code] { return .hit(Unmanaged.passUnretained(descriptor)) }
                guard state.misses < Self.rememberedMissLimit else { return nil }
                state.misses += 1
                if state.misses == Self.rememberedMissLimit { missesFull.store(true, ordering: .relaxed) }
                return .miss
            }
            // Nothing found and nothing asked: the table holds `fastCodeLimit` entries.
            if entry == nil && !asked { fastCodesFull.store(true, ordering: .relaxed) }
        }
    }

    /// How many entries the fast code table holds, and how many of them are misses (for tests of its bounds).
    var fastTableCounts: (entries: Int, misses: Int) {
        writer.withTrackedLock { state in (fastCodes.count, state.misses) }
    }
}

/// What the registry's writer owns.
private struct WriterState: ~Copyable {
    /// Misses in the fast code table.
    var misses = 0
}

/// A small plain error value: its type and its bytes (at most 8), which are all there is to it.
struct ValueKey: Hashable, Sendable {
    let type: ObjectIdentifier
    let bits: UInt64

    init(type: ObjectIdentifier, bits: UInt64) {
        self.type = type
        self.bits = bits
    }

    var slotHash: Int { Self.slotHash(type, bits) }

    @inline(__always)
    static func slotHash(_ type: ObjectIdentifier, _ bits: UInt64) -> Int {
        let mixed =
            (UInt(bitPattern: Int(bitPattern: type)) >> 4 ^ UInt(truncatingIfNeeded: bits)) &* 0x9E37_79B9_7F4A_7C15
        return Int(bitPattern: mixed ^ (mixed >> 29))
    }
}

/// The error an `any Error` boxed in another carries, or nil when `value` is not such a box.
///
/// An error that passed through a generic parameter bound to `any Error` can arrive as an existential boxed in
/// another: `CheckedContinuation<_, any Error>.resume(throwing:)` does so, and with it SwiftNIO's
/// `EventLoopFuture.get()`, which every Vapor async middleware awaits. Opened generically, such a value's type is
/// `any Error`, while `type(of:)` sees through the box to the error's own: a reader chosen by the one and given the
/// bytes of the other would read an existential as the error. Every reading of an error's bytes takes the error out
/// first. A metatype comparison: nothing is read for any other error.
@inline(__always)
func nestedError<E: Error>(_ value: E) -> (any Error)? {
    guard E.self == (any Error).self else { return nil }
    return unboxedSlowly(value)
}

/// `error` with every box of ``nestedError(_:)`` taken off.
@inline(__always)
func unboxed(_ error: any Error) -> any Error {
    nestedError(error) ?? error
}

@inline(never)
private func unboxedSlowly<E: Error>(_ value: E) -> any Error {
    // A dynamic cast opens the box; a box in a box (at most a few: each generic hop adds one) is opened again.
    var error: any Error = value
    for _ in 0..<8 {
        guard let inner = (error as Any) as? any Error else { break }
        func isBox<Opened: Error>(_: Opened) -> Bool { Opened.self == (any Error).self }
        error = inner
        if !isBox(inner) { break }
    }
    return error
}

/// The bytes of a small plain value (no references, 0, 1, 2, 4 or 8 bytes: its bytes are all there is to it), read
/// in place as an integer; nil for any other value. Reads the type's layout, never the value's witnesses.
@inline(__always)
func plainBits<E>(of value: borrowing E) -> UInt64? {
    #if AXIOM_PORTABLE_LAYOUT
    // The trait reads no value's bytes: every value is identified through its witnesses.
    return nil
    #else
    guard _isPOD(E.self) else { return nil }
    switch MemoryLayout<E>.size {
    case 0: return 0
    case 1: return UInt64(unsafeBitCast(copy value, to: UInt8.self))
    case 2: return UInt64(unsafeBitCast(copy value, to: UInt16.self))
    case 4: return UInt64(unsafeBitCast(copy value, to: UInt32.self))
    case 8: return unsafeBitCast(copy value, to: UInt64.self)
    default: return nil
    }
    #endif
}

struct AliasKey: Hashable {
    var domain: String
    var number: Int
}

/// What the fast table knows of a literal code: its descriptor, or that no catalog registers it.
enum FastEntry: Sendable {
    /// Registered descriptors are immortal, so the table holds them unretained.
    case hit(Unmanaged<ErrorDescriptor>)
    case miss
}
