#if Benchmarks
import Axiom
import Benchmark
import Synchronization

// The registry at the sizes a catalog can have, each beside its baseline in the same run:
//
// - declaring and registering a catalog of n codes (10 to 100,000), from `CodeDefinition`s with English texts (the
//   README's way) and from descriptors plus a text table (the way a plugin's catalog arrives), beside building one
//   plain dictionary of the same texts: the floor of any catalog, linear in n. Declaring is linear when the ratio to
//   the baseline stays the same at every n.
// - `descriptor(for: any Error)` of a `DomainError` (the form of every error from a peer or a plugin), cycling
//   through up to 4,096 distinct ones, with codes longer than 15 bytes (strings on the heap) and with shorter ones
//   (stored inline), beside the same lookup of a typed `IdentifiableError`, in registries of 10, 100, 1,000, 10,000
//   and 100,000 codes.
//
// `Benchmarks/scaling run registry` runs them all and draws how each grows with the registry's size.
//
// Registered descriptors are immortal, so each iteration of a declaring benchmark keeps its n descriptors for the
// rest of the run: the largest sizes run few iterations.

func catalogBenchmarks() {
    for count in CatalogFixture.sizes {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: count >= 10_000 ? .milliseconds : .microseconds,
            warmupIterations: count >= 10_000 ? 1 : 10, scalingFactor: .one, maxDuration: .seconds(3),
            maxIterations: count >= 100_000 ? 5 : count >= 10_000 ? 20 : 1_000)
        let size = count.formatted

        Benchmark("Catalog: baseline, a dictionary of the texts of \(size) codes", configuration: configuration) {
            benchmark in
            let texts = CatalogFixture.of(count).englishTexts
            benchmark.startMeasurement()
            var table: [String: String] = [:]
            for (key, text) in texts { table[key] = text }
            benchmark.stopMeasurement()
            blackHole(table)
        }

        Benchmark("Catalog: declare and register \(size) codes, definitions", configuration: configuration) {
            benchmark in
            let fixture = CatalogFixture.of(count)
            let registry = ErrorRegistry()
            benchmark.startMeasurement()
            let catalog = ErrorCatalog(
                source: "bench.catalog", domains: [CatalogFixture.domain], definitions: fixture.definitions)
            do {
                try registry.register(catalog)
            } catch {
                benchmark.error("refused: \(error)")
            }
            benchmark.stopMeasurement()
            withExtendedLifetime(registry) {}
        }

        Benchmark("Catalog: declare and register \(size) codes, descriptors and texts", configuration: configuration) {
            benchmark in
            let fixture = CatalogFixture.of(count)
            let registry = ErrorRegistry()
            benchmark.startMeasurement()
            let catalog = ErrorCatalog(
                source: "bench.catalog", domains: [CatalogFixture.domain], descriptors: fixture.descriptors,
                messages: fixture.messages)
            do {
                try registry.register(catalog)
            } catch {
                benchmark.error("refused: \(error)")
            }
            benchmark.stopMeasurement()
            withExtendedLifetime(registry) {}
        }
    }

    let lookupConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .instructions], timeUnits: .nanoseconds, warmupIterations: 1_000,
        scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 100_000)
    for count in CatalogFixture.sizes {
        let size = count.formatted
        Benchmark("Lookup in \(size) codes: typed IdentifiableError (baseline)", configuration: lookupConfiguration) {
            benchmark in
            let fixture = LookupFixture.of(count)
            benchmark.startMeasurement()
            var index = 0
            for _ in benchmark.scaledIterations {
                blackHole(fixture.registry.descriptor(for: fixture.typed[index]))
                index = index == fixture.typed.count - 1 ? 0 : index + 1
            }
        }
        for long in [true, false] {
            Benchmark(
                "Lookup in \(size) codes: DomainError, codes of \(long ? "more than" : "at most") 15 bytes",
                configuration: lookupConfiguration
            ) { benchmark in
                let fixture = LookupFixture.of(count)
                let (registry, peer) = (fixture.registry, long ? fixture.long : fixture.short)
                benchmark.startMeasurement()
                var index = 0
                for _ in benchmark.scaledIterations {
                    blackHole(registry.descriptor(for: peer[index]))
                    index = index == peer.count - 1 ? 0 : index + 1
                }
            }
        }
    }
}

