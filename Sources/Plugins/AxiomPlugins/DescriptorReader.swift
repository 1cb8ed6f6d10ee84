import AxiomCore
import CAxiomPluginABI

import class AxiomPluginKit.PluginExport

#if canImport(Glibc)
import Glibc
#endif

/// Copies a plugin's C descriptor into Swift values, refusing what the host does not understand.
///
/// Everything is copied: after this returns, the host holds no pointer into the plugin's memory.
enum DescriptorReader {
    /// Generous bounds, so that a corrupt count cannot make the host loop for minutes: on the items of the
    /// whole catalog (nested lists included, so a million locales of a million messages each is refused too).
    static let maxItems = 1 << 20
    /// The longest text read from a plugin, in bytes: a string without its NUL is refused at this length
    /// instead of being read until some zero byte far away.
    static let maxTextLength = 1 << 16

    /// The ABI header hash this host was built with.
    static let hostABIHash = AXIOM_PLUGIN_ABI_HASH
    /// The toolchain that built this host: the only one whose Swift plugins it loads.
    static let hostToolchain = PluginExport.toolchain

    /// The hash of every revision of the version-1 header this host reads, oldest first. A plugin built against
    /// any of them loads; an unknown hash is an edited header or a revision newer than the host. When the header
    /// changes, its old hash is added here (and the old header kept under `Tests/PluginFixtures`).
    static let knownRevisions: [(revision: UInt32, hash: String)] = [
        (1, "416c93d4eebb59f1"),
        (AXIOM_PLUGIN_ABI_REVISION, AXIOM_PLUGIN_ABI_HASH),
    ]

    /// How a plugin's descriptor lays out its arrays: the stride of each element and how many of its bytes hold
    /// fields (the rest is padding, or fields the host does not know).
    struct Layout: Sendable {
        /// The stride and the end of the fields of one `axiom_plugin_code`.
        var code: (stride: Int, fieldsEnd: Int)
        /// The stride of one `axiom_plugin_locale`.
        var locale: Int
        /// The stride of one `axiom_plugin_message`.
        var message: Int

        /// A revision-1 descriptor: the arrays of the first header, whose codes end at `sensitive`.
        static let revision1: Layout = {
            let fieldsEnd = MemoryLayout<axiom_plugin_code>.offset(of: \.sensitive)! + 1
            let alignment = MemoryLayout<axiom_plugin_code>.alignment
            return Layout(
                code: ((fieldsEnd + alignment - 1) / alignment * alignment, fieldsEnd),
                locale: MemoryLayout<axiom_plugin_locale>.stride, message: MemoryLayout<axiom_plugin_message>.stride)
        }()

        /// The arrays as this host's header declares them.
        static let host = Layout(
            code: (MemoryLayout<axiom_plugin_code>.stride, MemoryLayout<axiom_plugin_code>.size),
            locale: MemoryLayout<axiom_plugin_locale>.stride, message: MemoryLayout<axiom_plugin_message>.stride)

        /// The size of a revision-1 descriptor: everything up to the element sizes that revision 2 appended.
        static let revision1DescriptorSize = MemoryLayout<axiom_plugin_descriptor>.offset(of: \.code_size)!
        /// The size of a descriptor that carries the element sizes.
        static let sizedDescriptorSize = MemoryLayout<axiom_plugin_descriptor>.offset(of: \.message_size)! + 4

        /// The largest element a plugin may declare: far above any revision, so a corrupt size is refused
        /// instead of walked.
        static let maxElementSize = 4096
    }

    typealias Failure = (PluginRejection.Code, String)

