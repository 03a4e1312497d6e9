import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Hand-written cases: DST gaps and repeats, missing days, ISO weeks, week rules, never-matching
/// components. Expected values are Foundation's (see the shared calendar facts).
@Suite struct CalendarScheduleTests {
    static func next(_ c: DateComponents, _ zone: String, after: String, calendar: Calendar? = nil) -> String? {
        var c = c
        c.timeZone = TimeZone(identifier: zone)
        c.calendar = calendar
        let s = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: TimeZone(identifier: "UTC")!)
        return Timestamp.parseMillis(after).flatMap { s.nextFire(afterMillis: $0) }.map { Timestamp.string(millis: $0) }
    }

    @Test func dailyAndStrictlyLater() {
        #expect(Self.next(DateComponents(hour: 9, minute: 30), "Europe/Berlin", after: "2026-01-10T08:29:59.999Z") == "2026-01-10T08:30:00Z")
        #expect(Self.next(DateComponents(hour: 9, minute: 30), "Europe/Berlin", after: "2026-01-10T08:30:00Z") == "2026-01-11T08:30:00Z")
    }

    @Test func springForwardGapMovesByGapLength() {
        // 02:30 does not exist on 2021-03-14 in New York: fires at 03:30 EDT.
        #expect(Self.next(DateComponents(hour: 2, minute: 30), "America/New_York", after: "2021-03-13T12:00:00Z") == "2021-03-14T07:30:00Z")
    }

    @Test func fallBackRepeatedHour() {
        let c = DateComponents(hour: 1, minute: 30)
        // First occurrence (EDT).
        #expect(Self.next(c, "America/New_York", after: "2021-11-07T04:00:00Z") == "2021-11-07T05:30:00Z")
        // Reference exactly at the first occurrence: the second is skipped.
        #expect(Self.next(c, "America/New_York", after: "2021-11-07T05:30:00Z") == "2021-11-08T06:30:00Z")
        // Reference between the two: the second occurrence (EST).
        #expect(Self.next(c, "America/New_York", after: "2021-11-07T05:45:00Z") == "2021-11-07T06:30:00Z")
    }

    @Test func februaryTwentyNinth() {
        let c = DateComponents(month: 2, day: 29, hour: 9, minute: 30)
        #expect(Self.next(c, "Europe/London", after: "1996-01-01T00:00:00.001Z") == "1996-02-29T09:30:00Z")
        // Common year: March 1st at the trigger's time.
        #expect(Self.next(c, "Europe/London", after: "1996-02-29T09:30:00Z") == "1997-03-01T09:30:00Z")
    }

    @Test func dayThirtyOneRollsOver() {
        // June lacks day 31: the 1st of July, then July 31st.
        let c = DateComponents(day: 31, hour: 8)
        #expect(Self.next(c, "UTC", after: "2030-06-10T00:00:00Z") == "2030-07-01T08:00:00Z")
        #expect(Self.next(c, "UTC", after: "2030-07-01T08:00:00Z") == "2030-07-31T08:00:00Z")
    }

    @Test func yearWithMissingDayFiresOnce() {
        let c = DateComponents(year: 2035, month: 2, day: 30, hour: 12)
        #expect(Self.next(c, "UTC", after: "2035-01-01T00:00:00Z") == "2035-03-01T12:00:00Z")
        #expect(Self.next(c, "UTC", after: "2035-03-01T12:00:00Z") == nil)
    }

    @Test func isoWeeks() {
        // ISO 8601: week 1 of 2021 starts Monday 2021-01-04; week 53 of 2020 exists.
        let iso = CalendarNames.calendar(.iso8601)
        #expect(Self.next(DateComponents(weekday: 2, weekOfYear: 1, yearForWeekOfYear: 2021), "UTC", after: "2020-06-01T00:00:00Z", calendar: iso) == "2021-01-04T00:00:00Z")
        #expect(Self.next(DateComponents(weekday: 2, weekOfYear: 53, yearForWeekOfYear: 2020), "UTC", after: "2020-06-01T00:00:00Z", calendar: iso) == "2020-12-28T00:00:00Z")
    }

    @Test func firstWeekdayAndMinimumDays() {
        // Gregorian default (Sunday, 1 day): week 1 of 2022 holds Jan 1 (a Saturday).
        #expect(Self.next(DateComponents(hour: 10, weekday: 7, weekOfYear: 1), "UTC", after: "2021-12-01T00:00:00Z") == "2022-01-01T10:00:00Z")
        // Monday-first with 4 days: 2022-01-01 belongs to the last week of 2021; week 1 starts Jan 3.
        let cal = CalendarNames.calendar(.gregorian, firstWeekday: 2, minimumDaysInFirstWeek: 4)
        #expect(Self.next(DateComponents(hour: 10, weekday: 2, weekOfYear: 1), "UTC", after: "2021-12-01T00:00:00Z", calendar: cal) == "2022-01-03T10:00:00Z")
    }

    @Test func neverMatchingAnswersAtOnce() {
        let impossible = [
            DateComponents(weekday: 3, weekdayOrdinal: 6), DateComponents(hour: 24), DateComponents(weekday: 8),
            DateComponents(weekOfYear: 53, yearForWeekOfYear: 2021), DateComponents(month: 2, weekOfMonth: 7),
            DateComponents(era: 0), DateComponents(weekdayOrdinal: 0),
        ]
        // "At once" is structural here (the answer comes from the static check, not a search);
        // how fast that is is measured in Benchmarks/ (CalendarBench), never by a timed test.
        for var c in impossible {
            c.timeZone = TimeZone(identifier: "UTC")
            let trigger = CalendarTrigger(dateMatching: c, repeats: true)
            let s = CalendarSchedule(trigger, floatingTimeZone: TimeZone(identifier: "UTC")!)
            #expect(s.neverFires, "\(c)")
            #expect(s.nextFire(afterMillis: 1_800_000_000_000) == nil)
            #expect(CalendarFeasibility.noDateReason(trigger, after: Date(timeIntervalSince1970: 1.8e9), floatingTimeZone: .gmt) != nil)
        }
        // A fixed past year: no date, found without a long search.
        var past = DateComponents(year: 2001, month: 3)
        past.timeZone = .gmt
        let t = CalendarTrigger(dateMatching: past, repeats: false)
        #expect(CalendarSchedule(t, floatingTimeZone: .gmt).nextFire(afterMillis: 1_800_000_000_000) == nil)
        #expect(CalendarFeasibility.noDateReason(t, after: Date(timeIntervalSince1970: 1.8e9), floatingTimeZone: .gmt)?.contains("past") == true)
    }

    @Test func floatingAndOtherCalendars() {
        let s = CalendarSchedule(CalendarTrigger(dateMatching: DateComponents(hour: 8), repeats: true), floatingTimeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(s.isFloating)
        #expect(s.nextFire(afterMillis: 0) == 82_800_000)  // 1970-01-01 23:00Z = 08:00 JST on Jan 2
        // Hebrew calendar: answered by Foundation itself.
        var c = DateComponents(month: 1, day: 1)
        c.calendar = CalendarNames.calendar(.hebrew)
        c.timeZone = .gmt
        let trig = CalendarTrigger(dateMatching: c, repeats: true)
        let d = Date(timeIntervalSince1970: 1.8e9)
        #expect(CalendarEngine.nextDate(trig, after: d, floatingTimeZone: .gmt) == CalendarEngine.foundationNextDate(trig, after: d, floatingTimeZone: .gmt))
    }

    @Test func scheduleIsSmall() {
        // The documented figure (CalendarSchedule's doc comment): 58 bytes, 64 in an array.
        #expect(MemoryLayout<CalendarSchedule>.size <= 58)
        #expect(MemoryLayout<CalendarSchedule>.stride <= 64)
    }
}
