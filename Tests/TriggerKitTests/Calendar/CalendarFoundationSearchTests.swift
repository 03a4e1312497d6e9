import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The re-enacted Foundation search (`FoundationSearch`) against Foundation itself, raw: no
/// reconciliation with real occurrences, so every one of its answers must be Foundation's,
/// including the ones that are not real occurrences ("March 1st" answers, skipped months).
/// Month-relative patterns in the zones with the hardest offset changes, references biased
/// to January-February and to whole hours, chains of 8.
@Suite struct CalendarFoundationSearchTests {
    static let zones = [
        "America/Havana", "America/Santiago", "America/Asuncion", "America/Sao_Paulo", "Australia/Lord_Howe",
        "Antarctica/Troll", "Pacific/Chatham", "Africa/Casablanca", "Europe/Dublin", "Asia/Kathmandu",
        "America/St_Johns", "Pacific/Apia", "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney",
    ].compactMap { TimeZone(identifier: $0) }

    static func components(kind: Int, _ g: inout CalendarDifferentialTests.Rng) -> DateComponents {
        var c = DateComponents()
        let hours = [0, 1, 2, 3, 23, g.next(24)]
        switch kind {
        case 0: c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5); c.hour = hours[g.next(6)]; c.minute = 15 * g.next(4)
        case 1: c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5)
        case 2: c.month = 1 + g.next(12); c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5); c.hour = hours[g.next(6)]
        case 3: c.weekOfMonth = 1 + g.next(5); c.weekday = 1 + g.next(7)
        case 4: c.weekday = 1 + g.next(7); c.weekOfMonth = 1 + g.next(5); c.hour = hours[g.next(6)]; c.minute = g.next(60)
        case 5: c.weekday = 1 + g.next(7); c.day = 1 + g.next(31); c.hour = hours[g.next(6)]
        case 6: c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5); c.minute = g.next(60); c.second = g.next(60)
        case 7: c.month = 1 + g.next(12); c.weekOfMonth = 1 + g.next(5); c.weekday = 1 + g.next(7); c.hour = hours[g.next(6)]; c.minute = 30
        case 8: c.hour = hours[g.next(6)]; c.minute = 15 * g.next(4)
        case 9: c.minute = 15 * g.next(4); if g.next(2) == 0 { c.second = g.next(60) }
        case 10: c.weekday = 1 + g.next(7); if g.next(2) == 0 { c.hour = hours[g.next(6)]; c.minute = 30 }
        case 11: c.day = 1 + g.next(31); c.hour = hours[g.next(6)]; c.minute = g.next(60)
        case 12: c.month = 1 + g.next(12); c.day = 1 + g.next(31); if g.next(2) == 0 { c.hour = hours[g.next(6)] }
        case 13: c.weekOfYear = 1 + g.next(53); c.weekday = 1 + g.next(7); c.hour = hours[g.next(6)]; c.minute = 45
        case 14: c.yearForWeekOfYear = 1975 + g.next(120); c.weekOfYear = 1 + g.next(52); c.weekday = 1 + g.next(7); c.hour = hours[g.next(6)]
        default: c.dayOfYear = 1 + g.next(366); c.hour = hours[g.next(6)]
        }
        return c
    }

    /// In both calendars the native engine covers: they differ in Foundation's search (only the
    /// Gregorian one answers "March 1st" after a February candidate).
    @Test(arguments: 0..<16, [Calendar.Identifier.gregorian, .iso8601])
    func searchIsFoundations(kind: Int, calendar: Calendar.Identifier) throws {
        var g = CalendarDifferentialTests.Rng(s: UInt64(kind + 7) &* 104_729)
        var differences: [String] = []
        var total = 0
        for _ in 0..<50 {
            var c = Self.components(kind: kind, &g)
            let tz = Self.zones[g.next(Self.zones.count)]
            c.timeZone = tz
            if calendar != .gregorian { c.calendar = CalendarNames.calendar(calendar) }
            let trigger = CalendarTrigger(dateMatching: c, repeats: true)
            let schedule = CalendarSchedule(trigger, floatingTimeZone: .gmt)
            let search = try #require(FoundationSearch(zone: schedule.zone, pattern: schedule.pattern, gregorian: calendar == .gregorian))
            var ref = g.reference()
            for _ in 0..<8 {
                total += 1
                let want = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: ref), floatingTimeZone: .gmt).map(Timestamp.millis)
                let got: Int64?
                do {
                    got = try search.next(after: ref)
                } catch {
                    // The search declines only near a skipped or repeated day (Foundation is
                    // asked there); anywhere else declining is a difference.
                    let room = 2 * 366 * Int64(CalendarPattern.msPerDay)
                    if !schedule.zone.hasDayStep(from: ref - room, to: max(ref, want ?? ref) + room) {
                        differences.append("\(tz.identifier) \(CalendarFeasibility.describe(c)) after \(Timestamp.string(millis: ref)): declined")
                    }
                    guard let next = want else { break }
                    ref = next
                    continue
                }
                if got != want {
                    differences.append("\(tz.identifier) \(CalendarFeasibility.describe(c)) after \(Timestamp.string(millis: ref)): \(got.map { Timestamp.string(millis: $0) } ?? "nil") vs Foundation \(want.map { Timestamp.string(millis: $0) } ?? "nil")")
                }
                guard let next = want else { break }
                ref = next
            }
        }
        for d in differences.prefix(10) { print("difference:", d) }
        #expect(differences.isEmpty, "\(calendar) kind \(kind): \(differences.count) of \(total) differ from Foundation")
    }
}
