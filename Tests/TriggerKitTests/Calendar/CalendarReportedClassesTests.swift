import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The four classes of disagreement with Foundation reported against the second release, each
/// with cases of our own: the engine's chain must be Foundation's, and each case checks that
/// Foundation really shows the reported behaviour (so the case keeps testing that class).
@Suite struct CalendarReportedClassesTests {
    typealias Case = ZoneCase

    static func chain(_ c: Case, count: Int = 4) throws -> (engine: [Date], foundation: [Date]) {
        var comps = c.components
        comps.timeZone = try #require(TimeZone(identifier: c.zone))
        let trigger = CalendarTrigger(dateMatching: comps, repeats: true)
        let schedule = CalendarSchedule(trigger, floatingTimeZone: .gmt)
        let start = Timestamp.date(millis: try #require(Timestamp.parseMillis(c.after)))
        var engine: [Date] = [], foundation: [Date] = []
        var e = start, f = start
        for _ in 0..<count {
            if let n = schedule.nextDate(after: e) { engine.append(n); e = n }
            if let n = CalendarEngine.foundationNextDate(trigger, after: f, floatingTimeZone: .gmt) { foundation.append(n); f = n }
        }
        return (engine, foundation)
    }

    static func wall(_ d: Date, _ zone: String) -> DateComponents {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: zone)!
        return cal.dateComponents([.year, .month, .day, .hour, .minute, .second], from: d)
    }

    /// 1. A weekday-only trigger fires once on a repeated midnight (Havana's fall-back repeats
    /// 00:00-01:00; Santiago's and Asuncion's too).
    @Test(arguments: [
        Case(zone: "America/Havana", components: DateComponents(weekday: 1), after: "2023-11-04T12:00:00Z"),
        Case(zone: "America/Havana", components: DateComponents(weekday: 1), after: "2023-11-05T04:00:00Z"),
        Case(zone: "America/Havana", components: DateComponents(weekday: 1), after: "2023-11-05T04:30:00Z"),
        Case(zone: "America/Santiago", components: DateComponents(weekday: 1), after: "2024-04-06T12:00:00Z"),
        Case(zone: "America/Asuncion", components: DateComponents(weekday: 1), after: "2023-03-25T12:00:00Z"),
    ])
    func weekdayOnlyFiresOnceOnARepeatedMidnight(_ c: Case) throws {
        let (engine, foundation) = try Self.chain(c)
        #expect(engine == foundation, "\(c)")
        let days = engine.map { Self.wall($0, c.zone).day }
        #expect(Set(days).count == days.count, "two fires on one day: \(engine)")
    }

    /// 2. Day 29-31 asked from the last millisecond of a shorter month: the rolled-over 1st of
    /// the next month, at the reference's minute and second.
    @Test(arguments: [
        Case(zone: "America/New_York", components: DateComponents(day: 31, hour: 9), after: "2026-05-01T03:59:59.999Z"),
        Case(zone: "America/New_York", components: DateComponents(day: 30), after: "2026-03-01T04:59:59.999Z"),
        Case(zone: "Australia/Lord_Howe", components: DateComponents(day: 31, hour: 7, minute: 30), after: "2026-06-30T13:29:59.999Z"),
        Case(zone: "Asia/Kathmandu", components: DateComponents(day: 29, minute: 45), after: "2027-02-28T18:14:59.999Z"),
        Case(zone: "Europe/Dublin", components: DateComponents(day: 31), after: "2026-09-30T22:59:59.999Z"),
    ])
    func missingDayFromTheLastMillisecondOfAShortMonth(_ c: Case) throws {
        let (engine, foundation) = try Self.chain(c)
        #expect(engine == foundation, "\(c)")
        let first = try #require(foundation.first)
        #expect(Self.wall(first, c.zone).day == 1, "Foundation no longer answers the rolled-over 1st: \(first)")
    }

    /// 3. A rolled-over day whose wall time falls in a spring-forward gap: Foundation skips it.
    @Test(arguments: [
        Case(zone: "Australia/Sydney", components: DateComponents(day: 31, hour: 2, minute: 15), after: "2023-09-20T00:00:00Z"),
        Case(zone: "Australia/Lord_Howe", components: DateComponents(day: 31, hour: 2, minute: 15), after: "2023-09-20T00:00:00Z"),
        Case(zone: "Australia/Sydney", components: DateComponents(day: 31, hour: 2, minute: 45), after: "2017-09-20T00:00:00Z"),
    ])
    func rolloverIntoAGapIsSkipped(_ c: Case) throws {
        let (engine, foundation) = try Self.chain(c)
        #expect(engine == foundation, "\(c)")
        let first = try #require(foundation.first)
        #expect(Self.wall(first, c.zone).month == 10 && Self.wall(first, c.zone).day == 31, "Foundation no longer skips the gap day: \(first)")
    }

    /// 4. A weekOfMonth trigger whose February candidate misses: Foundation answers March 1st
    /// at the reference's hour, minute and second (seconds kept), before the real occurrence.
    @Test(arguments: [
        Case(zone: "America/New_York", components: DateComponents(weekday: 2, weekOfMonth: 1), after: "2026-02-03T15:27:41Z"),
        Case(zone: "America/New_York", components: DateComponents(hour: 9, weekday: 2, weekOfMonth: 1), after: "2026-02-06T15:27:41Z"),
        Case(zone: "America/New_York", components: DateComponents(weekday: 4, weekOfMonth: 1), after: "2026-02-06T15:27:41Z"),
    ])
    func weekOfMonthMarchFirstKeepsTheReferenceSeconds(_ c: Case) throws {
        let (engine, foundation) = try Self.chain(c)
        #expect(engine == foundation, "\(c)")
        let first = try #require(foundation.first)
        let w = Self.wall(first, c.zone)
        #expect(w.month == 3 && w.day == 1 && w.second == 41, "Foundation no longer answers March 1st at the reference's time: \(first)")
    }
}
