import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Where Foundation's own answer is taken: answers at or before the reference, and the
/// calendar a re-enacted search follows.
@Suite("Calendar: where Foundation answers")
struct CalendarForeignAnswerTests {
    static func chain(_ c: DateComponents, after: String, count: Int) throws -> [String] {
        let schedule = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: .gmt)
        var ref = try #require(Timestamp.parseMillis(after))
        var out: [String] = []
        while out.count < count, let next = schedule.nextFire(afterMillis: ref) {
            out.append(Timestamp.string(millis: next))
            ref = next
        }
        return out
    }

    static func zone(_ id: String) -> TimeZone { TimeZone(identifier: id)! }

    /// Before 1900 (outside the tables then) Foundation answered, and in zones whose offset
    /// had seconds its UTC-aligned minutes are not the wall times asked for (a helper's find):
    /// Paris `{hour 9, minute 0}` in 1899 (+0:09:21) was refused as never firing, 09:05 fired
    /// at 09:05:21, an hourly `{minute 0}` fired once; next to a change of offset from such
    /// an offset, Tokyo's 19:03 fired at 19:03:00 and 19:03:59 the same day (1887), Sitka's
    /// once and never again (1867); a day some months lack fired at 09:30:30 for 09:30
    /// (Monrovia 1965, Foundation's search re-enacted with its UTC-aligned minutes). Now the
    /// real occurrences, in every way in (`next`, `run` and `serve` compute them here).
    @Test func localMeanTimeWithSecondsFiresAtTheWallTimesAskedFor() throws {
        let paris = Self.zone("Europe/Paris")
        #expect(try Self.chain(DateComponents(timeZone: paris, hour: 9, minute: 0), after: "1899-06-01T00:00:00Z", count: 2)
                == ["1899-06-01T08:50:39Z", "1899-06-02T08:50:39Z"])
        #expect(try Self.chain(DateComponents(timeZone: paris, hour: 9, minute: 5), after: "1899-06-01T00:00:00Z", count: 1)
                == ["1899-06-01T08:55:39Z"])
        #expect(try Self.chain(DateComponents(timeZone: paris, minute: 0), after: "1899-06-01T00:00:00Z", count: 3)
                == ["1899-06-01T00:50:39Z", "1899-06-01T01:50:39Z", "1899-06-01T02:50:39Z"])
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("America/New_York"), hour: 19, minute: 3), after: "1880-06-01T00:00:00Z",
                               count: 2) == ["1880-06-01T23:59:02Z", "1880-06-02T23:59:02Z"])
        // Tokyo: +9:18:59 until 1888-01-01 (a fold of 18:59 at the change), then +9:00.
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("Asia/Tokyo"), hour: 19, minute: 3), after: "1887-12-30T00:00:00Z",
                               count: 4) == ["1887-12-30T09:44:01Z", "1887-12-31T09:44:01Z", "1888-01-01T10:03:00Z", "1888-01-02T10:03:00Z"])
        // Sitka: +14:58:47 until 1867-10-19, then -9:01:13 (the 18th repeated: it fires once).
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("America/Sitka"), hour: 19, minute: 3, second: 0),
                               after: "1867-10-17T00:00:00Z", count: 3)
                == ["1867-10-17T04:04:13Z", "1867-10-18T04:04:13Z", "1867-10-20T04:04:13Z"])
        // Where Foundation's search decides (a day some months lack, month-relative patterns),
        // its re-enactment steps wall minutes: 09:30:00, not Foundation's 09:30:30.
        let monrovia = Self.zone("Africa/Monrovia")
        #expect(try Self.chain(DateComponents(timeZone: monrovia, day: 31, hour: 9, minute: 30), after: "1965-01-01T00:00:00Z", count: 3)
                == ["1965-01-31T10:14:30Z", "1965-03-01T10:14:30Z", "1965-03-31T10:14:30Z"])
        #expect(try Self.chain(DateComponents(timeZone: monrovia, hour: 9, weekday: 1, weekOfMonth: 5), after: "1965-01-01T00:00:00Z",
                               count: 2) == ["1965-01-24T09:44:30Z", "1965-02-28T09:44:30Z"])
        // Before the tables (1583), Foundation's Gregorian calendar is Julian: it still answers.
        let before = CalendarSchedule(CalendarTrigger(dateMatching: DateComponents(timeZone: paris, hour: 9), repeats: true),
                                      floatingTimeZone: .gmt)
        #expect(!before.isNative(afterMillis: try #require(Timestamp.parseMillis("1582-06-01T00:00:00Z"))))
        #expect(before.isNative(afterMillis: try #require(Timestamp.parseMillis("1583-01-02T00:00:00Z"))))
    }

    /// A `nanosecond` a Double cannot hold (1 ns today) is a mismatch Foundation's search
    /// ignores, and so is its check that the match is later than the start: from 01:47 it
    /// answers the same hour's 01:15. Taken as "no date", such a trigger near an offset change
    /// (where Foundation is asked) fired no more, and before 1900 was refused.
    @Test func aNanosecondMatchBeforeTheReferenceIsSteppedPast() throws {
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("America/New_York"), hour: 1, minute: 15, nanosecond: 1),
                               after: "2026-03-07T06:47:00Z", count: 3)
                == ["2026-03-08T06:15:00Z", "2026-03-09T05:15:00Z", "2026-03-10T05:15:00Z"])
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("America/New_York"), second: 15, nanosecond: 123_456_789),
                               after: "2026-03-08T06:47:15.200Z", count: 2)
                == ["2026-03-08T06:48:15.123Z", "2026-03-08T06:49:15.123Z"])
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("Africa/Cairo"), hour: 1, minute: 15, nanosecond: 1),
                               after: "2051-04-25T23:47:00Z", count: 1) == ["2051-04-26T23:15:00Z"])
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("Australia/Eucla"), second: 15, nanosecond: 1_000_000),
                               after: "1991-11-15T17:52:30Z", count: 4)
                == ["1991-11-15T17:53:15.001Z", "1991-11-15T17:54:15.001Z", "1991-11-15T17:55:15.001Z", "1991-11-15T17:56:15.001Z"])
        // Caracas's offset had seconds then (-4:27:40): the real 01:15:00 (exception 1), not
        // Foundation's UTC-aligned 01:15:20.
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("America/Caracas"), hour: 1, minute: 15, nanosecond: 1),
                               after: "1895-09-11T06:00:00Z", count: 2) == ["1895-09-12T05:42:40Z", "1895-09-13T05:42:40Z"])
        // Another calendar: Foundation answers every fire.
        var hebrew = Calendar(identifier: .hebrew)
        hebrew.timeZone = .gmt
        #expect(try Self.chain(DateComponents(calendar: hebrew, timeZone: .gmt, hour: 1, minute: 15, nanosecond: 1),
                               after: "2026-03-01T01:47:00Z", count: 2) == ["2026-03-02T01:15:00Z", "2026-03-03T01:15:00Z"])
    }

    /// Only Foundation's Gregorian calendar answers March 1st after a February candidate that
    /// misses a month-relative field; ISO 8601's searches on (the first Saturday of March).
    @Test func iso8601HasNoMarchFirstAnswer() throws {
        let iso = CalendarNames.calendar(.iso8601), gregorian = CalendarNames.calendar(.gregorian)
        var c = DateComponents(calendar: iso, timeZone: .gmt, weekday: 7, weekdayOrdinal: 1)
        #expect(try Self.chain(c, after: "2007-02-03T00:00:00Z", count: 2) == ["2007-03-03T00:00:00Z", "2007-04-07T00:00:00Z"])
        c.calendar = gregorian
        #expect(try Self.chain(c, after: "2007-02-03T00:00:00Z", count: 2) == ["2007-03-01T00:00:00Z", "2007-03-03T00:00:00Z"])
    }

    /// A nanosecond's match is the millisecond the nanosecond falls in, where Foundation
    /// answers too: its `Date` holds 13:30:00.000999999 as 13:30:00.001, so near São Paulo's
    /// offset change (where Foundation is asked) a daily trigger fired at 13:30:00.000 natively
    /// and again at 13:30:00.001 (found by a helper's differential against Foundation).
    @Test func aNanosecondFiresOnceADayAtItsMillisecondWhereFoundationAnswers() throws {
        let c = DateComponents(timeZone: Self.zone("America/Sao_Paulo"), hour: 11, minute: 30, nanosecond: 999_999)
        #expect(try Self.chain(c, after: "2019-02-14T00:00:00Z", count: 4)
                == ["2019-02-14T13:30:00Z", "2019-02-15T13:30:00Z", "2019-02-16T13:30:00Z", "2019-02-17T14:30:00Z"])
        let lordHowe = DateComponents(timeZone: Self.zone("Australia/Lord_Howe"), hour: 17, minute: 30, nanosecond: 500_000)
        let fires = try Self.chain(lordHowe, after: "2021-04-02T00:00:00Z", count: 5)
        #expect(fires.count == 5 && fires.allSatisfy { $0.hasSuffix(":00Z") }, "\(fires)")
    }

    /// 23:59:59.999999999 falls in the second's last millisecond; Foundation's `Date` reads it as
    /// the next second, which for a fixed year is the next year (a date outside the trigger's
    /// year: no fire) and for 9999 is beyond the supported range. Both fire at .999, as the
    /// native path answers `{second 59, nanosecond 999999999}`.
    @Test func theLastNanosecondOfAYearFiresInThatYear() throws {
        for year in [2030, 9999] {
            let c = DateComponents(timeZone: .gmt, year: year, month: 12, day: 31, hour: 23, minute: 59, second: 59, nanosecond: 999_999_999)
            #expect(try Self.chain(c, after: "2026-01-01T00:00:00Z", count: 2) == ["\(year)-12-31T23:59:59.999Z"])
        }
        #expect(try Self.chain(DateComponents(timeZone: .gmt, second: 59, nanosecond: 999_999_999), after: "2026-01-01T00:00:00Z", count: 2)
                == ["2026-01-01T00:00:59.999Z", "2026-01-01T00:01:59.999Z"])
    }

    /// Near a skipped calendar day (Pacific/Apia's and Pacific/Fakaofo's 2011-12-30) the
    /// re-enacted search's weeks are not Foundation's: "Friday of week 5" from 2011-10-28 was
    /// answered 2012-03-01, a Thursday, which Foundation does not answer (found by a helper).
    /// Foundation is asked there.
    @Test func nearASkippedDayFoundationAnswers() throws {
        for (zone, after) in [("Pacific/Apia", "2011-10-28T10:00:00Z"), ("Pacific/Fakaofo", "2011-10-28T11:00:00Z"),
                              ("Pacific/Apia", "2011-12-01T10:00:00Z"), ("Pacific/Apia", "2012-01-15T00:00:00Z")] {
            var gregorian = CalendarNames.calendar(.gregorian)
            gregorian.timeZone = Self.zone(zone)
            let c = DateComponents(timeZone: Self.zone(zone), hour: 0, weekday: 6, weekOfMonth: 5)
            var expected: [String] = []
            var ref = Timestamp.date(millis: try #require(Timestamp.parseMillis(after)))
            while expected.count < 4, let d = gregorian.nextDate(after: ref, matching: DateComponents(hour: 0, weekday: 6, weekOfMonth: 5),
                                                                 matchingPolicy: .nextTimePreservingSmallerComponents) {
                expected.append(Timestamp.string(millis: Timestamp.millis(d)))
                ref = d
            }
            #expect(try Self.chain(c, after: after, count: 4) == expected, "\(zone) after \(after)")
        }
    }
}
