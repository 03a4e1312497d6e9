import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Repeated (fall-back) wall times: chains that start at, before, between and after the two
/// occurrences must equal Foundation's, for hour-stepping and day-stepping patterns alike.
/// (Caught: an hourly trigger searching from the first occurrence skipped the second, once a
/// year in every zone with daylight saving time.)
@Suite struct CalendarFoldTests {
    static let folds: [(zone: String, firstOccurrence: String)] = [
        ("Europe/London", "2026-10-25T00:00:00Z"),     // 01:00 BST, repeats as 01:00 GMT
        ("America/New_York", "2026-11-01T05:00:00Z"),  // 01:00 EDT
        ("Australia/Lord_Howe", "2026-04-04T14:30:00Z"), // half-hour fall-back at 02:00
        ("America/St_Johns", "2026-11-01T03:30:00Z"),  // 01:00 NDT
    ]

    static let patterns: [DateComponents] = [
        DateComponents(minute: 0), DateComponents(minute: 30), DateComponents(minute: 15, second: 0),
        DateComponents(second: 0), DateComponents(hour: 1, minute: 30), DateComponents(hour: 1),
        DateComponents(hour: 1, minute: 45, weekday: 1),
    ]

    @Test(arguments: folds)
    func chainsAroundAFallBackEqualFoundation(zone: String, firstOccurrence: String) throws {
        let tz = try #require(TimeZone(identifier: zone))
        let start = try #require(Timestamp.parseMillis(firstOccurrence))
        for p in Self.patterns {
            var comps = p
            comps.timeZone = tz
            let trigger = CalendarTrigger(dateMatching: comps, repeats: true)
            let schedule = CalendarSchedule(trigger, floatingTimeZone: tz)
            for offsetMinutes in [-61, -1, 0, 1, 29, 30, 59, 60, 61, 90, 119, 120] {
                var ref = start + Int64(offsetMinutes) * 60_000
                for _ in 0..<4 {
                    let want = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: ref), floatingTimeZone: tz).map(Timestamp.millis)
                    let got = schedule.nextFire(afterMillis: ref)
                    #expect(got == want, "\(zone) \(p) after \(Timestamp.string(millis: ref))")
                    guard let w = want else { break }
                    ref = w
                }
            }
        }
    }
}
