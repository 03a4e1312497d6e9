import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Cases found by a differential search of the engine against Foundation in the hardest zones
/// (Havana, Santiago, Asuncion, Lord Howe, Chatham, Troll, Casablanca, Kathmandu, Dublin,
/// St. John's, Gaza, Apia): every offset change 2015-2035 with references at the change, +-1 ms,
/// +-1 s, the wall-clock midnights around it and 23:59:59.999 of the day before; plus every
/// short month's last millisecond and February references for month-relative patterns.
/// Each case asserts that the engine's next date is Foundation's, computed live
/// (`nextTimePreservingSmallerComponents`, `.first`, forward, Gregorian, in the trigger's zone).
/// Grouped by class; the comment on each case says what used to differ (or still differs).
/// The last test covers the contract's exception (a): there the engine deliberately answers
/// the real occurrence Foundation skips, so it checks that contract instead of equality.
@Suite struct CalendarHardZoneTests {
    typealias Case = ZoneCase

    /// The engine's and Foundation's next date strictly after the case's reference.
    static func answers(_ c: Case) throws -> (engine: Date?, foundation: Date?, trigger: CalendarTrigger, zone: TimeZone) {
        let zone = try #require(TimeZone(identifier: c.zone))
        var comps = c.components
        comps.timeZone = zone
        let trigger = CalendarTrigger(dateMatching: comps, repeats: true)
        let utc = try #require(TimeZone(identifier: "UTC"))
        let ref = Timestamp.date(millis: try #require(Timestamp.parseMillis(c.after)))
        let engine = CalendarSchedule(trigger, floatingTimeZone: utc).nextDate(after: ref)
        let foundation = CalendarEngine.foundationNextDate(trigger, after: ref, floatingTimeZone: utc)
        return (engine, foundation, trigger, zone)
    }

    static func expectFoundations(_ c: Case) throws {
        let (engine, foundation, _, _) = try answers(c)
        #expect(engine == foundation, "\(c.testDescription): engine \(engine.map { "\($0)" } ?? "nil"), Foundation \(foundation.map { "\($0)" } ?? "nil")")
    }

    // MARK: - 1. Weekday-only trigger on a repeated midnight

    /// Zones whose fall-back repeats 00:00-00:59 (Havana: 01:00 CDT -> 00:00 CST on the first
    /// Sunday of November; Gaza 2015-2021: 01:00 -> 00:00 on a Friday or Saturday). A weekday
    /// trigger without time matches both midnights; Foundation fires on the first only and,
    /// from anywhere between them, goes on to the next week. The engine used to fire again at
    /// the second midnight (an hour later).
    @Test(arguments: [
        // The reference is the first midnight itself (04:00Z = 00:00 CDT): Foundation
        // 2015-11-08T05:00Z, engine was 2015-11-01T05:00Z (the second midnight, 00:00 CST).
        Case("America/Havana", DateComponents(weekday: 1), after: "2015-11-01T04:00:00Z"),
        // Between the two midnights (00:30 CDT): Foundation 2024-11-10T05:00Z, engine was 2024-11-03T05:00Z.
        Case("America/Havana", DateComponents(weekday: 1), after: "2024-11-03T04:30:00Z"),
        // The last millisecond before the second midnight: Foundation a week later, engine was 1 ms later.
        Case("America/Havana", DateComponents(weekday: 1), after: "2030-11-03T04:59:59.999Z"),
        // Gaza, Saturday 2017-10-28 00:00 +03 (first midnight): Foundation 2017-11-03T22:00Z,
        // engine was 2017-10-27T22:00Z (00:00 +02).
        Case("Asia/Gaza", DateComponents(weekday: 7), after: "2017-10-27T21:00:00Z"),
        // Gaza, Friday 2021-10-29 00:30 +03, between the midnights: Foundation 2021-11-04T22:00Z, engine was 2021-10-28T22:00Z.
        Case("Asia/Gaza", DateComponents(weekday: 6), after: "2021-10-28T21:30:00Z"),
    ])
    func weekdayOnlyFiresOnceOnARepeatedMidnight(_ c: Case) throws {
        try Self.expectFoundations(c)
    }

    // MARK: - 2. Day 29-31 from the last millisecond of a shorter month

    /// Asked from 23:59:59.999 of a month without the day, Foundation answers the rolled-over
    /// 1st of the next month at the reference's wall time truncated to the second (23:59:59,
    /// or hh:mm:59 with a minute set). The engine used to skip it and answer the real day
    /// about a month later.
    @Test(arguments: [
        // Troll (+02 in April): Foundation 2026-05-01 12:59:59 +02, engine was 2026-05-31 12:00 +02.
        Case("Antarctica/Troll", DateComponents(day: 31, hour: 12), after: "2026-04-30T21:59:59.999Z"),
        // St. John's, February of a common year (-03:30): Foundation 2031-03-01 23:30:59 -03:30, engine was 2031-03-29 23:30 -02:30.
        Case("America/St_Johns", DateComponents(day: 29, hour: 23, minute: 30), after: "2031-03-01T03:29:59.999Z"),
        // Apia (+13): Foundation 2025-07-01 00:30:59, engine was 2025-07-31 00:30.
        Case("Pacific/Apia", DateComponents(day: 31, hour: 0, minute: 30), after: "2025-06-30T10:59:59.999Z"),
        // Casablanca (+01): Foundation 2029-12-01 23:59:59 +01, engine was 2029-12-31 00:00 +00 (Ramadan offset).
        Case("Africa/Casablanca", DateComponents(day: 31), after: "2029-11-30T22:59:59.999Z"),
        // Chatham in daylight time (+13:45): Foundation 2027-03-01 23:59:59, engine was 2027-03-30 00:00.
        Case("Pacific/Chatham", DateComponents(day: 30), after: "2027-02-28T10:14:59.999Z"),
    ])
    func missingDayFromTheLastMillisecondOfAShortMonth(_ c: Case) throws {
        try Self.expectFoundations(c)
    }

    // MARK: - 3. A rolled-over day inside a spring-forward gap

    /// Day 31 after a 30-day month rolls over to the 1st; when the 1st is the day clocks
    /// spring forward and the trigger's wall time is in the gap, Foundation skips that day and
    /// answers the next real day 31. The engine used to fire on the 1st, shifted past the gap.
    @Test(arguments: [
        // Asuncion 2017-10-01 00:00 -> 01:00: Foundation 2017-10-31 00:15 -03, engine was 2017-10-01 01:15 -03.
        Case("America/Asuncion", DateComponents(day: 31, hour: 0, minute: 15), after: "2017-09-20T00:00:00Z"),
        // Asuncion 2023-10-01, hour only: Foundation 2023-10-31 00:00, engine was 2023-10-01 01:00.
        Case("America/Asuncion", DateComponents(day: 31, hour: 0), after: "2023-09-25T12:00:00Z"),
        // Same gap asked from the last minute of September (classes 2 and 3 together):
        // Foundation 2017-10-31 00:00, engine was 2017-10-01 01:59 (the reference's minute, shifted).
        Case("America/Asuncion", DateComponents(day: 31, hour: 0), after: "2017-10-01T03:59:00Z"),
        // Sydney 2028-10-01 02:00 -> 03:00: Foundation 2028-10-31 02:30 +11, engine was 2028-10-01 03:30 +11.
        Case("Australia/Sydney", DateComponents(day: 31, hour: 2, minute: 30), after: "2028-09-15T00:00:00Z"),
    ])
    func rolloverIntoAGapIsSkipped(_ c: Case) throws {
        try Self.expectFoundations(c)
    }

    // MARK: - 4. March 1st answered at the reference's time, seconds kept

    /// A weekOfMonth (or weekdayOrdinal) trigger asked in February, when March 1st is itself
    /// a matching day (week 1 / first such weekday of March): Foundation answers March 1st at
    /// the reference's wall-clock time, seconds included. The engine used to answer the real
    /// occurrence at the trigger's own time (seconds zeroed), earlier the same day (a same-day
    /// answer is not exception (a)). In regular zones as well as near an offset change
    /// (Casablanca's Ramadan change of 2027-02-07).
    @Test(arguments: [
        // Only the seconds differ: Foundation 2027-03-01T02:00:01Z, engine was 2027-03-01T02:00:00Z.
        Case("UTC", DateComponents(hour: 2, minute: 0, weekday: 2, weekOfMonth: 1), after: "2027-02-06T02:00:01Z"),
        // The same with weekdayOrdinal: Foundation 02:00:01, engine was 02:00:00.
        Case("UTC", DateComponents(hour: 2, minute: 0, weekday: 2, weekdayOrdinal: 1), after: "2027-02-06T02:00:01Z"),
        // Sunday 2015-03-01 in Havana: Foundation 10:11:37 -05 (the reference's time), engine was 09:00 -05.
        Case("America/Havana", DateComponents(hour: 9, weekday: 1, weekOfMonth: 1), after: "2015-02-02T15:11:37Z"),
        // Casablanca, one second after the Ramadan change (+01 -> +00): Foundation 02:00:01 +00, engine was 02:00:00 +00.
        Case("Africa/Casablanca", DateComponents(hour: 2, minute: 0, weekday: 2, weekdayOrdinal: 1), after: "2027-02-07T02:00:01Z"),
        // Casablanca, last millisecond of the day before the change: Foundation 2027-03-01 23:59:59 +00, engine was 00:00 +00.
        Case("Africa/Casablanca", DateComponents(weekday: 2, weekdayOrdinal: 1), after: "2027-02-06T22:59:59.999Z"),
    ])
    func marchFirstAtTheReferencesTime(_ c: Case) throws {
        try Self.expectFoundations(c)
    }

    // MARK: - 5. weekOfMonth 1 after Gaza's midnight spring-forward of 2022-03-27

    /// Gaza sprang forward at midnight on Sunday 2022-03-27 (00:00 -> 01:00 +03). For the
    /// Friday of week 1 without a time, Foundation carries the gap's hour into its answer on
    /// the next occurrence's own day: Friday 2022-04-01 at 01:00 instead of 00:00, from any
    /// reference in the second half of March (not only near the change). The engine answers
    /// 00:00 that day, the real occurrence; a same-day answer of Foundation's is not the
    /// contract's exception (a) (which needs a later day), so the engine must answer 01:00.
    /// (With hour 0 Foundation skips to May: exception (a), in the last test.)
    @Test(arguments: [
        // Last millisecond before the change: Foundation 2022-03-31T22:00Z (01:00 +03), engine 2022-03-31T21:00Z (00:00 +03).
        Case("Asia/Gaza", DateComponents(weekday: 6, weekOfMonth: 1), after: "2022-03-26T21:59:59.999Z"),
        // The change itself (01:00 +03 on 2022-03-27): same answers.
        Case("Asia/Gaza", DateComponents(weekday: 6, weekOfMonth: 1), after: "2022-03-26T22:00:00Z"),
        // An hour after the change: same answers.
        Case("Asia/Gaza", DateComponents(weekday: 6, weekOfMonth: 1), after: "2022-03-26T23:00:00Z"),
        // A week before the change: same answers.
        Case("Asia/Gaza", DateComponents(weekday: 6, weekOfMonth: 1), after: "2022-03-20T10:00:00Z"),
    ])
    func weekOfMonthOneAfterGazasMidnightGap(_ c: Case) throws {
        try Self.expectFoundations(c)
    }

    // MARK: - Contract exception (a): Foundation's answer lies on a later day than a real occurrence

    /// Not a disagreement to fix: Foundation's answer for a weekdayOrdinal / weekOfMonth pattern
    /// lies on a later day than a real occurrence (after late-month matches it skips a month,
    /// or answers March 1st past a real February date), and the engine answers the real
    /// occurrence. Checked: the engine's date is on an earlier day than Foundation's and shows
    /// every set component in the zone (Calendar.dateComponents).
    @Test(arguments: [
        // Foundation 2017-03-01 18:00:42 -05, engine 2017-02-26 00:00 (Sunday of week 5).
        Case("America/Havana", DateComponents(weekday: 1, weekOfMonth: 5), after: "2017-01-31T23:00:42Z"),
        // Foundation 2016-03-01 18:00:42 -05, engine 2016-02-29 09:30 (fifth Monday of a leap February).
        Case("America/Havana", DateComponents(hour: 9, minute: 30, weekday: 2, weekdayOrdinal: 5), after: "2016-01-31T23:00:42Z"),
        // Foundation 2017-03-01 18:00:42 +05:45, engine 2017-02-26 00:00.
        Case("Asia/Kathmandu", DateComponents(hour: 0, minute: 0, weekday: 1, weekOfMonth: 5), after: "2017-01-31T12:15:42Z"),
        // Foundation 2031-03-01 00:00 +01, engine 2031-02-23 00:00 +01 (fourth Sunday). Only
        // because of Casablanca's Ramadan change of 2031-01-26: in UTC Foundation finds it.
        Case("Africa/Casablanca", DateComponents(weekday: 1, weekdayOrdinal: 4), after: "2031-01-26T23:00:00Z"),
        // Foundation 2031-03-01 00:00 +01, engine 2031-02-23 00:00 +01 (Sunday of week 5).
        Case("Africa/Casablanca", DateComponents(weekday: 1, weekOfMonth: 5), after: "2031-01-26T23:00:00Z"),
        // Chained from Foundation's previous answer (4th Tuesday of January, during Ramadan's
        // +00): Foundation 2028-03-01 01:30, engine 2028-02-22 01:30. UTC skips it the same way.
        Case("Africa/Casablanca", DateComponents(hour: 1, minute: 30, weekday: 3, weekdayOrdinal: 4), after: "2028-01-25T01:30:00Z"),
        // Gaza after the midnight gap of 2022-03-27 (class 5's zone), with hour 0: Foundation
        // skips Friday 2022-04-01 and answers 2022-05-06 00:00 +03; engine 2022-04-01 00:00 +03.
        Case("Asia/Gaza", DateComponents(hour: 0, minute: 0, weekday: 6, weekOfMonth: 1), after: "2022-03-26T22:00:00Z"),
    ])
    func exceptionAReturnsTheRealOccurrence(_ c: Case) throws {
        let (engine, foundation, _, zone) = try Self.answers(c)
        let e = try #require(engine, "\(c.testDescription): engine nil")
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = zone
        if let f = foundation {
            #expect(cal.startOfDay(for: e) < cal.startOfDay(for: f), "\(c.testDescription): engine \(e) not on an earlier day than Foundation \(f)")
        }
        let d = cal.dateComponents([.month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .hour, .minute, .second], from: e)
        let want = c.components
        #expect(want.weekday == nil || want.weekday == d.weekday, "\(c.testDescription): \(e)")
        #expect(want.weekdayOrdinal == nil || want.weekdayOrdinal == d.weekdayOrdinal, "\(c.testDescription): \(e)")
        #expect(want.weekOfMonth == nil || want.weekOfMonth == d.weekOfMonth, "\(c.testDescription): \(e)")
        #expect((want.hour ?? 0) == d.hour && (want.minute ?? 0) == d.minute && d.second == 0, "\(c.testDescription): \(e)")
    }
}
