import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Seeded differential test against Foundation for the answers the engine used to hand to
/// Foundation: days a month lacks (day 29-31 patterns, monthly and yearly with a month, with
/// and without hour, minute and second) and wall times in daylight-saving gaps. References
/// all over the month, and many at the end of January, in February and around midnight on
/// March 1st, where Foundation's rolled-over days live; chains of 8 in every corpus zone.
/// Checked twice: the schedule's answer, and the real occurrence alone wherever the schedule
/// takes it as the answer (away from offset changes, for patterns whose Foundation answers are
/// real occurrences). No contract exception applies to these patterns (no `year`, no
/// `weekdayOrdinal` / `weekOfMonth`), so every difference fails.
///
/// Left out: a `minute` or `second` without the larger time fields above it (`{day 29,
/// second 52}`, `{day 29, hour 23, second 52}`): after a match Foundation goes on to the next
/// month (00:00:52, then a month later), where the engine fires again a minute later. That
/// is a difference on real days, not rolled-over ones, and is not handled here.
@Suite struct CalendarRolloverDifferentialTests {
    static let zones = CalendarNativeDifferentialTests.zones

    static func components(kind: Int, _ g: inout CalendarDifferentialTests.Rng) -> DateComponents {
        var c = DateComponents()
        let day = 29 + g.next(3)
        switch kind {
        case 0: c.day = day
        case 1: c.day = day; c.hour = g.next(24)
        case 2: c.day = day; c.hour = g.next(24); c.minute = g.next(60)
        case 3: c.day = day; c.hour = g.next(24); c.minute = g.next(60); c.second = g.next(60)
        case 4: c.month = 2; c.day = day; if g.next(2) == 0 { c.hour = g.next(24) }
        case 5: c.month = [2, 4, 6, 9, 11, 1 + g.next(12)][g.next(6)]; c.day = day
        case 6: c.month = [2, 2, 4, 6, 9, 11][g.next(6)]; c.day = day; c.hour = g.next(24); c.minute = g.next(60)
        case 7:
            c.month = [2, 2, 4, 6, 9, 11][g.next(6)]; c.day = day
            switch g.next(3) {
            case 0: c.hour = g.next(24)
            case 1: c.hour = g.next(24); c.minute = g.next(60)
            default: c.hour = g.next(24); c.minute = g.next(60); c.second = g.next(60)
            }
        default:
            // Gap wall times: 00:00-03:59, where most zones change offset.
            c.hour = g.next(4); c.minute = 5 * g.next(12)
            switch g.next(5) {
            case 0: c.weekday = 1 + g.next(7)
            case 1: c.day = 1 + g.next(31)
            case 2: c.month = [3, 4, 9, 10, 11][g.next(5)]; c.day = 1 + g.next(31)
            case 3: c.second = g.next(60)
            default: break
            }
        }
        return c
    }

    /// A reference wall time (as UTC millis of the zone's wall clock): anywhere, or near the
    /// end of a month / February / March 1st, often right around midnight.
    static func wallReference(_ g: inout CalendarDifferentialTests.Rng, gap: Bool) -> Int64 {
        let y = 1972 + g.next(126)
        let ms = Int64(86_400_000)
        var day: Int
        switch g.next(gap ? 2 : 4) {
        case 0: day = CivilDate.days(year: y, month: 1 + g.next(12), day: 1 + g.next(31))
        case 1 where gap: day = CivilDate.days(year: y, month: [3, 4, 9, 10, 11][g.next(5)], day: 1 + g.next(31))
        case 1: day = CivilDate.days(year: y, month: 1, day: 28 + g.next(4))
        case 2: day = CivilDate.days(year: y, month: 2, day: 1) + g.next(30)
        default: day = CivilDate.days(year: y, month: 1 + g.next(12), day: 1) - 2 + g.next(4)
        }
        var t: Int64
        switch g.next(4) {
        case 0: t = Int64(g.next(86_400_000))
        case 1: t = ms - 1 - Int64(g.next(2000))
        case 2: t = Int64(g.next(1000)) * (g.next(2) == 0 ? 1 : 1000)
        default: t = Int64(g.next(24)) * 3_600_000 + Int64(g.next(4)) * 15 * 60_000
        }
        return Int64(day) * ms + t
    }

