#if HTTP
import Axiom
import Foundation
import Synchronization
@_exported import HTTPTypes

/// The answer for an error: the response head and body a server adapter sends, and the code it details.
public struct ProblemAnswer: Sendable {
    /// Status and header fields: `Content-Type: application/problem+json`, `Vary: Accept-Language`,
    /// `Content-Language`, and `Retry-After` when there is a wait.
    public var response: HTTPResponse
    /// The problem details, encoded as JSON.
    public var body: Data
    /// What the body says.
    public var problem: ProblemDetails
    /// The error's own code, for the log, the span and the metrics; the body names `axiom/unknownError` instead
    /// when no catalog registers it.
    public var code: ErrorCode
}

/// Turns an error into an RFC 9457 problem details answer, for any server: what a server adapter (such as
/// `ProblemDetailsMiddleware` for Hummingbird) sends once its pipeline has decided the error.
///
/// The status comes from the configuration (an override, the descriptor's `httpStatus`, its category's status).
/// `title` and `detail` come from the registry's catalogs in the language `Accept-Language` asks for (English when it
/// asks for none the registry has), never from the error's own description, so a payload cannot reach the body; a
/// 5xx answer says only the generic "something went wrong", whatever the code. An error no catalog registers is
/// answered as `axiom/unknownError`. `Retry-After` comes from the error's own Retry-After, or, for 429 and 503,
/// from the first wait of the descriptor's retry policy. Every answer carries `Vary: Accept-Language`.
public struct ProblemResponder: Sendable {
    /// The registry errors are identified and described by.
    package let registry: ErrorRegistry
    /// Type URIs and statuses.
    package let configuration: ProblemDetailsConfiguration
    /// The texts of the answers given so far, shared by copies of this responder: a server adapter makes its
    /// responder once and answers every request with it.
    private let texts = AnswerTexts()

    /// A responder over `registry`.
    public init(registry: ErrorRegistry, configuration: ProblemDetailsConfiguration = .init()) {
        self.registry = registry
        self.configuration = configuration
    }

    /// The answer for `error`.
    ///
    /// - Parameters:
    ///   - acceptLanguage: the request's `Accept-Language` field value, if it sent one.
    ///   - instance: the request's path, the body's `instance`.
    ///   - traceId: the trace the request belongs to, when it is traced.
    ///   - ownStatus: a status the error was thrown with (a server framework's own HTTP error), kept when the
    ///     registry cannot identify the error and it is a 4xx or 5xx; asked for only then.
    public func answer(
        _ error: any Error, acceptLanguage: String?, instance: String, traceId: String? = nil,
        ownStatus: @autoclosure () -> Int? = nil
    ) -> ProblemAnswer {
        let (identity, descriptor) = registry.resolve(error)
        return parts(
            identity: identity, descriptor: descriptor, acceptLanguage: acceptLanguage, instance: instance,
            traceId: traceId, ownStatus: ownStatus()
        ).answer
    }

    /// The answer for an error of `identity` and `descriptor` (an event's, already resolved), in parts.
    package func parts(
        identity: ErrorIdentity, descriptor: ErrorDescriptor, acceptLanguage: String?, instance: String,
        traceId: String?, ownStatus: @autoclosure () -> Int?
    ) -> ProblemAnswerParts {
        var status = configuration.status(for: descriptor)
        let unregistered = descriptor.code == ErrorCatalog.unknownCode
        if unregistered, let ownStatus = ownStatus(), (400...599).contains(ownStatus) {
            status = ownStatus
        }
        // An error no catalog registers is answered with the one generic identity: its own code (for a Swift error,
        // its type's name) is an implementation detail, and goes only to the log, the span and the metrics.
        let publicCode = unregistered ? ErrorCatalog.unknownCode : identity.code
        let revision = registry.revision
        let locale =
            acceptLanguage.map { header in
                self.texts.locale(for: header, revision: revision) {
                    AcceptLanguage($0).preferred(from: registry.locales)
                }
            } ?? Localizer.baseLocale
        let retryAfter = Self.retryAfterSeconds(identity: identity, descriptor: descriptor, status: status)
        let texts = texts.texts(
            for: AnswerTexts.Key(code: publicCode, locale: locale, status: status, retryAfter: retryAfter),
            of: descriptor, revision: revision
        ) { key in
            let localizer = Localizer(registry: registry, locale: key.locale)
            let generic = key.status >= 500
            let title = generic ? localizer.text(forKey: Localizer.generalTitleKey) : localizer.title(for: descriptor)
            let detail = generic ? localizer.text(forKey: Localizer.unexpectedKey) : localizer.message(for: descriptor)
            return AnswerTexts.Texts(
                code: key.code, type: configuration.type(of: key.code), title: title?.text ?? "Something went wrong",
                detail: detail?.text ?? "Something went wrong. Please try again.", status: key.status,
                language: detail?.locale ?? Localizer.baseLocale, retryAfter: key.retryAfter)
        }
        return ProblemAnswerParts(texts: texts, instance: instance, traceId: traceId, code: identity.code)
    }