    /// Checks the descriptor's version, size, fingerprint and status.
    static func checkHeader(_ pointer: UnsafePointer<axiom_plugin_descriptor>) -> Failure? {
        // The first two fields never move: read them before trusting the rest of the layout.
        let header = UnsafeRawPointer(pointer)
        let size = header.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        let version = header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        guard version == AXIOM_PLUGIN_ABI_VERSION else {
            return (
                .incompatibleABI,
                "plugin speaks ABI version \(version); this host speaks \(AXIOM_PLUGIN_ABI_VERSION)"
            )
        }
        guard Int(size) >= Layout.revision1DescriptorSize else {
            return (
                .incompatibleABI,
                "descriptor is \(size) bytes; ABI version 1 needs at least \(Layout.revision1DescriptorSize)"
            )
        }
        let descriptor = self.descriptor(pointer)
        let fingerprint = descriptor.fingerprint
        let hash = text(fingerprint.abi_hash) ?? "(none)"
        let toolchain = text(fingerprint.toolchain) ?? "(none)"
        guard knownRevisions.contains(where: { $0.hash == hash }) else {
            let known = knownRevisions.map { "\($0.hash) (revision \($0.revision))" }.joined(separator: ", ")
            return (
                .fingerprintMismatch,
                "built against ABI header \(hash), which this host does not know (it reads \(known)): an edited header, or a revision newer than the host"
            )
        }
        switch fingerprint.language {
        case AXIOM_PLUGIN_LANGUAGE_C:
            break  // C has a stable ABI: the toolchain is recorded, not compared.
        case AXIOM_PLUGIN_LANGUAGE_SWIFT:
            guard toolchain == hostToolchain else {
                return (
                    .fingerprintMismatch,
                    "Swift plugin built by \(toolchain); this host was built by \(hostToolchain) and Swift has no stable ABI on Linux"
                )
            }
        default:
            return (.fingerprintMismatch, "unknown plugin language \(fingerprint.language)")
        }
        guard descriptor.status == AXIOM_PLUGIN_STATUS_OK else {
            let message = text(descriptor.status_message) ?? "no message"
            return (.initFailed, "status \(descriptor.status): \(message)")
        }
        return nil
    }

    /// The descriptor as this host's header declares it, with the fields the plugin's revision lacks zeroed: only
    /// `struct_size` bytes are read from the plugin. Call after ``checkHeader(_:)`` accepted the size.
    static func descriptor(_ pointer: UnsafePointer<axiom_plugin_descriptor>) -> axiom_plugin_descriptor {
        let size = Int(UnsafeRawPointer(pointer).loadUnaligned(as: UInt32.self))
        return copy(UnsafeRawPointer(pointer), fieldsEnd: min(size, MemoryLayout<axiom_plugin_descriptor>.size))
    }

    /// The layout of the descriptor's arrays: the element sizes it declares, or those of the header revision whose
    /// hash it carries (revision 1's when it is too short to declare them, or when a size is zero: a plugin
    /// recompiled against a later header without setting them).
    static func layout(_ descriptor: axiom_plugin_descriptor) -> Result<Layout, PluginCatalogError> {
        let hash = text(descriptor.fingerprint.abi_hash)
        let revision = knownRevisions.first { $0.hash == hash }?.revision ?? AXIOM_PLUGIN_ABI_REVISION
        guard Int(descriptor.struct_size) >= Layout.sizedDescriptorSize, revision >= 2 else {
            return .success(.revision1)
        }
        let minimum = Layout.revision1
        let host = Layout.host
        let sizes = [
            ("code_size", Int(descriptor.code_size), minimum.code.fieldsEnd, host.code.stride),
            ("locale_size", Int(descriptor.locale_size), minimum.locale, host.locale),
            ("message_size", Int(descriptor.message_size), minimum.message, host.message),
        ].map { name, size, least, header in (name, size == 0 ? header : size, least) }
        for (name, size, least) in sizes where size < least || size > Layout.maxElementSize {
            return .failure(
                PluginCatalogError(
                    reason: .invalidCatalog,
                    detail: "\(name) is \(size) bytes; ABI version 1 needs \(least) to \(Layout.maxElementSize)"))
        }
        let code = sizes[0].1
        return .success(
            Layout(
                code: (code, min(code, MemoryLayout<axiom_plugin_code>.size)), locale: sizes[1].1, message: sizes[2].1
            ))
    }

    /// A `T` whose first `fieldsEnd` bytes come from `source` and whose other bytes are zero: a field appended in a
    /// later revision than the plugin's reads as absent.
    private static func copy<T>(_ source: UnsafeRawPointer, fieldsEnd: Int) -> T {
        withUnsafeTemporaryAllocation(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment) {
            buffer in
            let base = buffer.baseAddress!
            base.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
            base.copyMemory(from: source, byteCount: min(fieldsEnd, MemoryLayout<T>.size))
            return base.load(as: T.self)
        }
    }

