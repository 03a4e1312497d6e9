import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Dates after 2150: answered natively up to 9999 in zones whose offset never changes again
/// (UTC, fixed offsets, zones that dropped daylight saving) and in zones whose final rule
/// repeats every 400 years (every zone with daylight saving, as Foundation has them), where
/// they used to go to Foundation one fire at a time (~70 us each: 100,000 upcoming fires of a
/// monthly trigger took 7 s, found by `make fuzz`). Checked against Foundation itself, with the
/// same kinds and the same single allowed difference as ``CalendarNativeDifferentialTests``.
@Suite struct CalendarFarFutureTests {
    static let constantZones = ["UTC", "Asia/Tokyo", "Asia/Kolkata", "Etc/GMT+5", "America/Phoenix", "Asia/Tehran", "Pacific/Apia"]
        .compactMap { TimeZone(identifier: $0) } + [TimeZone(secondsFromGMT: -(3 * 3600 + 1800))!]

    /// A reference in 2150-9998, half of them in January-February, half on whole hours.
    /// Zones whose offsets still change: the hardest of the corpus (half-hour and two-hour
    /// shifts, midnight changes, negative daylight saving, southern summers).
    static let changingZones = ["America/New_York", "Europe/Berlin", "Europe/Dublin", "Australia/Lord_Howe", "America/Santiago",
                                "America/Havana", "Antarctica/Troll", "Pacific/Chatham", "Australia/Sydney", "America/St_Johns"]
        .compactMap { TimeZone(identifier: $0) }

    static func farReference(_ g: inout CalendarDifferentialTests.Rng) -> Int64 {
        let y = 2150 + g.next(7849)
        var ref = Int64(CivilDate.days(year: y, month: 1, day: 1)) * 86_400_000 + Int64(g.next(365 * 86_400_000))
        if g.next(2) == 0 { ref = Int64(CivilDate.days(year: y, month: 1, day: 15 + g.next(45))) * 86_400_000 + Int64(g.next(86_400_000)) }
        if g.next(2) == 0 { ref -= ref % 3_600_000 }
        return ref
    }

    /// Kinds 0-9: those of ``CalendarNativeDifferentialTests``; 10: the everyday kinds; in
    /// fixed-offset zones and in zones with daylight saving.
    @Test(arguments: 0..<11, [false, true])
    func agreesWithFoundationAfter2150(kind: Int, changing: Bool) {
        var g = CalendarDifferentialTests.Rng(s: UInt64(kind + 211 + (changing ? 1000 : 0)) &* 104_729)
        let zones = changing ? Self.changingZones : Self.constantZones
        var differences: [String] = []
        var total = 0
        for _ in 0..<40 {
            var c = kind < 10 ? CalendarNativeDifferentialTests.components(kind: kind, &g) : CalendarDifferentialTests.everydayComponents(&g)
            let tz = zones[g.next(zones.count)]
            c.timeZone = tz
            let (d, n) = CalendarNativeDifferentialTests.chainDifferences(c, zone: tz, from: Self.farReference(&g), steps: 6, endOfRange: true)
            differences += d
            total += n
        }
        for d in differences.prefix(20) { print("difference:", d) }
        #expect(differences.isEmpty, "kind \(kind): \(differences.count) of \(total) differ from Foundation")
    }
}

