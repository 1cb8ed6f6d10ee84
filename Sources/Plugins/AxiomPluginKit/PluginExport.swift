@_exported import CAxiomPluginABI

/// Turns a ``PluginDefinition`` into the C descriptor the host reads, once, and keeps it for the life of
/// the process.
///
/// A Swift plugin declares one global export and one `@_cdecl` function:
///
/// ```swift
/// let plugin = PluginExport { PluginDefinition(id: "org.example.shop", version: "1.0.0", ...) }
///
/// @_cdecl("axiom_plugin_entry_v1")
/// public func axiomPluginEntry() -> UnsafePointer<axiom_plugin_descriptor> { plugin.descriptor }
/// ```
///
/// Everything the descriptor points at is allocated once and never freed: the host never unloads a
/// plugin. Nothing here throws or traps across the C boundary: an error thrown by the closure becomes a
/// failed status with its description.
public final class PluginExport: @unchecked Sendable {
    // Safe to share: `descriptor` is written once in `init` and only read afterwards, and the memory it
    // points at is never mutated or freed.

    /// The descriptor to return from `axiom_plugin_entry_v1`.
    public let descriptor: UnsafePointer<axiom_plugin_descriptor>

    /// Builds the descriptor from the definition the closure returns, or a failed one if it throws.
    public init(_ define: () throws -> PluginDefinition) {
        let result = Result { try define() }
        let pointer = UnsafeMutablePointer<axiom_plugin_descriptor>.allocate(capacity: 1)
        switch result {
        case .success(let definition):
            pointer.initialize(to: Self.descriptor(definition, status: AXIOM_PLUGIN_STATUS_OK, message: nil))
        case .failure(let error):
            let empty = PluginDefinition(id: "", version: "", domains: [], codes: [])
            pointer.initialize(
                to: Self.descriptor(empty, status: AXIOM_PLUGIN_STATUS_FAILED, message: String(describing: error)))
        }
        descriptor = UnsafePointer(pointer)
    }

    /// The toolchain string a Swift plugin reports in its fingerprint. Swift has no stable ABI on Linux:
    /// the host accepts a Swift plugin only when this equals its own.
    package static var toolchain: String { swiftToolchain }

    private static func descriptor(
        _ definition: PluginDefinition, status: Int32, message: String?
    ) -> axiom_plugin_descriptor {
        var descriptor = axiom_plugin_descriptor()
        descriptor.struct_size = UInt32(MemoryLayout<axiom_plugin_descriptor>.size)
        descriptor.abi_version = AXIOM_PLUGIN_ABI_VERSION
        descriptor.fingerprint = axiom_plugin_fingerprint(
            abi_hash: cString(AXIOM_PLUGIN_ABI_HASH), toolchain: cString(swiftToolchain),
            language: AXIOM_PLUGIN_LANGUAGE_SWIFT)
        descriptor.id = cString(definition.id)
        descriptor.version = cString(definition.version)
        descriptor.status = status
        descriptor.status_message = message.map(cString)
        descriptor.catalog = catalog(definition)
        descriptor.code_size = UInt32(MemoryLayout<axiom_plugin_code>.stride)
        descriptor.locale_size = UInt32(MemoryLayout<axiom_plugin_locale>.stride)
        descriptor.message_size = UInt32(MemoryLayout<axiom_plugin_message>.stride)
        return descriptor
    }

    private static func catalog(_ definition: PluginDefinition) -> axiom_plugin_catalog {
        var catalog = axiom_plugin_catalog()
        let domains = array(definition.domains.map { Optional(cString($0)) })
        catalog.domains = UnsafePointer(domains)
        catalog.domain_count = definition.domains.count
        catalog.codes = UnsafePointer(array(definition.codes.map(code)))
        catalog.code_count = definition.codes.count
        let messages = definition.allMessages
        let locales = messages.keys.sorted().map { locale in
            let table = messages[locale] ?? [:]
            let messages = table.keys.sorted().map { key in
                axiom_plugin_message(key: cString(key), text: cString(table[key] ?? ""))
            }
            return axiom_plugin_locale(
                locale: cString(locale), messages: UnsafePointer(array(messages)), message_count: messages.count)
        }
        catalog.locales = UnsafePointer(array(locales))
        catalog.locale_count = locales.count
        return catalog
    }

    private static func code(_ definition: CodeDefinition) -> axiom_plugin_code {
        var code = axiom_plugin_code()
        code.domain = cString(definition.domain)
        code.code = cString(definition.code)
        code.numeric_aliases = UnsafePointer(array(definition.numericAliases.map(Int64.init)))
        code.numeric_alias_count = definition.numericAliases.count
        code.category = cString(definition.category.rawValue)
        code.severity = cString(definition.severity.rawValue)
        code.disposition = cString(definition.disposition.rawValue)
        code.retry = definition.retry.map { retry in
            UnsafePointer(
                single(
                    axiom_plugin_retry(
                        max_attempts: Int32(clamping: retry.maxAttempts), backoff: cString(retry.backoff.rawValue),
                        delay_ms: milliseconds(retry.delay), max_delay_ms: milliseconds(retry.maxDelay),
                        jitter: retry.jitter ? 1 : 0, honors_retry_after: retry.honorsRetryAfter ? 1 : 0)))
        }
        // The keys the texts were stored under, so that the host finds them whatever its default.
        let keys = definition.messageKeys
        code.message_key = cString(keys.message)
        code.recovery_key = keys.recovery.map(cString)
        code.presentation = definition.presentation.map { rule in
            UnsafePointer(
                single(
                    axiom_plugin_presentation(
                        style: cString(rule.style.rawValue),
                        duration_ms: rule.duration.map(milliseconds) ?? Int64(AXIOM_PLUGIN_UNTIL_DISMISSED),
                        feedback: cString(rule.feedback.rawValue))))
        }
        code.escalation_domain = definition.escalation.map { cString($0.domain) }
        code.escalation_code = definition.escalation.map { cString($0.code) }
        code.sensitive = definition.isSensitive ? 1 : 0
        // Out of range is left for the host to refuse with a diagnostic, not clamped into another meaning.
        code.http_status = definition.httpStatus.map { Int32(clamping: $0) } ?? 0
        return code
    }

    // MARK: Memory that lives as long as the process

    private static func cString(_ string: String) -> UnsafePointer<CChar> {
        let bytes = Array(string.utf8CString)
        return UnsafePointer(array(bytes))
    }

    private static func array<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
        // One element at least, so that an empty list is still a valid pointer.
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(1, values.count))
        values.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { pointer.initialize(from: base, count: buffer.count) }
        }
        return pointer
    }

    private static func single<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