    /// The plugin's id, version and toolchain.
    static func identity(
        _ descriptor: axiom_plugin_descriptor
    ) -> Result<(id: String, version: String, toolchain: String), PluginCatalogError> {
        guard let id = text(descriptor.id), isReverseDNS(id) else {
            return .failure(
                PluginCatalogError(
                    reason: .invalidPluginID,
                    detail: "plugin id '\(text(descriptor.id) ?? "(null)")' is not reverse-DNS (org.example.name)"))
        }
        guard let version = text(descriptor.version), !version.isEmpty else {
            return .failure(PluginCatalogError(reason: .invalidCatalog, detail: "plugin \(id) has no version"))
        }
        return .success((id, version, text(descriptor.fingerprint.toolchain) ?? ""))
    }

    /// The catalog as the registry takes it, with `source` set to the plugin id.
    static func catalog(
        _ descriptor: axiom_plugin_descriptor, id: String, version: String
    ) -> Result<ErrorCatalog, PluginCatalogError> {
        do {
            let catalog = descriptor.catalog
            let layout = try self.layout(descriptor).get()
            let budget = ItemBudget()
            let domains = try list(catalog.domains, catalog.domain_count, "domains", budget) { pointer, index in
                try required(pointer, "domain #\(index)")
            }
            let descriptors = try list(
                catalog.codes, catalog.code_count, stride: layout.code.stride, fieldsEnd: layout.code.fieldsEnd,
                "codes", budget
            ) { code, index in
                try self.descriptor(code, index: index, source: id, budget: budget)
            }
            var messages: [String: [String: String]] = [:]
            let locales = try list(
                catalog.locales, catalog.locale_count, stride: layout.locale, fieldsEnd: layout.locale, "locales",
                budget
            ) { locale, _ in locale }
            for (index, locale) in locales.enumerated() {
                let name = try required(locale.locale, "locale #\(index)")
                let entries = try list(
                    locale.messages, locale.message_count, stride: layout.message, fieldsEnd: layout.message,
                    "messages of \(name)", budget
                ) { entry, _ in entry }
                messages[name, default: [:]].reserveCapacity(entries.count)
                for entry in entries {
                    let key = try required(entry.key, "a message key of locale \(name)")
                    messages[name, default: [:]][key] = try required(entry.text, "text of \(name)/\(key)")
                }
            }
            return .success(
                ErrorCatalog(
                    source: id, version: version, domains: domains, descriptors: descriptors, messages: messages))
        } catch let error as PluginCatalogError {
            return .failure(error)
        } catch {
            return .failure(PluginCatalogError(reason: .invalidCatalog, detail: "\(error)"))
        }
    }

