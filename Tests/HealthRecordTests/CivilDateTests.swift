import HealthRecord
import Testing

@Suite("Civil dates")
struct CivilDateTests {
    @Test("days from 1970 both ways", arguments: [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017), (1900, 3, 1, -25_508),
        (2024, 12, 31, 20_088), (1600, 1, 1, -135_140),
    ] as [(Int64, Int64, Int64, Int64)])
    func roundTrip(year: Int64, month: Int64, day: Int64, days: Int64) {
        #expect(CivilDate.epochDays(year: year, month: month, day: day) == days)
        #expect(CivilDate(epochDays: days) == CivilDate(year: year, month: month, day: day))
    }

    @Test("every day of four centuries round-trips and follows the one before")
    func everyDay() {
        var previous = CivilDate(epochDays: -146_098)
        for days in Int64(-146_097)...146_097 {
            let date = CivilDate(epochDays: days)
            #expect(date.epochDays == days)
            if date.day != 1 { #expect(date.day == previous.day + 1 && date.month == previous.month) }
            previous = date
        }
    }

    @Test("seconds before 1970 fall on the day before, not on 1970-01-01")
    func negativeSeconds() {
        #expect(CivilDate(epochSeconds: -1).text == "1969-12-31")
        #expect(CivilDate(epochSeconds: -86_400).text == "1969-12-31")
        #expect(CivilDate(epochSeconds: -86_401).text == "1969-12-30")
        #expect(CivilDate(epochSeconds: 86_399).text == "1970-01-01")
    }
}
