import Foundation
import Testing

@testable import AxiomSymbolication

/// The name index (`.debug_names`): a batch of addresses reads the functions they fall in through it instead of
/// walking every DIE of their units, with the same answers; an index that cannot be read is never trusted.
@Suite("The name index")
struct NameIndexTests {
    /// A sample of the test executable's functions (Swift's DWARF, which always has a name index): an address inside
    /// each, with the name of the symbol covering it.
    private func sample(_ image: ELFImage, count: Int) -> [(address: UInt64, name: String)] {
        let symbols = image.functionSymbols().filter { $0.size > 1 }
        return stride(from: 0, to: symbols.count, by: max(1, symbols.count / count)).compactMap { index in
            let symbol = symbols[index]
            return image.string(at: symbol.nameOffset).map { (symbol.address + symbol.size / 2, $0) }
        }
    }

    /// The DIE offsets of the scopes covering `address` (outermost first) and its line row, as `reader` gives them.
    private func answer(_ reader: NativeDWARFReader, _ address: UInt64) -> [String] {
        reader.units(containing: address).flatMap { unit -> [String] in
            let chain = reader.scopeChain(unit: unit, address: address)
            guard let table = reader.table(forUnit: unit) else { return ["unit \(unit): no table"] }
            let row = table.row(for: address).map { "\(table.file(number: $0.file) ?? "?"):\($0.line):\($0.column)" }
            return ["unit \(unit): \(chain.map { table.scopes[Int($0)].dieOffset }) \(row ?? "no line")"]
        }
    }

    @Test("A batch's units read through the index answer what walking every unit answers")
    func indexedTablesAnswerAsWalkedOnes() throws {
        let image = try ELFImage(path: DWARFReaderTests.testExecutable)
        let indexed = try #require(NativeDWARFReader(image: image))
        let walked = try #require(NativeDWARFReader(image: image))
        let sampled = sample(image, count: 600)
        // Every other sampled function is in the batch; the rest are looked up afterwards, one at a time.
        let batch = stride(from: 0, to: sampled.count, by: 2).map { sampled[$0] }
        let names = Dictionary(batch.map { ($0.address, $0.name) }, uniquingKeysWith: { first, _ in first })
        let jobs = indexed.tableJobs(forAddresses: batch.map(\.address)) { names[$0] }
        var partial: [Int] = []
        for job in jobs {
            let built = NativeDWARFReader.build(job)
            if built.table.isPartial { partial.append(job.index) }
            indexed.store(built, for: job)
        }
        // Most units are read through the index: the test would otherwise compare two walks.
        #expect(partial.count * 2 > jobs.count, "\(partial.count) of \(jobs.count) units read through the index")
        var differences: [String] = []
        for (address, name) in sampled {
            let (ours, theirs) = (answer(indexed, address), answer(walked, address))
            if ours != theirs { differences.append("\(name) 0x\(String(address, radix: 16)): \(ours) \(theirs)") }
        }
        #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(5).joined(separator: "\n"))")
        // An address outside the batch's functions made its unit's table whole.
        let completed = partial.filter { indexed.table(forUnit: $0)?.isPartial == false }
        #expect(!completed.isEmpty)
    }

    @Test("The index's hash is DJB's over the name folded to lower case, as LLVM writes it")
    func hash() {
        // From an index swiftc wrote (llvm-dwarfdump --debug-names): "$sSiD" hashes to 0x0ACB78FC.
        #expect(NameIndex.hash("$sSiD") == 0x0ACB_78FC)
        #expect(NameIndex.hash("") == 5381)
        #expect(NameIndex.hash("ABC") == NameIndex.hash("abc"))
        #expect(NameIndex.hash("café") == nil)
    }