    /// `source` is set here, so that the registry keeps the instance instead of copying it to own it.
    private static func descriptor(
        _ code: axiom_plugin_code, index: Int, source: String, budget: ItemBudget
    ) throws -> ErrorDescriptor {
        let domain = try required(code.domain, "domain of code #\(index)")
        let name = try required(code.code, "name of code #\(index) in \(domain)")
        func label() -> String { "\(domain)/\(name)" }
        let aliases = try list(
            code.numeric_aliases, code.numeric_alias_count, "numeric aliases of \(label())", budget
        ) { value, _ in
            guard let number = Int(exactly: value) else {
                throw PluginCatalogError(
                    reason: .invalidCatalog, detail: "alias \(value) of \(label()) is out of range")
            }
            return number
        }
        let category: ErrorCategory = try known(code.category, "category", of: label())
        let severity: ErrorSeverity = try known(code.severity, "severity", of: label())
        let disposition: Disposition = try known(code.disposition, "disposition", of: label())
        var retry: RetryPolicy?
        if let policy = code.retry?.pointee {
            let backoff: RetryPolicy.Backoff = try known(policy.backoff, "backoff", of: label())
            guard policy.max_attempts >= 1, policy.delay_ms >= 0, policy.max_delay_ms >= policy.delay_ms,
                policy.max_delay_ms <= maxDelayMilliseconds
            else {
                throw PluginCatalogError(
                    reason: .invalidCatalog,
                    detail:
                        "retry of \(label()) needs max_attempts >= 1 and 0 <= delay_ms <= max_delay_ms <= \(maxDelayMilliseconds)"
                )
            }
            retry = RetryPolicy(
                maxAttempts: Int(policy.max_attempts), backoff: backoff, delay: .milliseconds(policy.delay_ms),
                maxDelay: .milliseconds(policy.max_delay_ms), jitter: policy.jitter != 0,
                honorsRetryAfter: policy.honors_retry_after != 0)
        }
        var presentation: PresentationRule?
        if let rule = code.presentation?.pointee {
            let style: PresentationStyle = try known(rule.style, "presentation style", of: label())
            let feedback: FeedbackLevel = try known(rule.feedback, "feedback", of: label())
            guard rule.duration_ms >= 0 || rule.duration_ms == Int64(AXIOM_PLUGIN_UNTIL_DISMISSED) else {
                throw PluginCatalogError(
                    reason: .invalidCatalog, detail: "presentation duration of \(label()) is negative")
            }
            guard rule.duration_ms <= maxDelayMilliseconds else {
                throw PluginCatalogError(
                    reason: .invalidCatalog,
                    detail: "presentation duration of \(label()) is above \(maxDelayMilliseconds) ms")
            }
            presentation = PresentationRule(
                style: style, duration: rule.duration_ms < 0 ? nil : .milliseconds(rule.duration_ms),
                feedback: feedback)
        }
        var escalation: ErrorCode?
        switch (text(code.escalation_domain), text(code.escalation_code)) {
        case (let domain?, let target?): escalation = ErrorCode(domain, target)
        case (nil, nil): escalation = nil
        default:
            throw PluginCatalogError(
                reason: .invalidCatalog, detail: "escalation of \(label()) needs a domain and a code")
        }
        var httpStatus: Int?
        if code.http_status != 0 {
            guard ErrorDescriptor.httpStatusRange.contains(Int(code.http_status)) else {
                throw PluginCatalogError(
                    reason: .invalidCatalog,
                    detail:
                        "HTTP status \(code.http_status) of \(label()) is not an error status (\(ErrorDescriptor.httpStatusRange.lowerBound)...\(ErrorDescriptor.httpStatusRange.upperBound), or 0 for the category's default)"
                )
            }
            httpStatus = Int(code.http_status)
        }
        // The header's words are the contract: a NULL message key is `error.<category>.<code>`, with the category
        // as the plugin wrote it (already checked to be one the host knows). A Swift catalog's default key is
        // `error.<domain>.<code>`; a C plugin's is not, and cannot change within ABI version 1.
        let messageKey = text(code.message_key) ?? "error.\(text(code.category) ?? "\(category)").\(name)"
        return ErrorDescriptor(
            code: ErrorCode(domain, name), numericAliases: aliases, category: category, severity: severity,
            disposition: disposition, retry: retry, messageKey: messageKey,
            recoverySuggestionKey: text(code.recovery_key), presentation: presentation, escalation: escalation,
            isSensitive: code.sensitive != 0, httpStatus: httpStatus, source: source)
    }

    // MARK: Reading C values

    /// The longest wait a plugin may declare, retry delay or presentation duration: a year. Longer is a corrupt
    /// value, and the runtime computes with these durations (a backoff multiplies the delay).
    static let maxDelayMilliseconds: Int64 = 365 * 24 * 3600 * 1000

