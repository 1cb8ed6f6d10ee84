// libFuzzer target: `DescriptorReader` on a C descriptor built from the input, as a plugin's entry returns it,
// and the catalog check the host runs next on what it read.
//
// The input is read as a recipe: header fields, then each string, count and nested array. Every pointer the
// descriptor holds points into memory this target allocated for this input, and every count is either the
// number of elements really allocated or one the reader must refuse before reading (negative as an `Int`, that
// is above `Int.max` as a `size_t`, or beyond `DescriptorReader.maxItems`). So a crash is the reader's bug, not
// the recipe's. Strings are always NUL-terminated inside their allocation; a few are longer than the reader's
// text limit.

import Axiom
@_spi(Fuzzing) import AxiomCore
import CAxiomPluginABI
import FuzzSupport

@testable import AxiomPlugins

/// Reads the recipe; past the end of the input every read answers zero.
private struct Recipe {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(truncatingIfNeeded: byte()) << (8 * index) }
        return value
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }
}

/// Everything allocated for one input, freed when it is done.
private final class Arena {
    private var blocks: [UnsafeMutableRawPointer] = []

    func allocate<T>(_: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
        blocks.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }

    func string(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        let pointer = allocate(CChar.self, count: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        pointer[bytes.count] = 0
        return UnsafePointer(pointer)
    }

    deinit { for block in blocks { block.deallocate() } }
}

/// Values the reader knows, so that the fuzzer reaches past the checks of each enumeration.
private let known = [
    "general", "network", "error", "warning", "default", "recover", "escalate", "ignore", "exponential", "constant",
    "linear", "toast", "modal", "inline", "none", "light", "en", "tr", "fuzz", "fuzz.plugin", "E1", "E2",
    "error.general.E1", "error.general.E1.title", "1.0.0", AXIOM_PLUGIN_ABI_HASH, DescriptorReader.hostToolchain,
]

private struct Builder {
    var recipe: Recipe
    let arena = Arena()

    /// Null, a known value, bytes from the input (not always UTF-8), or text one byte beyond the limit.
    mutating func string() -> UnsafePointer<CChar>? {
        let choice = recipe.byte()
        switch choice % 8 {
        case 0: return nil
        case 1, 2: return arena.string(recipe.bytes(Int(recipe.byte() % 24)))
        case 3 where choice == 3:
            return arena.string([UInt8](repeating: 0x61, count: DescriptorReader.maxTextLength + 1))
        default: return arena.string(Array(known[Int(recipe.byte()) % known.count].utf8))
        }
    }

    /// How many elements to allocate, and the count the descriptor states for them.
    mutating func count() -> (allocated: Int, stated: Int) {
        let choice = recipe.byte()
        let allocated = Int(choice & 0x3)
        switch choice >> 5 {
        case 0: return (0, -Int(recipe.byte()) - 1)  // above Int.max as a size_t
        case 1: return (0, DescriptorReader.maxItems + 1 + Int(recipe.byte()))
        default: return (allocated, allocated)
        }
    }

    /// An array of `stated` elements (null when nothing is allocated and the recipe says so).
    mutating func array<T>(_ make: (inout Builder) -> T) -> (UnsafePointer<T>?, Int) {
        let (allocated, stated) = count()
        if allocated == 0 && recipe.byte() & 1 == 0 { return (nil, stated) }
        let pointer = arena.allocate(T.self, count: allocated)
        for index in 0..<allocated { (pointer + index).initialize(to: make(&self)) }
        return (UnsafePointer(pointer), stated)
    }