/// The codes of a catalog of a given size, declared once per size (outside what is measured).
struct CatalogFixture: Sendable {
    static let domain = "bench.catalog"
    /// The registry sizes every catalog and lookup benchmark runs at.
    static let sizes = [10, 100, 1_000, 10_000, 100_000]

    let definitions: [CodeDefinition]
    let descriptors: [ErrorDescriptor]
    let messages: [String: [String: String]]
    let englishTexts: [(String, String)]

    init(count: Int) {
        definitions = (0..<count).map { index in
            CodeDefinition(
                Self.domain, Self.code(index), category: .api,
                texts: ["en": .init(title: "Declined \(index)", message: "The payment was declined (\(index)).")])
        }
        descriptors = definitions.map { ErrorDescriptor($0, source: "bench.catalog") }
        var messages: [String: [String: String]] = [:]
        for definition in definitions { definition.addTexts(to: &messages) }
        self.messages = messages
        englishTexts = (messages["en"] ?? [:]).map { ($0.key, $0.value) }
    }

    /// A code as a peer spells it: longer than a string stored inline, so built on the heap at run time.
    static func code(_ index: Int) -> String { "PAYMENT_DECLINED_\(index)" }

    private static let made = FixtureCache(CatalogFixture.init(count:))

    static func of(_ count: Int) -> CatalogFixture { made.of(count) }
}

/// A registry of `count` codes of a peer's domain, half of them longer than 15 bytes (built on the heap at run time)
/// and half shorter (stored inline), with the typed errors' four; and errors of those codes as they arrive from the
/// peer, and typed errors, each as `any Error`.
struct LookupFixture: Sendable {
    let registry: ErrorRegistry
    let long: [any Error]
    let short: [any Error]
    let typed: [any Error]

    init(count: Int) {
        registry = ErrorRegistry()
        let longCodes = (0..<(count - count / 2)).map(CatalogFixture.code)
        let shortCodes = (0..<(count / 2)).map { "E\($0)" }
        try! registry.register(
            ErrorCatalog(
                source: "bench.peer", domains: ["peer"],
                definitions: (longCodes + shortCodes).map { CodeDefinition("peer", $0, category: .api) }))
        try! registry.register(BenchError.catalog)
        // At most 4,096 distinct errors, spread over the whole catalog, so that a large one is not read in its first
        // few entries only.
        func errors(_ codes: [String]) -> [any Error] {
            let distinct = min(codes.count, 4_096)
            return (0..<distinct).map { DomainError(domain: "peer", code: codes[$0 * (codes.count / distinct)]) }
        }
        long = errors(longCodes)
        short = errors(shortCodes)
        typed = [BenchError.first, BenchError.second, BenchError.third, BenchError.fourth]
        for error in long + short + typed where registry.descriptor(for: error).code == ErrorCatalog.unknownCode {
            fatalError("\(error) is not registered")
        }
    }

    private static let made = FixtureCache(LookupFixture.init(count:))

    static func of(_ count: Int) -> LookupFixture { made.of(count) }
}

/// Fixtures made once per size, the first time a benchmark asks, outside what is measured.
final class FixtureCache<Fixture: Sendable>: Sendable {
    private let made = Mutex<[Int: Fixture]>([:])
    private let make: @Sendable (Int) -> Fixture

    init(_ make: @escaping @Sendable (Int) -> Fixture) { self.make = make }

    func of(_ count: Int) -> Fixture {
        made.withLock { made in
            if let known = made[count] { return known }
            let fixture = make(count)
            made[count] = fixture
            return fixture
        }
    }
}

extension Int {
    /// `100,000`.
    fileprivate var formatted: String {
        let digits = Array(String(self))
        var text = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}

extension BenchError {
    /// The four errors' catalog, as every benchmark registers it.
    static let catalog = ErrorCatalog(
        source: "bench", domains: ["bench"],
        descriptors: [
            ErrorDescriptor(code: BenchError.first.errorCode, category: .validation),
            ErrorDescriptor(code: BenchError.second.errorCode, category: .network),
            ErrorDescriptor(code: BenchError.third.errorCode, numericCode: 3, category: .api),
            ErrorDescriptor(code: BenchError.fourth.errorCode, category: .general, severity: .warning),
        ])
}
#endif
