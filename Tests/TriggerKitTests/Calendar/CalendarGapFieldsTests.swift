import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Components with unset fields *between* set ones ({day 29, second 52}, {hour 9, second 30},
/// {month 3, hour 9}, {weekday 3, minute 15}): chains must equal Foundation's, which fixes the
/// unset fields of the year > month > day > hour > minute > second chain at their minimum
/// (weekday-type fields do not anchor it). (Caught: such triggers fired every minute or hour.)
@Suite struct CalendarGapFieldsTests {
    static let zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata"]

    @Test(arguments: [UInt64(11), 12, 13])
    func gappyComponentsEqualFoundation(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        var checked = 0
        for _ in 0..<150 {
            var c = DateComponents()
            // At least two of the chain's fields with a gap between them, sometimes a weekday.
            let fields = ["month", "day", "hour", "minute", "second"]
            var chosen = fields.filter { _ in Bool.random(using: &g) }
            if chosen.count < 2 { chosen = ["day", "second"] }
            for f in chosen {
                switch f {
                case "month": c.month = Int.random(in: 1...12, using: &g)
                case "day": c.day = Int.random(in: 1...28, using: &g)
                case "hour": c.hour = Int.random(in: 0...23, using: &g)
                case "minute": c.minute = Int.random(in: 0...59, using: &g)
                default: c.second = Int.random(in: 0...59, using: &g)
                }
            }
            if c.day == nil, Int.random(in: 0..<3, using: &g) == 0 { c.weekday = Int.random(in: 1...7, using: &g) }
            let tz = try #require(TimeZone(identifier: Self.zones[Int.random(in: 0..<Self.zones.count, using: &g)]))
            c.timeZone = tz
            let trigger = CalendarTrigger(dateMatching: c, repeats: true)
            let schedule = CalendarSchedule(trigger, floatingTimeZone: tz)
            var ref = Int64.random(in: 631_152_000_000...2_840_140_800_000, using: &g)  // 1990-2060
            for _ in 0..<6 {
                let want = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: ref), floatingTimeZone: tz).map(Timestamp.millis)
                let got = schedule.nextFire(afterMillis: ref)
                #expect(got == want, "\(tz.identifier) \(CalendarFeasibility.describe(c)) after \(Timestamp.string(millis: ref))")
                checked += 1
                guard let w = want, got == want else { break }
                ref = w
            }
        }
        #expect(checked > 500)
    }
}