    /// Whole seconds to wait before trying again, if the error or its descriptor says: the error's own Retry-After
    /// (capped by the policy's longest wait when there is a policy), or for 429 and 503 the policy's first wait.
    package static func retryAfterSeconds(identity: ErrorIdentity, descriptor: ErrorDescriptor, status: Int) -> Int? {
        var wait = identity.retryAfter
        if let own = wait, let policy = descriptor.retry { wait = min(own, policy.maxDelay) }
        if wait == nil, status == 429 || status == 503, let policy = descriptor.retry { wait = policy.delay }
        guard let wait, wait > .zero else { return nil }
        let (seconds, attoseconds) = wait.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}

/// A problem answer in parts, as a server adapter sends it: its head, and its body as the kept parts around the
/// request's path and trace, which the adapter writes straight into its server's own buffer. The whole
/// ``ProblemAnswer`` (the body as `Data`, the details as ``ProblemDetails``) is made from it only when asked for: no
/// HTTP adapter reads the details, and the gRPC adapter never sends the body.
package struct ProblemAnswerParts: Sendable {
    /// Status and header fields, as ``ProblemAnswer/response``.
    package var response: HTTPResponse { texts.response }
    /// The error's own code, as ``ProblemAnswer/code``.
    package let code: ErrorCode
    private let texts: AnswerTexts.Texts
    private let instance: String
    private let traceId: String?

    init(texts: AnswerTexts.Texts, instance: String, traceId: String?, code: ErrorCode) {
        self.code = code
        self.texts = texts
        self.instance = instance
        self.traceId = traceId
    }

    /// The `Retry-After` field's seconds, when the answer has one.
    package var retryAfter: Int? { texts.retryAfter }

    /// ``response`` with `Content-Length: count` added, as a server sends it with a body of `count` bytes (see
    /// ``bodyCount``). Kept with the texts for each size answered (the body's size changes only with the request's
    /// path and trace), so an answer does not copy the shared header fields to add the field.
    package func response(contentLength count: Int) -> HTTPResponse {
        texts.response(contentLength: count)
    }

    /// What the body says.
    package var problem: ProblemDetails {
        ProblemDetails(
            type: texts.type, title: texts.title, status: texts.response.status.code, detail: texts.detail,
            instance: instance, code: texts.code, traceId: traceId)
    }

    /// The body's size in bytes.
    package var bodyCount: Int { texts.body.count(instance: instance, traceId: traceId) }

    /// Writes the body at the start of `buffer`, which has at least ``bodyCount`` bytes; returns how many it wrote.
    package func writeBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        texts.body.write(instance: instance, traceId: traceId, into: buffer)
    }

    /// A form of this answer's texts that an adapter derives once and keeps with them (the gRPC adapter's serialized
    /// `google.rpc.Status` details): made by `make` for the first answer given with these texts, the same object for
    /// every answer after, until the texts are looked up again (a registration since, or more answers than the cache
    /// keeps). A responder serves one adapter, so its texts have one form; a form of another type is made each time.
    package func kept<Form: AnyObject & Sendable>(_ make: () -> Form) -> Form {
        if let form = texts.kept.load() as? Form { return form }
        return texts.kept.storeIfNil(make()) as? Form ?? make()
    }

    /// The answer whole.
    package var answer: ProblemAnswer {
        ProblemAnswer(
            response: response, body: texts.body.body(instance: instance, traceId: traceId), problem: problem,
            code: code)
    }
}

/// The answers already given, by code, language, status and wait: their texts, header fields and body, looked up
/// in the registry's catalogs once per registry revision, as every request that fails the same way is answered
/// with the same texts. At most ``capacity`` entries are kept: a peer that sends many languages, or a service with
/// many codes or waits, costs a bounded amount of memory, and what does not fit is looked up each time.
///
/// In front of that locked map, ``recentCount`` slots are read without a lock and without hashing the key's strings:
/// each holds the texts of one key (the first answered whose descriptor, status, wait and language fall in the slot),
/// valid for the registry revision they were made at. A service's usual answers (a few codes in one or two
/// languages) are found there; a key whose slot holds another is found in the map as before.
final class AnswerTexts: Sendable {
    struct Key: Hashable, Sendable {
        var code: ErrorCode
        var locale: String
        /// The status answered with: 5xx answers say only the generic text, and the body names it.
        var status: Int
        /// The `Retry-After` field's seconds.
        var retryAfter: Int?
    }

