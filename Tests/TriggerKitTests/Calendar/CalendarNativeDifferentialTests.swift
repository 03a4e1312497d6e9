import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Seeded differential test against Foundation for the kinds the engine answers natively in
/// place of consulting Foundation: `weekdayOrdinal`, `weekOfMonth`, weekday-with-day mixes,
/// days 29-31 and month+day rollovers, wall times in daylight-saving gaps. Chains of 8 from
/// random references 1970-2100 (half of them in January-February, where Foundation's "March
/// 1st" habit lives), every corpus zone. The only allowed difference is contract exception
/// (a): TriggerKit's date is earlier than Foundation's and truly matches every component.
@Suite struct CalendarNativeDifferentialTests {
    static let zones = [
        "America/New_York", "Europe/London", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago", "Asia/Tehran",
        "Pacific/Apia", "Africa/Casablanca", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "UTC",
        "Asia/Kathmandu", "America/Sao_Paulo", "Australia/Sydney", "America/Los_Angeles", "America/Havana",
        "Europe/Dublin", "Antarctica/Troll", "Asia/Tokyo",
    ].compactMap { TimeZone(identifier: $0) }

    static func components(kind: Int, _ g: inout CalendarDifferentialTests.Rng) -> DateComponents {
        var c = DateComponents()
        switch kind {
        case 0: c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5); c.hour = g.next(24); c.minute = g.next(60)
        case 1: c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5)
        case 2: c.month = 1 + g.next(12); c.weekday = 1 + g.next(7); c.weekdayOrdinal = 1 + g.next(5); c.hour = g.next(24)
        case 3: c.weekOfMonth = 1 + g.next(6); c.hour = g.next(24)
        case 4: c.weekday = 1 + g.next(7); c.weekOfMonth = 1 + g.next(6); c.hour = g.next(24); c.minute = g.next(60)
        case 5: c.weekday = 1 + g.next(7); c.day = 1 + g.next(31); c.hour = g.next(24)
        case 6: c.day = 29 + g.next(3); c.hour = g.next(24); c.minute = g.next(60)
        case 7: c.month = 1 + g.next(12); c.day = 29 + g.next(3); c.hour = g.next(24); c.minute = g.next(60)
        case 8: c.day = 29 + g.next(3)
        default:
            // Gap hours: 00:00-03:59 wall times, where most zones change offset.
            c.hour = g.next(4); c.minute = 10 * g.next(6)
            if g.next(2) == 0 { c.weekday = 1 + g.next(7) } else if g.next(2) == 0 { c.day = 1 + g.next(31) }
        }
        return c
    }

    /// Follows a chain of `steps` next dates of repeating components `c` in `zone` from `ref`,
    /// comparing the engine with Foundation at each step (Foundation's answer leads the chain);
    /// returns the differences that are not contract exception (a) (TriggerKit earlier, and
    /// truly matching every component) and the steps compared. With `endOfRange`, also allowed:
    /// no TriggerKit date where Foundation answers one that matches nothing (its answer at the
    /// end of its range, past 9999), and the chain stops at 9999.
    static func chainDifferences(_ c: DateComponents, zone: TimeZone, from start: Int64, steps: Int,
                                 endOfRange: Bool = false) -> (differences: [String], steps: Int) {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = zone
        func matches(_ ms: Int64) -> Bool {
            let d = cal.dateComponents([.month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .hour, .minute, .second], from: Timestamp.date(millis: ms))
            return [(c.month, d.month), (c.day, d.day), (c.weekday, d.weekday), (c.weekdayOrdinal, d.weekdayOrdinal),
                    (c.weekOfMonth, d.weekOfMonth), (c.hour, d.hour), (c.minute, d.minute)].allSatisfy { $0.0 == nil || $0.0 == $0.1 }
        }
        let trigger = CalendarTrigger(dateMatching: c, repeats: true)
        let s = CalendarSchedule(trigger, floatingTimeZone: .gmt)
        var differences: [String] = []
        var total = 0
        var ref = start
        for _ in 0..<steps {
            if endOfRange && ref >= RequestLimits.latestMillis { break }
            total += 1
            let got = s.nextFire(afterMillis: ref)
            let want = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: ref), floatingTimeZone: .gmt).map(Timestamp.millis)
            if got != want {
                let allowed: Bool
                if let got, let want, got < want {
                    // Exception (a): Foundation skipped a real occurrence; TriggerKit's is earlier and real.
                    allowed = matches(got)
                } else if endOfRange, got == nil, let want {
                    allowed = !matches(want)
                } else {
                    allowed = false
                }
                if !allowed {
                    differences.append("\(zone.identifier) \(CalendarFeasibility.describe(c)) after \(Timestamp.string(millis: ref)): \(got.map { Timestamp.string(millis: $0) } ?? "nil") vs Foundation \(want.map { Timestamp.string(millis: $0) } ?? "nil")")
                }
            }
            guard let next = want ?? got else { break }
            ref = next
        }
        return (differences, total)
    }

    @Test(arguments: 0..<10)
    func nativeKindsAgreeWithFoundation(kind: Int) {
        var g = CalendarDifferentialTests.Rng(s: UInt64(kind + 101) &* 7919)
        var differences: [String] = []
        var total = 0
        for _ in 0..<60 {
            var c = Self.components(kind: kind, &g)
            let tz = Self.zones[g.next(Self.zones.count)]
            c.timeZone = tz
            let (d, n) = Self.chainDifferences(c, zone: tz, from: g.reference(), steps: 8)
            differences += d
            total += n
        }
        for d in differences.prefix(20) { print("difference:", d) }
        #expect(differences.isEmpty, "kind \(kind): \(differences.count) of \(total) differ from Foundation")
    }
}

extension CalendarDifferentialTests.Rng {
    /// A reference instant (epoch ms) in 1970-2100; half of them between mid-January and
    /// the end of February (where Foundation's "March 1st" answers live), half on whole hours.
    mutating func reference() -> Int64 {
        var ref = Int64(next(4_102_444_800)) * 1000
        if next(2) == 0 {
            let y = 1971 + next(129)
            ref = Int64(CivilDate.days(year: y, month: 1, day: 15 + next(45))) * 86_400_000 + Int64(next(86_400_000))
        }
        if next(2) == 0 { ref -= ref % 3_600_000 }
        return ref
    }
}
