import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Triggers in another calendar (Chinese, Hebrew, Islamic, Buddhist, ...) whose components
/// name only times of day and days of the week (`hour`, `minute`, `second`, `weekday`) match
/// the same instants as in the Gregorian calendar, so they are computed natively
/// (``CalendarSchedule/isTimeOfWeek(_:)``). Seeded differential test: chains of next dates
/// against Foundation's own answers in each calendar, with the contract's policy, from
/// references across 0001-9999 and next to daylight-saving changes.
@Suite struct TimeOfWeekInOtherCalendarsTests {
    static let calendars: [Calendar.Identifier] = [
        .chinese, .hebrew, .islamic, .islamicUmmAlQura, .islamicCivil, .buddhist, .japanese, .persian, .indian, .coptic,
        .ethiopicAmeteMihret, .republicOfChina,
    ]
    static let zones = ["America/New_York", "Australia/Lord_Howe", "America/Santiago", "Africa/Casablanca", "Asia/Tehran",
                        "America/St_Johns", "Pacific/Apia", "UTC"].compactMap { TimeZone(identifier: $0) }

    static func components(_ g: inout CalendarDifferentialTests.Rng) -> DateComponents {
        var c = DateComponents()
        repeat {
            if g.next(2) == 0 { c.hour = g.next(24) }
            if g.next(2) == 0 { c.minute = [0, 30, g.next(60)][g.next(3)] }
            if g.next(3) == 0 { c.second = g.next(60) }
            if g.next(3) == 0 { c.weekday = 1 + g.next(7) }
        } while c.hour == nil && c.minute == nil && c.second == nil && c.weekday == nil
        return c
    }

    /// References: random instants 1970-2096 and 0001-9999, and instants around the zone's
    /// offset changes after 2020.
    static func references(_ zone: TimeZone, _ g: inout CalendarDifferentialTests.Rng) -> [Int64] {
        var refs = (0..<6).map { _ in Int64(g.next(4_000_000_000)) * 1000 }
        refs += (0..<3).map { _ in RequestLimits.earliestMillis + Int64(g.next(315_000_000)) * 1_000_000 }
        var d = Date(timeIntervalSince1970: 1_600_000_000)
        for _ in 0..<3 {
            guard let n = zone.nextDaylightSavingTimeTransition(after: d) else { break }
            refs += [-3600, -1, 0, 1800].map { Timestamp.millis(n) + $0 * 1000 }
            d = n
        }
        return refs
    }

    /// Whether the wall clock of `t` in `zone` shows `query`'s fields, and 0 in the units below
    /// its largest one that it leaves out (the contract's policy).
    static func shows(_ query: DateComponents, _ t: Int64, in zone: TimeZone) -> Bool {
        var g = Calendar(identifier: .gregorian)
        g.timeZone = zone
        let c = g.dateComponents([.weekday, .hour, .minute, .second], from: Timestamp.date(millis: t))
        let below = [query.weekday != nil, query.hour != nil, query.minute != nil]
        func wanted(_ v: Int?, _ largerGiven: Bool) -> Int? { v ?? (largerGiven ? 0 : nil) }
        return (query.weekday == nil || c.weekday == query.weekday)
            && (wanted(query.hour, below[0]).map { $0 == c.hour } ?? true)
            && (wanted(query.minute, below[0] || below[1]).map { $0 == c.minute } ?? true)
            && (wanted(query.second, below.contains(true)).map { $0 == c.second } ?? true)
            && t % 1000 == 0
    }

