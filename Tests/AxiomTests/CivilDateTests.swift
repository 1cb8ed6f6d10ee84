import Testing

@testable import AxiomCore

@Suite("Civil dates")
struct CivilDateTests {
    @Test("days since 1970 and dates are each other's inverse, across leap years, centuries and before 1970")
    func roundTrip() {
        #expect(CivilDate.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.days(year: 2000, month: 3, day: 1) - CivilDate.days(year: 2000, month: 2, day: 28) == 2)
        #expect(CivilDate.days(year: 1900, month: 3, day: 1) - CivilDate.days(year: 1900, month: 2, day: 28) == 1)
        #expect(CivilDate.days(year: 2026, month: 11, day: 28) == 20_785)
        #expect(CivilDate.date(ofDay: -1) == (1969, 12, 31))
        for day in stride(from: -800_000, through: 800_000, by: 97) {
            let date = CivilDate.date(ofDay: day)
            #expect(CivilDate.days(year: date.year, month: date.month, day: date.day) == day)
        }
    }
}