    /// A wall time inside a daylight-saving gap of a zone with DST (1972-2100) as the
    /// trigger's time, on that day's weekday, day, month and day, or every day; the reference
    /// a few hours to ten days before the gap, or just after it.
    static func gapCase(_ g: inout CalendarDifferentialTests.Rng) -> (TimeZone, DateComponents, Int64)? {
        let tz = zones[g.next(zones.count)]
        let t = ZoneTable.shared(tz)
        let lo = Int64(CivilDate.days(year: 1972, month: 1, day: 1)) * 86_400_000
        let hi = Int64(CivilDate.days(year: 2100, month: 1, day: 1)) * 86_400_000
        let gaps = t.transitions.indices.filter { t.transitions[$0] > lo && t.transitions[$0] < hi && t.offsets[$0 + 1] > t.offsets[$0] }
        guard !gaps.isEmpty else { return nil }
        let k = gaps[g.next(gaps.count)]
        let len = t.wallHigh[k] - t.wallLow[k]
        let w = t.wallLow[k] + Int64(g.next(Int(len / 60_000))) * 60_000
        let day = Int(CivilDate.floorDiv(w, 86_400_000))
        let tod = Int(w - Int64(day) * 86_400_000)
        var c = DateComponents()
        c.hour = tod / 3_600_000; c.minute = tod / 60_000 % 60
        if g.next(4) == 0 { c.second = g.next(60) }
        let (_, m, d) = CivilDate.ymd(days: day)
        switch g.next(4) {
        case 0: c.weekday = CivilDate.weekday(days: day)
        case 1: c.day = d
        case 2: c.month = m; c.day = d
        default: break
        }
        let before: Int64 = [3_600_000, 86_400_000, 10 * 86_400_000][g.next(3)]
        var wall = t.wallLow[k] - Int64(g.next(Int(before)))
        if g.next(4) == 0 { wall = t.wallHigh[k] + Int64(g.next(Int(len))) }
        return (tz, c, wall)
    }

    static func check(kind: Int, cases: Int, seed: UInt64) -> (differences: [String], native: [String], total: Int) {
        var g = CalendarDifferentialTests.Rng(s: seed)
        var differences: [String] = [], nativeDiff: [String] = []
        var total = 0
        for _ in 0..<cases {
            var c = components(kind: kind, &g)
            var tz = zones[g.next(zones.count)]
            var wall = wallReference(&g, gap: kind >= 8)
            if kind == 9, let (gz, gc, gw) = gapCase(&g) { tz = gz; c = gc; wall = gw }
            c.timeZone = tz
            let table = ZoneTable.shared(tz)
            var ref = wall - Int64(tz.secondsFromGMT(for: Timestamp.date(millis: wall))) * 1000
            let trigger = CalendarTrigger(dateMatching: c, repeats: true)
            let s = CalendarSchedule(trigger, floatingTimeZone: .gmt)
            for _ in 0..<8 {
                total += 1
                let got = s.nextFire(afterMillis: ref)
                var touched = false
                let native = s.realOccurrence(after: ref, touched: &touched)
                let want = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: ref), floatingTimeZone: .gmt).map(Timestamp.millis)
                let show = { (x: Int64?) in x.map { Timestamp.string(millis: $0) } ?? "nil" }
                let line = "\(tz.identifier) \(CalendarFeasibility.describe(c)) after \(show(ref)): \(show(got)) native \(show(native)) vs Foundation \(show(want))"
                if got != want { differences.append(line) }
                // The real occurrence must be Foundation's answer wherever the schedule takes it
                // as the answer (away from offset changes, patterns whose answers are real).
                let day = Int64(86_400_000)
                let nearChange = [ref, native ?? ref].contains { table.hasTransition(from: $0 - day, to: $0 + day) }
                let searchReenacted = s.pattern.needsFoundationCheck || s.pattern.rollsOverMissingDays
                if native != want, !touched, !nearChange, !searchReenacted { nativeDiff.append(line) }
                guard let next = want ?? got else { break }
                ref = next
            }
        }
        return (differences, nativeDiff, total)
    }

    @Test(arguments: 0..<10)
    func rolloverAndGapAnswersAgreeWithFoundation(kind: Int) {
        let (differences, native, total) = Self.check(kind: kind, cases: kind >= 8 ? 200 : 80, seed: UInt64(kind + 7) &* 104_729)
        for d in differences.prefix(10) { print("difference:", d) }
        for d in native.prefix(30) { print("native difference:", d) }
        #expect(differences.isEmpty, "kind \(kind): \(differences.count) of \(total) differ from Foundation")
        #expect(native.isEmpty, "kind \(kind): \(native.count) of \(total) native answers differ from Foundation")
    }
}
