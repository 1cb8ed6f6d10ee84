import AxiomCatalog
import Synchronization

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

    /// Whether the type is an ``ErrorEnvelope``: its values are identified as the error they carry, and this
    /// extractor reads no identity of its own. A stored flag, so that the hot path pays one load for it.
    @usableFromInline
    final let isEnvelope: Bool

    /// How many leading bytes of a value identify it for the registry's cache of resolved values: 0 when every
    /// value of the type has the same identity, 1 to 8 for a small plain value whose identity is a function of its
    /// bytes (the registry caches those of 1, 2, 4 and 8 bytes, which it reads as one integer), nil when the registry
    /// must ask each time (an envelope, an application's closure, a larger value).
    final let valueKeyBytes: Int?

    init(valueKeyBytes: Int?) {
        isEnvelope = false
        self.valueKeyBytes = valueKeyBytes
    }

    init(envelope: Void) {
        isEnvelope = true
        valueKeyBytes = nil
    }

    /// The identity of the value `pointer` points at, which is of the type this extractor was made for.
    @usableFromInline
    func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity { preconditionFailure("abstract") }

    /// The identity of `error`, whose dynamic type is the one this extractor was made for.
    @usableFromInline
    final func identity(of error: any Error) -> ErrorIdentity {
        func read<E: Error>(_ value: E) -> ErrorIdentity {
            if let inner = nestedError(value) { return identity(of: inner) }
            return withUnsafePointer(to: value) { identity(at: UnsafeRawPointer($0)) }
        }
        return read(error)
    }

    /// Keeps an extractor alive for the rest of the process, and returns it unretained.
    static func immortal(_ extractor: TypeExtractor) -> Unmanaged<TypeExtractor> {
        Unmanaged.passRetained(extractor)
    }

    /// The extractor of `CancellationError`.
    static let cancellation = immortal(FixedExtractor(ErrorCatalog.cancellationCode))

    /// The extractor of `DomainError`, which the registry also reads without asking its type table.
    static let domainError = immortal(DomainErrorExtractor())

    /// Extractors learned from the first value of each type, shared by all registries.
    private static let learnedByType = Mutex<[ObjectIdentifier: Unmanaged<TypeExtractor>]>([:])

    /// The extractor for the dynamic type of `error`: `errorCode` for an `IdentifiableError` (found with one
    /// protocol cast, the first time a type is seen), `swift/<TypeName>` for any other.
    static func learned(for error: any Error) -> Unmanaged<TypeExtractor> {
        let key = ObjectIdentifier(type(of: error))
        return learnedByType.withTrackedLock { learned in
            if let known = learned[key] { return known }
            if type(of: error) == DomainError.self {
                learned[key] = domainError
                return domainError
            }
            let extractor: TypeExtractor
            if type(of: error) is any ErrorEnvelope.Type {
                extractor = EnvelopeExtractor()
            } else if let identifiable = type(of: error) as? any IdentifiableError.Type {
                func make<E: IdentifiableError>(_ type: E.Type) -> TypeExtractor {
                    IdentifiableExtractor<E>(valueKeyBytes: plainValueSize(type))
                }
                extractor = make(identifiable)
            } else {
                extractor = FixedExtractor(ErrorCode("swift", String(describing: type(of: error))))
            }
            let made = immortal(extractor)
            learned[key] = made
            return made
        }
    }
}

/// Reads `errorCode` and `retryAfter` of an `IdentifiableError` of type `E`, in place: the value is read
/// through `pointer`, never copied, and each property is one call to the conformance's own (specialized)
/// getter.
final class IdentifiableExtractor<E: IdentifiableError>: TypeExtractor, @unchecked Sendable {
    // @unchecked: see TypeExtractor; this subclass adds no stored property.
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity {
        let value = pointer.assumingMemoryBound(to: E.self)
        return ErrorIdentity(code: value.pointee.errorCode, retryAfter: value.pointee.retryAfter)
    }
}

/// Reads a ``DomainError``'s identity, the form of every error from a peer or a plugin, with code compiled for it.
/// `IdentifiableExtractor<DomainError>` is made for a type known only at run time, so its reads run unspecialized,
/// through the conformance's witnesses, which made a domain error's lookup several times a typed error's.
final class DomainErrorExtractor: TypeExtractor, @unchecked Sendable {
    // @unchecked: see TypeExtractor; this subclass adds no stored property.
    init() { super.init(valueKeyBytes: nil) }

    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity {
        let error = pointer.assumingMemoryBound(to: DomainError.self)
        return ErrorIdentity(code: error.pointee.errorCode, retryAfter: error.pointee.retryAfter)
    }

    /// The descriptor `registry` registers for the code of the `DomainError` at `pointer`, read in place.
    @inline(__always)
    static func descriptor(at pointer: UnsafeRawPointer, in registry: ErrorRegistry) -> Unmanaged<ErrorDescriptor>? {
        let offset = MemoryLayout<DomainError>.offset(of: \DomainError.errorCode)!
        return registry.descriptorReference(forCodeAt: (pointer + offset).assumingMemoryBound(to: ErrorCode.self))
    }
}

/// One code for every value of a type the registry does not know (and for `CancellationError`).
final class FixedExtractor: TypeExtractor, @unchecked Sendable {
    let identity: ErrorIdentity
    init(_ code: ErrorCode) {
        identity = ErrorIdentity(code: code)
        super.init(valueKeyBytes: 0)
    }
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity { identity }
}

/// The extractor of an ``ErrorEnvelope`` type: the registry unwraps such values instead of identifying them.
final class EnvelopeExtractor: TypeExtractor, @unchecked Sendable {
    init() { super.init(envelope: ()) }
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity {
        ErrorIdentity(code: ErrorCatalog.unknownCode)
    }
}

/// Marks extractors an application registered on purpose: they replace a learned one.
class ClosureExtractorBase: TypeExtractor, @unchecked Sendable {}

/// An application's extractor for a foreign error type.
final class ClosureExtractor<E: Error>: ClosureExtractorBase, @unchecked Sendable {
    let extract: @Sendable (E) -> ErrorIdentity
    init(_ extract: @escaping @Sendable (E) -> ErrorIdentity) {
        self.extract = extract
        super.init(valueKeyBytes: nil)
    }
    override func identity(at pointer: UnsafeRawPointer) -> ErrorIdentity {
        extract(pointer.assumingMemoryBound(to: E.self).pointee)
    }
}

/// The size of a plain value of `type` (no references, at most 8 bytes: its bytes are all there is to it), or nil.
private func plainValueSize<T>(_ type: T.Type) -> Int? {
    #if AXIOM_PORTABLE_LAYOUT
    return nil
    #else
    return _isPOD(T.self) && MemoryLayout<T>.size <= 8 ? MemoryLayout<T>.size : nil
    #endif
}
