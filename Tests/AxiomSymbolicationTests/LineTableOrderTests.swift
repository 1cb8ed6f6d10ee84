import Testing

@testable import AxiomSymbolication

/// A unit's line table is put in address order once built, whatever order the linker left its sequences in; every
/// lookup must answer what a stable sort of the rows answers.
@Suite("A line table's rows are put in address order")
struct LineTableOrderTests {
    typealias Row = CompileUnitTable.LineRow

    /// The order `finish()` promises, by a plain stable sort: address, end-of-sequence rows first at one address,
    /// then the order the line program gave.
    private func reference(_ rows: [Row]) -> [Row] {
        rows.enumerated().sorted { lhs, rhs in
            if lhs.element.address != rhs.element.address { return lhs.element.address < rhs.element.address }
            if lhs.element.isEndSequence != rhs.element.isEndSequence { return lhs.element.isEndSequence }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// The row a lookup finds in rows already ordered, as `CompileUnitTable.row(for:)` finds it.
    private func lookUp(_ address: UInt64, in rows: [Row]) -> Row? {
        guard let row = rows.last(where: { $0.address <= address }), !row.isEndSequence else { return nil }
        return row
    }

    private func finished(_ rows: [Row]) -> CompileUnitTable {
        var table = CompileUnitTable()
        table.rows = rows
        table.finish()
        return table
    }

    /// A sequence of `count` rows from `start`, a line each, closed by its end row unless `closed` is false.
    private func sequence(from start: UInt64, count: Int, step: UInt64, line: UInt32, closed: Bool = true) -> [Row] {
        var rows = (0..<count).map { index in
            Row(
                address: start + UInt64(index) * step, file: 1, line: line + UInt32(index), column: 1,
                isEndSequence: false)
        }
        if closed {
            rows.append(Row(address: start + UInt64(count) * step, file: 1, line: 0, column: 0, isEndSequence: true))
        }
        return rows
    }

    private func expectSameLookups(_ rows: [Row], comment: Comment) {
        let table = finished(rows)
        let ordered = reference(rows)
        let top = (rows.map(\.address).max() ?? 0) + 2
        var differences: [UInt64] = []
        for address in 0...top where table.row(for: address).map(Key.init) != lookUp(address, in: ordered).map(Key.init)
        {
            differences.append(address)
        }
        #expect(differences.isEmpty, "\(comment): lookups differ at \(differences.prefix(8))")
    }

    /// What a lookup gives back, comparable.
    private struct Key: Equatable {
        var address: UInt64
        var line: UInt32
        var isEnd: Bool
        init(_ row: Row) { (address, line, isEnd) = (row.address, row.line, row.isEndSequence) }
    }

    @Test("Sequences left in another order than their addresses are put in order, each whole")
    func sequencesOutOfOrder() {
        let rows =
            sequence(from: 300, count: 4, step: 4, line: 30) + sequence(from: 100, count: 5, step: 2, line: 10)
            + sequence(from: 200, count: 3, step: 8, line: 20)
        let table = finished(rows)
        #expect(table.rows.map(\.address) == reference(rows).map(\.address))
        #expect(table.row(for: 105)?.line == 12)
        #expect(table.row(for: 150) == nil)  // past the first sequence's end
        expectSameLookups(rows, comment: "out of order")
    }

    @Test("A sequence starting where another ends wins at that address")
    func abuttingSequences() {
        let rows = sequence(from: 120, count: 2, step: 10, line: 50) + sequence(from: 100, count: 2, step: 10, line: 5)
        #expect(finished(rows).row(for: 120)?.line == 50)
        expectSameLookups(rows, comment: "abutting")
    }

    @Test("Overlapping sequences, a last sequence with no end and rows out of order within one sort like a stable sort")
    func irregularTables() {
        // Code a linker discarded is left at address 0, where several sequences overlap.
        let overlapping =
            sequence(from: 0, count: 3, step: 4, line: 1) + sequence(from: 0, count: 2, step: 6, line: 100)
            + sequence(from: 40, count: 2, step: 4, line: 7)
        expectSameLookups(overlapping, comment: "overlapping")
        let unclosed =
            sequence(from: 60, count: 3, step: 4, line: 1)
            + sequence(from: 20, count: 2, step: 4, line: 9, closed: false)
        expectSameLookups(unclosed, comment: "last sequence without its end")
        var disordered =
            sequence(from: 80, count: 4, step: 4, line: 1) + sequence(from: 10, count: 3, step: 4, line: 40)
        disordered.swapAt(1, 2)
        expectSameLookups(disordered, comment: "rows out of order within a sequence")
        let endsOnly =
            sequence(from: 30, count: 2, step: 5, line: 3) + [
                Row(address: 40, file: 1, line: 0, column: 0, isEndSequence: true)
            ]
            + sequence(from: 40, count: 1, step: 5, line: 8)
        expectSameLookups(endsOnly, comment: "a sequence of its end row alone")
    }

    @Test("Seeded random tables: every lookup answers what the stable sort answers")
    func randomTables() {
        // Knuth's MMIX linear congruential generator, seeded: the same 300 tables in every run.
        var state: UInt64 = 0x5EED
        func draw(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        for round in 0..<300 {
            var rows: [Row] = []
            for _ in 0...draw(6) {
                rows += sequence(
                    from: draw(121), count: Int(draw(6)), step: draw(7), line: UInt32(rows.count + 1),
                    closed: draw(8) != 0)
            }
            expectSameLookups(rows, comment: "round \(round)")
        }
    }
}
