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
        #expect(try Self.chain(DateComponents(timeZone: Self.zone("America/Caracas"), hour: 1, minute: 15, nanosecond: 1),
                               after: "1895-09-11T06:00:00Z", count: 2) == ["1895-09-12T05:43:00Z", "1895-09-13T05:43:00Z"])
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
}
