import Axiom
import CAxiomPluginABI

import class AxiomPluginKit.PluginExport

/// Copies a plugin's C descriptor into Swift values, refusing what the host does not understand.
///
/// Everything is copied: after this returns, the host holds no pointer into the plugin's memory.
enum DescriptorReader {
    /// Generous bounds, so that a corrupt count cannot make the host loop for minutes.
    static let maxItems = 1 << 20

    /// The ABI version and descriptor size this host was built with.
    static let hostStructSize = MemoryLayout<axiom_plugin_descriptor>.size
    static let hostABIHash = AXIOM_PLUGIN_ABI_HASH

    typealias Failure = (PluginRejection.Reason, String)

    /// Checks the descriptor's version, size, fingerprint and status.
    static func checkHeader(_ pointer: UnsafePointer<axiom_plugin_descriptor>) -> Failure? {
        // The first two fields never move: read them before trusting the rest of the layout.
        let header = UnsafeRawPointer(pointer)
        let size = header.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        let version = header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        guard version == AXIOM_PLUGIN_ABI_VERSION else {
            return (
                .abiVersionMismatch,
                "plugin speaks ABI version \(version); this host speaks \(AXIOM_PLUGIN_ABI_VERSION)"
            )
        }
        guard Int(size) >= hostStructSize else {
            return (.structSizeMismatch, "descriptor is \(size) bytes; ABI version 1 needs at least \(hostStructSize)")
        }
        let descriptor = pointer.pointee
        let fingerprint = descriptor.fingerprint
        let hash = text(fingerprint.abi_hash) ?? "(none)"
        let toolchain = text(fingerprint.toolchain) ?? "(none)"
        guard hash == hostABIHash else {
            return (.fingerprintMismatch, "built against ABI header \(hash); this host has \(hostABIHash)")
        }
        switch fingerprint.language {
        case AXIOM_PLUGIN_LANGUAGE_C:
            break  // C has a stable ABI: the toolchain is recorded, not compared.
        case AXIOM_PLUGIN_LANGUAGE_SWIFT:
            guard toolchain == PluginExport.toolchain else {
                return (
                    .fingerprintMismatch,
                    "Swift plugin built by \(toolchain); this host was built by \(PluginExport.toolchain) and Swift has no stable ABI on Linux"
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
            let domains = try list(catalog.domains, catalog.domain_count, "domains") { pointer, index in
                try required(pointer, "domain #\(index)")
            }
            let descriptors = try list(catalog.codes, catalog.code_count, "codes") { code, index in
                try self.descriptor(code, index: index, source: id)
            }
            var messages: [String: [String: String]] = [:]
            let locales = try list(catalog.locales, catalog.locale_count, "locales") { $0 }
            for (index, locale) in locales.enumerated() {
                let name = try required(locale.locale, "locale #\(index)")
                let entries = try list(locale.messages, locale.message_count, "messages of \(name)") { $0 }
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
    private static func descriptor(_ code: axiom_plugin_code, index: Int, source: String) throws -> ErrorDescriptor {
        let domain = try required(code.domain, "domain of code #\(index)")
        let name = try required(code.code, "name of code #\(index) in \(domain)")
        func label() -> String { "\(domain)/\(name)" }
        let aliases = try list(code.numeric_aliases, code.numeric_alias_count, "numeric aliases of \(label())") {
            value, _ in
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
            guard policy.max_attempts >= 1, policy.delay_ms >= 0, policy.max_delay_ms >= policy.delay_ms else {
                throw PluginCatalogError(
                    reason: .invalidCatalog,
                    detail: "retry of \(label()) needs max_attempts >= 1 and 0 <= delay_ms <= max_delay_ms")
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
        return ErrorDescriptor(
            code: ErrorCode(domain, name), numericAliases: aliases, category: category, severity: severity,
            disposition: disposition, retry: retry, messageKey: text(code.message_key),
            recoverySuggestionKey: text(code.recovery_key), presentation: presentation, escalation: escalation,
            isSensitive: code.sensitive != 0, source: source)
    }

    // MARK: Reading C values

    /// UTF-8 text, or nil for a null pointer or bytes that are not UTF-8.
    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.flatMap { String(validatingCString: $0) }
    }

    // Descriptions are autoclosures: they are only built for a refusal, not for each field read.
    private static func required(_ pointer: UnsafePointer<CChar>?, _ what: @autoclosure () -> String) throws -> String {
        guard let pointer else { throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()) is null") }
        guard let value = String(validatingCString: pointer) else {
            throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()) is not UTF-8")
        }
        guard !value.isEmpty else { throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()) is empty") }
        return value
    }

    private static func known<T: RawRepresentable & CaseIterable>(
        _ pointer: UnsafePointer<CChar>?, _ what: String, of label: @autoclosure () -> String
    ) throws -> T where T.RawValue == String {
        let value = try required(pointer, "\(what) of \(label())")
        guard let known = T(rawValue: value) else {
            let expected = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw PluginCatalogError(
                reason: .invalidCatalog, detail: "unknown \(what) '\(value)' in \(label()); known: \(expected)")
        }
        return known
    }

    private static func list<Element, Result>(
        _ base: UnsafePointer<Element>?, _ count: Int, _ what: @autoclosure () -> String,
        _ transform: (Element, Int) throws -> Result
    ) throws -> [Result] {
        guard count > 0 else { return [] }
        guard count <= maxItems else {
            throw PluginCatalogError(
                reason: .invalidCatalog, detail: "\(what()): \(count) items is beyond any sane catalog")
        }
        guard let base else {
            throw PluginCatalogError(reason: .invalidCatalog, detail: "\(what()): null with count \(count)")
        }
        var result: [Result] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(try transform(base[index], index)) }
        return result
    }

    private static func list<Element, Result>(
        _ base: UnsafePointer<Element>?, _ count: Int, _ what: @autoclosure () -> String,
        _ transform: (Element) throws -> Result
    ) throws -> [Result] {
        try list(base, count, what()) { element, _ in try transform(element) }
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
    let reason: PluginRejection.Reason
    let detail: String
}