    /// Foundation's answers, except in zones whose offset had seconds (local mean time, from
    /// the tables' 1583 on), where they are not the wall times asked for (exception 1).
    @Test(arguments: calendars)
    func nextDatesAreFoundationsOwn(calendar id: Calendar.Identifier) throws {
        var g = CalendarDifferentialTests.Rng(s: UInt64(Self.calendars.firstIndex(of: id) ?? 0) &+ 77)
        var compared = 0, localMeanTime = 0
        for zone in Self.zones {
            var cal = Calendar(identifier: id)
            cal.timeZone = zone
            for ref in Self.references(zone, &g) {
                var c = Self.components(&g)
                c.calendar = cal
                c.timeZone = zone
                let s = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt)
                #expect(s.foreign == nil, "\(id) \(c) should be native")
                var query = c
                query.calendar = nil
                query.timeZone = nil
                var at = ref
                // A chain of 3, as a repeating trigger steps (Foundation leads it).
                for _ in 0..<3 {
                    let mine = s.nextFire(afterMillis: at)
                    let theirs = cal.nextDate(after: Timestamp.date(millis: at), matching: query,
                                              matchingPolicy: .nextTimePreservingSmallerComponents, repeatedTimePolicy: .first,
                                              direction: .forward).map(Timestamp.millis)
                        .flatMap { RequestLimits.isSupported(millis: $0) ? $0 : nil }
                    compared += 1
                    let table = ZoneTable.shared(zone), day: Int64 = 86_400_000
                    if at >= table.startMillis, table.hasSecondsInOffset(from: at - day, to: Swift.max(mine ?? at, theirs ?? at) + day) {
                        // Local mean time with seconds (exception 1): Foundation's minutes are
                        // aligned to UTC; the engine answers a wall time that shows the pattern.
                        let m = try #require(mine, "\(id) \(zone.identifier) \(query) after \(Timestamp.string(millis: at))")
                        #expect(m > at && Self.shows(query, m, in: zone), "\(id) \(zone.identifier) \(query): \(Timestamp.string(millis: m))")
                        localMeanTime += 1
                        at = m
                        continue
                    }
                    #expect(mine == theirs, "\(id) \(zone.identifier) \(query) after \(Timestamp.string(millis: at))")
                    guard let next = theirs else { break }
                    at = next
                }
            }
        }
        #expect(compared > 100 && compared > 4 * localMeanTime, "\(compared) compared, \(localMeanTime) in local mean time")
    }

    /// Before 1900 (outside the zone tables) Foundation is asked in the trigger's own calendar:
    /// there its answers differ from the Gregorian calendar's at a few changes from local mean
    /// time (found in review: Asia/Tokyo 1888, America/Sitka's 1867 change of day).
    @Test(arguments: [
        (Calendar.Identifier.hebrew, "Asia/Tokyo", DateComponents(hour: 0), Int64(-2_587_712_400_000)),
        (.islamic, "Asia/Tokyo", DateComponents(hour: 0, minute: 0), -2_587_712_400_000),
        (.islamic, "America/Sitka", DateComponents(weekday: 6), -3_225_223_726_000),
        (.chinese, "America/Sitka", DateComponents(hour: 0, weekday: 1), -3_225_223_726_000),
    ])
    func beforeTheTablesTheOwnCalendarAnswers(_ id: Calendar.Identifier, _ zoneName: String, _ query: DateComponents, _ ref: Int64) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var cal = Calendar(identifier: id)
        cal.timeZone = zone
        var c = query
        c.calendar = cal
        c.timeZone = zone
        let s = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt)
        var at = ref
        for _ in 0..<3 {
            let theirs = cal.nextDate(after: Timestamp.date(millis: at), matching: query, matchingPolicy: .nextTimePreservingSmallerComponents,
                                      repeatedTimePolicy: .first, direction: .forward).map(Timestamp.millis)
            #expect(s.nextFire(afterMillis: at) == theirs, "\(id) \(zoneName) \(query) after \(Timestamp.string(millis: at))")
            guard let next = theirs else { break }
            at = next
        }
    }

    /// Any field beyond times of the week keeps Foundation's search in another calendar.
    @Test func dateFieldsKeepTheOtherCalendar() {
        let chinese = Calendar(identifier: .chinese)
        for c in [DateComponents(calendar: chinese, day: 1, hour: 9), DateComponents(calendar: chinese, month: 8, weekday: 2),
                  DateComponents(calendar: chinese, era: 78, hour: 9), DateComponents(calendar: chinese, minute: 2, nanosecond: 5),
                  DateComponents(calendar: chinese, hour: 9, weekdayOrdinal: 2)] {
            #expect(CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt).foreign != nil, "\(c)")
        }
        let hourly = CalendarSchedule(CalendarTrigger(dateMatching: DateComponents(calendar: chinese, minute: 5), repeats: true),
                                      floatingTimeZone: .gmt)
        #expect(hourly.foreign == nil)
    }
}