    mutating func code() -> axiom_plugin_code {
        var code = axiom_plugin_code()
        code.domain = string()
        code.code = string()
        (code.numeric_aliases, code.numeric_alias_count) = array { $0.recipe.integer(Int64.self) }
        code.category = string()
        code.severity = string()
        code.disposition = string()
        if recipe.byte() & 1 == 1 {
            let retry = arena.allocate(axiom_plugin_retry.self, count: 1)
            retry.initialize(
                to: axiom_plugin_retry(
                    max_attempts: recipe.integer(Int32.self), backoff: string(), delay_ms: recipe.integer(Int64.self),
                    max_delay_ms: recipe.integer(Int64.self), jitter: recipe.byte(), honors_retry_after: recipe.byte()))
            code.retry = UnsafePointer(retry)
        }
        code.message_key = string()
        code.recovery_key = string()
        if recipe.byte() & 1 == 1 {
            let rule = arena.allocate(axiom_plugin_presentation.self, count: 1)
            rule.initialize(
                to: axiom_plugin_presentation(
                    style: string(), duration_ms: recipe.integer(Int64.self), feedback: string()))
            code.presentation = UnsafePointer(rule)
        }
        code.escalation_domain = string()
        code.escalation_code = string()
        code.sensitive = recipe.byte()
        code.http_status = recipe.byte() & 1 == 1 ? recipe.integer(Int32.self) : 0
        return code
    }

    mutating func descriptor() -> axiom_plugin_descriptor {
        var descriptor = axiom_plugin_descriptor()
        let header = recipe.byte()
        // Mostly a header the host accepts, so that most inputs reach the catalog.
        descriptor.struct_size =
            header & 0x1 == 0 ? UInt32(MemoryLayout<axiom_plugin_descriptor>.size) : recipe.integer(UInt32.self)
        descriptor.abi_version = header & 0x2 == 0 ? AXIOM_PLUGIN_ABI_VERSION : recipe.integer(UInt32.self)
        descriptor.fingerprint.abi_hash = header & 0x4 == 0 ? arena.string(Array(AXIOM_PLUGIN_ABI_HASH.utf8)) : string()
        descriptor.fingerprint.toolchain = string()
        descriptor.fingerprint.language = header & 0x8 == 0 ? AXIOM_PLUGIN_LANGUAGE_C : recipe.integer(UInt32.self)
        descriptor.status = header & 0x10 == 0 ? AXIOM_PLUGIN_STATUS_OK : recipe.integer(Int32.self)
        descriptor.status_message = string()
        descriptor.id = string()
        descriptor.version = string()
        (descriptor.catalog.domains, descriptor.catalog.domain_count) = array { $0.string() }
        (descriptor.catalog.codes, descriptor.catalog.code_count) = array { $0.code() }
        (descriptor.catalog.locales, descriptor.catalog.locale_count) = array { builder in
            var locale = axiom_plugin_locale()
            locale.locale = builder.string()
            (locale.messages, locale.message_count) = builder.array { builder in
                axiom_plugin_message(key: builder.string(), text: builder.string())
            }
            return locale
        }
        // Element sizes no larger than the arrays' real stride (a plugin that declares more than it allocated
        // lies about its memory the way a wrong count does): zero, a revision-1 size or anything in between.
        if header & 0x20 != 0 {
            descriptor.code_size = UInt32(recipe.byte()) % UInt32(MemoryLayout<axiom_plugin_code>.stride + 1)
            descriptor.locale_size = UInt32(recipe.byte()) % UInt32(MemoryLayout<axiom_plugin_locale>.stride + 1)
            descriptor.message_size = UInt32(recipe.byte()) % UInt32(MemoryLayout<axiom_plugin_message>.stride + 1)
        }
        return descriptor
    }
}

func fuzzPluginDescriptor(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var builder = Builder(recipe: Recipe(bytes: UnsafeBufferPointer(start: bytes, count: count)))
    var descriptor = builder.descriptor()
    // checkHeader reads struct_size bytes' worth of layout only after checking it: the descriptor is full size.
    let refused = withUnsafePointer(to: &descriptor) { DescriptorReader.checkHeader($0) }
    if let (_, detail) = refused {
        precondition(!detail.isEmpty, "a refusal without a detail")
        return 0
    }
    guard case .success(let identity) = DescriptorReader.identity(descriptor) else { return 0 }
    switch DescriptorReader.catalog(descriptor, id: identity.id, version: identity.version) {
    case .success(let catalog):
        // The check the host runs before registering. Registering itself is left out: registered descriptors are
        // immortal by design, which a fresh registry per input would turn into a leak report.
        _ = CatalogCheckFuzzing.check(catalog)
    case .failure(let error):
        precondition(!error.detail.isEmpty, "a refusal without a detail")
    }
    return 0
}

@_cdecl("FuzzPluginDescriptor_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzPluginDescriptor)
}