    /// UTF-8 text, or nil for a null pointer, bytes that are not UTF-8 or text longer than `maxTextLength`.
    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard case .text(let value) = readText(pointer) else { return nil }
        return value
    }

    private enum Text {
        case null, tooLong, notUTF8
        case text(String)
    }

    /// Reads at most `maxTextLength + 1` bytes: the NUL must come within them.
    private static func readText(_ pointer: UnsafePointer<CChar>?) -> Text {
        guard let pointer else { return .null }
        let length = strnlen(pointer, maxTextLength + 1)
        guard length <= maxTextLength else { return .tooLong }
        let bytes = UnsafeRawPointer(pointer).bindMemory(to: UInt8.self, capacity: length)
        guard let value = String(validating: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self) else {
            return .notUTF8
        }
        return .text(value)
    }

    // Descriptions are autoclosures: they are only built for a refusal, not for each field read.
    private static func required(_ pointer: UnsafePointer<CChar>?, _ what: @autoclosure () -> String) throws -> String {
        let value: String
        switch readText(pointer) {
        case .null: throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()) is null")
        case .notUTF8: throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()) is not UTF-8")
        case .tooLong:
            throw PluginCatalogError(
                reason: .invalidCatalog, detail: "\(what()) is longer than \(maxTextLength) bytes or not terminated")
        case .text(let text): value = text
        }
        guard !value.isEmpty else { throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()) is empty") }
        return value
    }

    private static func known<T: RawRepresentable & CaseIterable>(
        _ pointer: UnsafePointer<CChar>?, _ what: String, of label: @autoclosure () -> String
    ) throws -> T where T.RawValue == String {
        // The usual case, a known name, is found by its bytes: no string is made or validated for it.
        if let pointer {
            let bytes = UnsafeRawBufferPointer(start: pointer, count: strnlen(pointer, maxTextLength + 1))
            for candidate in T.allCases where candidate.rawValue.utf8.elementsEqual(bytes) { return candidate }
        }
        let value = try required(pointer, "\(what) of \(label())")
        guard let known = T(rawValue: value) else {
            let expected = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw PluginCatalogError(
                reason: .invalidCatalog, detail: "unknown \(what) '\(value)' in \(label()); known: \(expected)")
        }
        return known
    }

    /// What is left of `maxItems` for one catalog. A class, so that nested lists share it without overlapping
    /// `inout` accesses.
    final class ItemBudget {
        var remaining = DescriptorReader.maxItems
    }

    /// An array of plain C values (strings, aliases), laid out as this host's header declares them.
    private static func list<Element, Result>(
        _ base: UnsafePointer<Element>?, _ count: Int, _ what: @autoclosure () -> String, _ budget: ItemBudget,
        _ transform: (Element, Int) throws -> Result
    ) throws -> [Result] {
        try list(
            base, count, stride: MemoryLayout<Element>.stride, fieldsEnd: MemoryLayout<Element>.size, what(), budget,
            transform)
    }

    /// An array whose elements are `stride` bytes apart in the plugin's memory, of which the first `fieldsEnd`
    /// are read: the plugin's element may be smaller than the host's (an earlier revision) or larger (a later one).
    private static func list<Element, Result>(
        _ base: UnsafePointer<Element>?, _ count: Int, stride: Int, fieldsEnd: Int,
        _ what: @autoclosure () -> String, _ budget: ItemBudget, _ transform: (Element, Int) throws -> Result
    ) throws -> [Result] {
        // A size_t count above Int.max arrives negative: it is as corrupt as a huge one.
        guard count != 0 else { return [] }
        guard count > 0, count <= budget.remaining else {
            throw PluginCatalogError(
                reason: .invalidCatalog,
                detail: "\(what()): \(UInt(bitPattern: count)) items is beyond any sane catalog (\(maxItems) items)")
        }
        budget.remaining -= count
        guard let base else {
            throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()): null with count \(count)")
        }
        let raw = UnsafeRawPointer(base)
        var result: [Result] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let element: Element = copy(raw + index * stride, fieldsEnd: fieldsEnd)
            result.append(try transform(element, index))
        }
        return result
    }

    /// Reverse-DNS: two or more dot-separated labels of ASCII letters, digits, '-' and '_'.
    static func isReverseDNS(_ id: String) -> Bool {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && id.utf8.count <= 255
            && labels.allSatisfy { label in
                !label.isEmpty
                    && label.utf8.allSatisfy { byte in
                        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
                            || (byte >= 0x30 && byte <= 0x39)
                            || byte == 0x2D || byte == 0x5F
                    }
            }
    }
}

/// A catalog the host cannot take, before it reaches the registry.
struct PluginCatalogError: Error {
    let reason: PluginRejection.Code
    let detail: String
}