    /// One index of one unit (at `.debug_info` offset 0x40) naming one subprogram `f`, whose DIE is 0x2a bytes into
    /// the unit; the parts a test spoils are parameters.
    private func index(
        version: UInt16 = 5, bucket: UInt32 = 1, nameCount: UInt32 = 1, name: String = "f", stringOffset: UInt32 = 0,
        code: UInt8 = 1, dieForm: UInt8 = 0x13, unit: UInt8 = 0
    ) -> (section: [UInt8], strings: [UInt8]) {
        var body: [UInt8] = []
        func u16(_ value: UInt16) { body += withUnsafeBytes(of: value.littleEndian, Array.init) }
        func u32(_ value: UInt32) { body += withUnsafeBytes(of: value.littleEndian, Array.init) }
        let abbreviations: [UInt8] = [1, 0x2e, 1, 0x0b, 3, dieForm, 0, 0, 0]
        u16(version)
        u16(0)
        for count in [1, 0, 0, 1, nameCount, UInt32(abbreviations.count), 0] as [UInt32] { u32(count) }
        u32(0x40)  // the unit
        u32(bucket)  // the bucket's first name
        u32(NameIndex.hash(name)!)
        u32(stringOffset)
        u32(0)  // the name's entries, at the pool's start
        body += abbreviations
        body += [code, unit, 0x2a, 0, 0, 0, 0]  // the entry, then the end of the name's entries
        var section: [UInt8] = withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
        section += body
        return (section, Array("f\0".utf8))
    }

    private func lookUp(_ bytes: (section: [UInt8], strings: [UInt8]), _ name: String = "f") -> [UInt64] {
        bytes.section.withUnsafeBytes { section in
            bytes.strings.withUnsafeBytes { strings in
                NameIndex(
                    DWARFSection(base: section.baseAddress!, count: section.count),
                    strings: DWARFSection(base: strings.baseAddress!, count: strings.count)
                ).dies(named: name, tag: 0x2e, inUnitAt: 0x40)
            }
        }
    }

    @Test("A hand-written index gives its subprogram's DIE")
    func handWritten() {
        #expect(lookUp(index()) == [0x40 + 0x2a])
        #expect(lookUp(index(), "g").isEmpty)
        #expect(lookUp(index(), "F").isEmpty)  // the same hash, another name
        let section = index().section
        section.withUnsafeBytes { section in
            let names = NameIndex(DWARFSection(base: section.baseAddress!, count: section.count), strings: .empty)
            #expect(names.dies(named: "f", tag: 0x2e, inUnitAt: 0x40).isEmpty)  // its name cannot be read
            #expect(names.dies(named: "f", tag: 0x2e, inUnitAt: 0x80).isEmpty)  // another unit
            #expect(names.dies(named: "f", tag: 0x13, inUnitAt: 0x40).isEmpty)  // another tag
        }
    }

    @Test("An index that cannot be read gives nothing and never traps")
    func badInput() {
        // Each spoiled part: the index is read as far as it holds, and gives nothing rather than a wrong DIE.
        #expect(lookUp(index(version: 4)).isEmpty)
        #expect(lookUp(index(bucket: 2)).isEmpty)  // a first name past the last
        #expect(lookUp(index(nameCount: 0xFFFF_FFFF)).isEmpty)  // lists longer than the index
        #expect(lookUp(index(stringOffset: 100)).isEmpty)  // a name outside the strings
        #expect(lookUp(index(code: 2)).isEmpty)  // an entry of an undeclared abbreviation
        #expect(lookUp(index(dieForm: 0x01)).isEmpty)  // a form an index does not use
        #expect(lookUp(index(unit: 1)).isEmpty)  // a unit past the list
        // Every truncation, its length left as written (past the end) or made to fit.
        let whole = index()
        for count in 0..<whole.section.count {
            var cut = Array(whole.section.prefix(count))
            #expect(lookUp((cut, whole.strings)).isEmpty)
            if count >= 4 {
                cut.replaceSubrange(0..<4, with: withUnsafeBytes(of: UInt32(count - 4).littleEndian, Array.init))
                let found = lookUp((cut, whole.strings))
                #expect(found.isEmpty || found == [0x40 + 0x2a])
            }
        }
    }
}
