import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// `weekdayOrdinal` -1...-5 counts from the month's end ("the last Friday"). Foundation's
/// `nextDate` answers nil for them, but its `date(from:)` reads them that way; that reading is
/// the oracle here: every fire must be the day `date(from: year, month, weekday,
/// weekdayOrdinal)` gives, at the trigger's time, and no such day may be skipped.
@Suite struct CalendarNegativeOrdinalTests {
    @Test(arguments: [-1, -2, -3, -4, -5])
    func firesOnFoundationsDayFromTheEnd(ordinal: Int) throws {
        let tz = try #require(TimeZone(identifier: "Europe/Berlin"))
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = tz
        for weekday in 1...7 {
            var c = DateComponents()
            c.weekday = weekday
            c.weekdayOrdinal = ordinal
            c.hour = 9
            c.minute = 30
            c.timeZone = tz
            let schedule = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt)
            #expect(schedule.neverFires == false)
            // Expected: per month of 2024-2027, Foundation's day for the ordinal if it lies in
            // that month (a fifth-from-last weekday exists only in some months).
            var expected: [Date] = []
            for year in 2024...2027 {
                for month in 1...12 {
                    let want = DateComponents(year: year, month: month, hour: 9, minute: 30, weekday: weekday, weekdayOrdinal: ordinal)
                    let d = try #require(cal.date(from: want))
                    if cal.component(.month, from: d) == month { expected.append(d) }
                }
            }
            var got: [Date] = []
            var ref = try #require(cal.date(from: DateComponents(year: 2024, month: 1, day: 1)))
            let end = try #require(cal.date(from: DateComponents(year: 2028, month: 1, day: 1)))
            while let next = schedule.nextDate(after: ref), next < end {
                got.append(next)
                ref = next
            }
            #expect(got == expected, "weekday \(weekday), ordinal \(ordinal)")
        }
    }

    @Test func lastSundayOfMarchInTheGapShiftsByTheGap() throws {
        // London's clocks go forward at 01:00 on the last Sunday of March: 01:30 does not
        // exist and fires at 02:30 BST (the contract's gap rule).
        var c = DateComponents()
        c.month = 3
        c.weekday = 1
        c.weekdayOrdinal = -1
        c.hour = 1
        c.minute = 30
        c.timeZone = TimeZone(identifier: "Europe/London")
        let schedule = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt)
        let next = try #require(schedule.nextDate(after: Timestamp.date(millis: 1_767_225_600_000)))  // 2026-01-01
        #expect(Timestamp.string(millis: Timestamp.millis(next)) == "2026-03-29T01:30:00Z")
    }

    @Test func zeroAndBeyondFiveNeverFire() {
        for ordinal in [0, -6, 6] {
            var c = DateComponents()
            c.weekday = 2
            c.weekdayOrdinal = ordinal
            let schedule = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt)
            #expect(schedule.neverFires, "weekdayOrdinal \(ordinal)")
        }
    }
}