@Suite struct CalendarFarFutureTableTests {
    @Test func aFixedOffsetZoneNeverLeavesTheTablesAfter2150() {
        let utc = CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "UTC"), day: 27, hour: 7), repeats: true)
        let s = CalendarSchedule(utc, floatingTimeZone: .gmt)
        #expect(s.zone.lastYear == ZoneTable.farLastYear)
        var ref = Int64(CivilDate.days(year: 2150, month: 1, day: 1)) * 86_400_000
        var fires = 0
        while let next = s.nextFire(afterMillis: ref), next < RequestLimits.latestMillis {
            ref = next
            fires += 1
        }
        // Every month of 2150-9999, each before the native end (no instant left to Foundation).
        #expect(fires == (9999 - 2150 + 1) * 12)
        #expect(ref < s.nativeEnd)
        #expect(Timestamp.string(millis: ref) == "9999-12-27T07:00:00Z")
        #expect(!s.zone.periodic)
        // A zone with daylight saving: its final rule repeats every 400 years, so its table
        // folds instants after 2580 back into the years walked.
        let ny = CalendarSchedule(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "America/New_York"), hour: 7), repeats: true),
                                  floatingTimeZone: .gmt)
        #expect(ny.zone.periodic)
        #expect(ny.zone.lastYear == ZoneTable.farLastYear)
        // Its offsets far ahead are Foundation's: summer and winter of 9876.
        let tz = TimeZone(identifier: "America/New_York")!
        for (m, d) in [(1, 15), (7, 15), (3, 14), (11, 7)] {
            let t = Int64(CivilDate.days(year: 9876, month: m, day: d)) * 86_400_000 + 12 * 3_600_000
            #expect(ny.zone.offset(atUTC: t) == Int64(tz.secondsFromGMT(for: Timestamp.date(millis: t))) * 1000, "9876-\(m)-\(d)")
        }
    }

    /// A pattern Foundation answers by rolling over ("the 31st" in week 1 of a month: never a
    /// real date, Foundation's answer is the 2nd of a month): the real-occurrence search behind
    /// each answer stops at Foundation's day (it used to walk to the table's end, 8,000 years,
    /// for every fire: 20,000 fires took 33 s, found by `make fuzz`). Chains near now and near
    /// 9000 equal Foundation's.
    @Test func aRolledOverPatternFollowsFoundationNearAndFar() {
        let tz = TimeZone(identifier: "America/Santiago")!
        let c = DateComponents(timeZone: tz, day: 31, second: 28, weekOfMonth: 1)
        let t = CalendarTrigger(dateMatching: c, repeats: true)
        let s = CalendarSchedule(t, floatingTimeZone: .gmt)
        var touched = false
        #expect(s.realOccurrence(after: Int64(CivilDate.days(year: 2026, month: 1, day: 1)) * 86_400_000, touched: &touched) == nil)
        for year in [2026, 9000] {
            var ref = Int64(CivilDate.days(year: year, month: 1, day: 2)) * 86_400_000
            for _ in 0..<24 {
                let got = s.nextFire(afterMillis: ref)
                let want = CalendarEngine.foundationNextDate(t, after: Timestamp.date(millis: ref), floatingTimeZone: .gmt).map(Timestamp.millis)
                #expect(got == want, "after \(Timestamp.string(millis: ref))")
                guard let next = want else { break }
                ref = next
            }
        }
    }

    /// A folded table says what Foundation says of any instant up to 9999: the offset, and
    /// whether the offset changes within a day (the spans the searches ask about), in the
    /// hardest daylight-saving zones.
    @Test func foldedOffsetsAndChangesAreFoundations() {
        var g = CalendarDifferentialTests.Rng(s: 4242)
        for tz in CalendarFarFutureTests.changingZones {
            let table = ZoneTable.shared(tz)
            #expect(table.periodic, "\(tz.identifier)")
            for _ in 0..<150 {
                let t = CalendarFarFutureTests.farReference(&g)
                #expect(table.offset(atUTC: t) == Int64(tz.secondsFromGMT(for: Timestamp.date(millis: t))) * 1000,
                        "\(tz.identifier) at \(Timestamp.string(millis: t))")
                // Around the next change: a day before it and a day after it.
                guard let next = tz.nextDaylightSavingTimeTransition(after: Timestamp.date(millis: t)).map(Timestamp.millis),
                      next < RequestLimits.latestMillis - 2 * 86_400_000 else { continue }
                let changes = tz.secondsFromGMT(for: Timestamp.date(millis: next - 1)) != tz.secondsFromGMT(for: Timestamp.date(millis: next))
                #expect(table.hasTransition(from: next - 86_400_000, to: next + 86_400_000) == changes, "\(tz.identifier) near \(Timestamp.string(millis: next))")
                // After it, nothing until the change after it.
                let following = tz.nextDaylightSavingTimeTransition(after: Timestamp.date(millis: next)).map(Timestamp.millis) ?? .max
                if following > next + 86_400_000 {
                    #expect(!table.hasTransition(from: next + 1, to: next + 86_400_000), "\(tz.identifier) after \(Timestamp.string(millis: next))")
                }
            }
        }
    }

    /// The table reaches past 9999 to leave the searches room; what lies there is no
    /// supported date. (Found by the differential run: the next "2nd, a Thursday, 17:00" after
    /// 9999-12-03 is 10000-03-03.)
    @Test func nothingFiresAfter9999() {
        let t = CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "America/Phoenix"), day: 2, hour: 17, weekday: 5),
                                repeats: true)
        let s = CalendarSchedule(t, floatingTimeZone: .gmt)
        let ref = Int64(CivilDate.days(year: 9999, month: 12, day: 3)) * 86_400_000
        #expect(s.nextFire(afterMillis: ref) == nil)
        #expect(s.nextFire(afterMillis: ref, consultingFoundation: false) == nil)
        // The one before is found natively.
        #expect(s.nextFire(afterMillis: Int64(CivilDate.days(year: 9999, month: 1, day: 1)) * 86_400_000)
            .map { Timestamp.string(millis: $0) } == "9999-09-03T00:00:00Z")
    }
}
