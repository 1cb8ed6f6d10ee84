import AxiomCatalog
import Synchronization

/// Everything the runtime needs to decide about one error code.
///
/// Descriptors are immutable and shared: the registry hands out the same instance to every lookup, so an
/// error event carries one reference instead of a copy of every field.
public final class ErrorDescriptor: Sendable, CustomStringConvertible {
    /// The identity this descriptor describes.
    public let code: ErrorCode
    /// A numeric alias within the same domain (a JSON-RPC code, a SIP cause), if any.
    package let numericCode: Int?
    /// Every numeric alias within the domain (a cause code and a SIP status, say), `numericCode` first.
    /// Each one resolves to this descriptor.
    public let numericAliases: [Int]
    /// What kind of failure this is.
    public let category: ErrorCategory
    /// How serious it is.
    public let severity: ErrorSeverity
    /// What the generic handlers do with it.
    public let disposition: Disposition
    /// How it may be retried; `nil` when it must never be retried.
    public let retry: RetryPolicy?
    /// Localization key of the user-facing message.
    package let messageKey: String
    /// Localization key of the recovery suggestion, if there is one.
    package let recoverySuggestionKey: String?
    /// How it is presented; `nil` means the category's default.
    public let presentation: PresentationRule?
    /// When escalated by the generic handler, the code it is translated to (for example "reconnect").
    public let escalation: ErrorCode?
    /// Whether the error's payload may hold secrets and must never be logged verbatim.
    public let isSensitive: Bool
    /// The HTTP status a server answers with when this error ends a request, in `httpStatusRange`; `nil` leaves
    /// it to the category's default, which the server integration chooses.
    public let httpStatus: Int?
    /// Who registered it: `builtin`, or a plugin id.
    public let source: String
    /// `domain/code`'s index in the flight recorder's table of names, 0 until an error of this code is first recorded:
    /// a record writes these four bytes where it copied the name's 64, and a descriptor made for a catalog that never
    /// records allocates no name. Descriptors of the same code share one index.
    private let recordedNameIndex = Atomic<UInt32>(0)

    /// Creates a descriptor. `source` is assigned by the registry when the catalog is registered.
    package init(
        code: ErrorCode,
        numericCode: Int? = nil,
        numericAliases: [Int] = [],
        category: ErrorCategory,
        severity: ErrorSeverity = .error,
        disposition: Disposition = .handle,
        retry: RetryPolicy? = nil,
        messageKey: String? = nil,
        recoverySuggestionKey: String? = nil,
        presentation: PresentationRule? = nil,
        escalation: ErrorCode? = nil,
        isSensitive: Bool = false,
        httpStatus: Int? = nil,
        source: String = "builtin"
    ) {
        self.code = code
        self.numericCode = numericCode ?? numericAliases.first
        self.numericAliases =
            numericCode.map { first in [first] + numericAliases.filter { $0 != first } } ?? numericAliases
        self.category = category
        self.severity = severity
        self.disposition = disposition
        self.retry = retry
        self.messageKey = messageKey ?? "error.\(code.domain).\(code.code)"
        self.recoverySuggestionKey = recoverySuggestionKey
        self.presentation = presentation
        self.escalation = escalation
        self.isSensitive = isSensitive
        self.httpStatus = httpStatus
        self.source = source
    }

    /// The descriptor of a declared code, with its keys as ``CodeDefinition/messageKeys`` derives them. `source` is
    /// assigned by the registry when the catalog is registered.
    package convenience init(_ definition: CodeDefinition, source: String = "builtin") {
        let keys = definition.messageKeys
        self.init(
            code: definition.identity, numericAliases: definition.numericAliases, category: definition.category,
            severity: definition.severity, disposition: definition.disposition, retry: definition.retry,
            messageKey: keys.message, recoverySuggestionKey: keys.recovery, presentation: definition.presentation,
            escalation: definition.escalation, isSensitive: definition.isSensitive, httpStatus: definition.httpStatus,
            source: source)
    }

    /// The statuses a descriptor may name: client and server errors. The registry refuses a catalog with any other.
    package static let httpStatusRange = 400...599

    /// A copy owned by another source.
    func owned(by source: String) -> ErrorDescriptor {
        if source == self.source { return self }
        return ErrorDescriptor(
            code: code, numericCode: numericCode, numericAliases: numericAliases, category: category,
            severity: severity,
            disposition: disposition, retry: retry, messageKey: messageKey,
            recoverySuggestionKey: recoverySuggestionKey, presentation: presentation,
            escalation: escalation, isSensitive: isSensitive, httpStatus: httpStatus, source: source)
    }

    public var description: String {
        "\(code) [\(category.rawValue), \(severity.rawValue), \(disposition.rawValue), source \(source)]"
    }
}

extension ErrorDescriptor {
    /// `domain/code`'s index in the flight recorder's table of names (`AXIOM_RECORDED_NAME_NONE` when the table is
    /// full), found the first time.
    @inline(__always)
    var recordedName: UInt32 {
        let index = recordedNameIndex.load(ordering: .relaxed)
        return index != 0 ? index : findRecordedName()
    }

    @inline(never)
    private func findRecordedName() -> UInt32 {
        let index = FlightRecorder.nameIndex("\(code.domain)/\(code.code)")
        // Relaxed: the table published the name before handing out its index, and a reader (the crash handler)
        // acquires the table's count itself. Two threads storing at once store the same index.
        recordedNameIndex.store(index, ordering: .relaxed)
        return index
    }
}