    /// What every answer for a key says. One object, shared by every answer made from it and never changed: an
    /// answer holds one reference to it, not a copy of each of its strings and fields.
    final class Texts: Sendable {
        let code: String
        let type: String
        let title: String
        let detail: String
        /// The status, with `Content-Type`, `Vary: Accept-Language`, `Content-Language` (the language of the
        /// detail) and `Retry-After` when there is a wait.
        let response: HTTPResponse
        /// The body, but for the request's path and trace.
        let body: ProblemDetails.Template
        /// The `Retry-After` field's seconds.
        let retryAfter: Int?
        /// What an adapter derived from these texts once (``ProblemAnswerParts/kept(_:)``), set by the first answer.
        let kept = AtomicLazyReference<AnyObject & Sendable>()
        /// ``response`` with `Content-Length`, for the sizes answered so far: the head of a size is kept in the slot
        /// of its size modulo ``sizesKept``, by the first answer of a size that falls there, and read without a lock
        /// (each slot a ``PublishedReference``, holding ``SizedHead/empty`` until then). A service's routes have paths
        /// of a few neighbouring lengths, so their sizes fall in slots of their own; a size whose slot holds another
        /// is answered all the same, its fields copied each time.
        private let sized: SizedSlots
        typealias SizedSlots = InlineArray<32, PublishedReference<SizedHead>>
        /// How many sizes can be kept.
        static var sizesKept: Int { SizedSlots.count }

        /// A head with its `Content-Length`, and that length.
        final class SizedHead: Sendable {
            let count: Int
            let response: HTTPResponse
            init(count: Int, response: HTTPResponse) {
                self.count = count
                self.response = response
            }

            /// What an empty slot holds: the head of no size.
            static let empty = SizedHead(count: -1, response: HTTPResponse(status: .ok))
        }

        init(
            code: ErrorCode, type: String, title: String, detail: String, status: Int, language: String,
            retryAfter: Int?
        ) {
            let code = code.description
            self.code = code
            self.type = type
            self.title = title
            self.detail = detail
            var fields: HTTPFields = [.contentType: ProblemDetails.mediaType]
            // The texts were chosen by Accept-Language: a shared cache must not serve one language's answer to a
            // client that asked for another (RFC 9110 §12.5.5; a 404 is cacheable by default).
            fields[.vary] = "Accept-Language"
            fields[.contentLanguage] = language
            if let retryAfter { fields[.retryAfter] = String(retryAfter) }
            response = HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
            self.retryAfter = retryAfter
            body = ProblemDetails.Template(code: code, detail: detail, status: status, title: title, type: type)
            sized = SizedSlots { _ in PublishedReference(SizedHead.empty) }
        }

        /// ``response`` with `Content-Length: count`.
        func response(contentLength count: Int) -> HTTPResponse {
            let slot = Int(UInt(bitPattern: count) % UInt(Self.sizesKept))
            let kept = sized[slot].object
            if let head = kept._withUnsafeGuaranteedRef({ $0.count == count ? $0.response : nil }) { return head }
            var head = response
            head.headerFields[.contentLength] = String(count)
            // Kept when the slot is still empty; another answer may have kept its own size there first.
            if kept._withUnsafeGuaranteedRef({ $0 === SizedHead.empty }) {
                _ = sized[slot].replace(kept, with: SizedHead(count: count, response: head))
            }
            return head
        }
    }

    /// The most entries kept.
    static let capacity = 1024

    private let state = Mutex<(revision: Int, entries: [Key: Texts])>((-1, [:]))

    /// The texts of recent keys, in slots read without a lock.
    private let recent = RevisionSlots<Key, Texts>(
        emptyKey: Key(code: ErrorCatalog.unknownCode, locale: "", status: 0, retryAfter: nil))
    /// How many keys are kept in slots read without a lock.
    static var recentCount: Int { RevisionSlots<Key, Texts>.count }

    /// The slot of `key`, answered for an error of `descriptor`: from the descriptor's address (a registered
    /// descriptor lives as long as its registry), the status, the wait and the language's length, none of which
    /// needs hashing a string.
    static func slot(of key: Key, descriptor: ErrorDescriptor) -> Int {
        let address = UInt(bitPattern: Unmanaged.passUnretained(descriptor).toOpaque())
        var mixed = address >> 4
        mixed ^= UInt(bitPattern: key.status) &* 0x9E37_79B9
        mixed ^= UInt(bitPattern: key.retryAfter ?? -1) &* 0x85EB_CA6B
        mixed ^= UInt(key.locale.utf8.count) &* 0xC2B2_AE35
        mixed ^= mixed >> 16
        return Int(mixed % UInt(recentCount))
    }

