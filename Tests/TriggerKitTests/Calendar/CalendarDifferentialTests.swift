import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Property-based differential test against Foundation itself: random components of the
/// corpus's everyday kinds, many zones, references 1970-2100, fixed seed. The long version
/// (a million cases, every kind) is `Benchmarks`' `CalendarDifferential` executable.
@Suite struct CalendarDifferentialTests {
    struct Rng {
        var s: UInt64
        mutating func next(_ n: Int) -> Int {
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    static let zones = [
        "America/New_York", "Europe/London", "Europe/Berlin", "America/Santiago", "Asia/Tehran", "Africa/Casablanca",
        "Asia/Kolkata", "America/St_Johns", "UTC", "Asia/Kathmandu", "America/Sao_Paulo", "Australia/Sydney",
        "America/Los_Angeles", "America/Havana", "Europe/Dublin", "Asia/Tokyo", "Australia/Lord_Howe", "Pacific/Chatham",
        "Pacific/Apia", "Antarctica/Troll", "Europe/Moscow", "America/Caracas", "Asia/Gaza",
    ].compactMap { TimeZone(identifier: $0) }

    /// Random components of the corpus's everyday kinds (times of day, weekly, monthly,
    /// yearly, seconds, hourly, week of year in Gregorian or ISO 8601 weeks).
    static func everydayComponents(_ g: inout Rng) -> DateComponents {
        var c = DateComponents()
        switch g.next(7) {
        case 0: c.hour = g.next(24); c.minute = g.next(60)
        case 1: c.weekday = 1 + g.next(7); c.hour = g.next(24); c.minute = 15 * g.next(4)
        case 2: c.day = 1 + g.next(28); c.hour = g.next(24); c.minute = g.next(60)
        case 3: c.month = 1 + g.next(12); c.day = 1 + g.next(28); c.hour = g.next(24)
        case 4: c.hour = g.next(24); c.minute = g.next(60); c.second = g.next(60)
        case 5: c.minute = g.next(60)
        default:
            c.weekOfYear = 1 + g.next(52); c.weekday = 1 + g.next(7); c.hour = g.next(24)
            if g.next(2) == 0 { c.calendar = CalendarNames.calendar(.iso8601) }
        }
        return c
    }

    @Test(arguments: [1, 2, 3])
    func agreesWithFoundation(seed: Int) {
        var g = Rng(s: UInt64(seed) &* 7919)
        var differences: [String] = []
        let n = 1000
        for _ in 0..<n {
            var c = Self.everydayComponents(&g)
            c.timeZone = Self.zones[g.next(Self.zones.count)]
            var after = Int64(g.next(4_102_444_800)) * 1000
            if g.next(2) == 0 { after -= after % 3_600_000 }
            let trigger = CalendarTrigger(dateMatching: c, repeats: true)
            let native = CalendarSchedule(trigger, floatingTimeZone: .gmt).nextFire(afterMillis: after)
            let foundation = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: after), floatingTimeZone: .gmt).map(Timestamp.millis)
            if native != foundation {
                differences.append("\(c.timeZone!.identifier) \(CalendarFeasibility.describe(c)) after \(Timestamp.string(millis: after)): \(native.map { Timestamp.string(millis: $0) } ?? "nil") vs Foundation \(foundation.map { Timestamp.string(millis: $0) } ?? "nil")")
            }
        }
        for d in differences { print("difference:", d) }
        print("seed \(seed): \(differences.count) of \(n) differ")
        // None of these kinds falls under the contract's exceptions (no fixed year, no
        // weekdayOrdinal or weekOfMonth, days <= 28, no quarter): any difference is
        // unclassified, and none is allowed.
        #expect(differences.isEmpty, "\(differences.count) of \(n) differ from Foundation")
    }
}