    /// The texts for `key` (answered for an error of `descriptor`), made by `make` when they are not kept for
    /// `revision`.
    func texts(for key: Key, of descriptor: ErrorDescriptor, revision: Int, make: (Key) -> Texts) -> Texts {
        recent.value(for: key, inSlot: Self.slot(of: key, descriptor: descriptor), revision: revision) { key in
            lockedTexts(for: key, revision: revision, make: make)
        }
    }

    /// Clients send the same few headers again and again (a browser sends its user's with every request): the
    /// locale each chose is kept in slots read without a lock, as the texts are, so a header is read once per
    /// registration, not once per answer.
    private let chosenLocales = RevisionSlots<String, String>(emptyKey: "")

    /// The slot of an `Accept-Language` header: from its length and three of its bytes, with no hashing.
    static func slot(ofHeader header: String) -> Int {
        let bytes = header.utf8
        var mixed = UInt(bytes.count) &* 0x9E37_79B9
        if let first = bytes.first, let last = bytes.last {
            let middle = bytes[bytes.index(bytes.startIndex, offsetBy: bytes.count / 2)]
            mixed ^= UInt(first) &* 0x85EB_CA6B ^ UInt(middle) &* 0xC2B2_AE35 ^ UInt(last) << 7
        }
        mixed ^= mixed >> 16
        return Int(mixed % UInt(RevisionSlots<String, String>.count))
    }

    /// The locale `header` chooses at `revision`, chosen by `choose` when it is not kept. Headers longer than a
    /// browser's are not kept: their slot stays free for the next.
    @inline(__always)
    func locale(for header: String, revision: Int, choose: (String) -> String) -> String {
        chosenLocales.value(
            for: header, inSlot: Self.slot(ofHeader: header), revision: revision, keeping: header.utf8.count <= 256,
            make: choose)
    }

    /// The texts for `key` from the locked map, made by `make` when they are not kept for `revision`.
    private func lockedTexts(for key: Key, revision: Int, make: (Key) -> Texts) -> Texts {
        if let kept = state.withTrackedLock({ $0.revision == revision ? $0.entries[key] : nil }) { return kept }
        let made = make(key)
        state.withTrackedLock { state in
            // A registration since: the kept texts may name what it replaced. A caller that read the revision
            // before it keeps nothing.
            if revision > state.revision { state = (revision, [:]) }
            if revision == state.revision, state.entries.count < Self.capacity { state.entries[key] = made }
        }
        return made
    }
}

/// Values kept by key at a registry revision, in 16 slots read without a lock (each a ``PublishedReference``): in
/// front of a slower source of the same values (a locked map, a parser). The caller picks a key's slot, cheaply; an
/// entry answers only a key equal to its own, at the revision it was made at. A slot is filled by the first key that
/// falls in it and refilled only by a later revision (a registration since), so the entries retired for readers
/// number at most 16 per registration.
final class RevisionSlots<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    final class Entry: Sendable {
        let key: Key
        /// The registry revision the value was made at: it answers only a lookup of that revision.
        let revision: Int
        let value: Value?
        init(key: Key, revision: Int, value: Value?) {
            self.key = key
            self.revision = revision
            self.value = value
        }
    }

    typealias Slots = InlineArray<16, PublishedReference<Entry>>
    /// How many slots there are.
    static var count: Int { Slots.count }
    private let slots: Slots

    /// Slots holding no value; `emptyKey` is any key (an empty slot's entry is of no revision, so it answers none).
    init(emptyKey: Key) {
        let empty = Entry(key: emptyKey, revision: -1, value: nil)
        slots = Slots { _ in PublishedReference(empty) }
    }

    /// The value of `key` at `revision`, read from slot `slot`, or made by `make`; kept in the slot (when `keeping`)
    /// if the slot is empty or holds a value of an earlier revision, unless another caller kept its own there first.
    @inline(__always)
    func value(for key: Key, inSlot slot: Int, revision: Int, keeping: Bool = true, make: (Key) -> Value) -> Value {
        let entry = slots[slot].object
        if let kept = entry._withUnsafeGuaranteedRef({ $0.revision == revision && $0.key == key ? $0.value : nil }) {
            return kept
        }
        let value = make(key)
        if keeping, entry._withUnsafeGuaranteedRef({ $0.revision < revision }) {
            _ = slots[slot].replace(entry, with: Entry(key: key, revision: revision, value: value))
        }
        return value
    }
}
#endif
