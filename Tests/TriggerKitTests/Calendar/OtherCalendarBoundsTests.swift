import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Triggers in other calendars than the Gregorian are answered by Foundation, at 0.3 ms (a
/// daily Chinese trigger today) to over 100 ms (a rare Chinese pattern far from today) per
/// fire. Found by `make fuzz` (10 minutes): `upcomingFires(limit:)` with a huge limit and a
/// catch-up from year 1 ran for minutes. Each operation now computes a bounded number of
/// them.
@Suite("Other calendars' bounds")
struct OtherCalendarBoundsTests {
    static let t0: Int64 = 1_795_770_000_000  // 2026-11-27T09:00:00Z
    static let utc = TimeZone(identifier: "UTC")!

    static func chineseDaily(_ id: String = "cn", addedAt: Int64 = t0) -> NotificationRequest {
        var c = DateComponents(calendar: Calendar(identifier: .chinese), timeZone: utc, hour: 22, minute: 17)
        c.calendar?.timeZone = utc
        return NotificationRequest(identifier: id, content: NotificationContent(title: "x"),
                                   trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)),
                                   addedAt: Timestamp.date(millis: addedAt))
    }

    static func gregorianDaily(_ id: String, hour: Int) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: "x"),
                            trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: utc, hour: hour), repeats: true)),
                            addedAt: Timestamp.date(millis: t0))
    }

    @Test func aBoundedQueryIsTheTrueBeginningOfTheSequence() {
        let requests = [Self.chineseDaily(), Self.gregorianDaily("g", hour: 10)]
        let schedule = FireSchedule(requests: requests, defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let full = schedule.soonest(600)
        let (bounded, cut) = schedule.soonest(600, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget)
        #expect(cut)
        #expect(full.count == 600)
        // The Chinese trigger's first fire (queued) and its 128 computed repeats, and the
        // Gregorian fires before the last of them: a prefix of the whole answer.
        #expect(bounded.count < full.count)
        #expect(bounded == Array(full.prefix(bounded.count)))
        let chinese = bounded.filter { requests[Int(schedule.entries[Int($0.slot)].request)].identifier == "cn" }
        #expect(chinese.count == FireSchedule.otherCalendarRepeatBudget + 1)
        #expect(bounded.last == chinese.last)
        // Without other calendars nothing is cut.
        let native = FireSchedule(requests: [Self.gregorianDaily("g", hour: 10)], defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let (all, nativeCut) = native.soonest(600, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget)
        #expect(!nativeCut && all.count == 600)
    }

    /// Unbounded, 100,000 fires at milliseconds each, further into the future the slower:
    /// minutes.
    @Test(.timeLimit(.minutes(1)))
    func theCentersUpcomingFiresAreBounded() async throws {
        let center = TriggerCenter(clock: ManualClock(Timestamp.date(millis: Self.t0)))
        try await center.add(Self.chineseDaily())
        let fires = await center.upcomingFires(limit: .max)
        #expect(fires.count == FireSchedule.otherCalendarRepeatBudget + 1)
        #expect(zip(fires, fires.dropFirst()).allSatisfy { $0.date < $1.date })
        await center.shutdown()
    }

    @Test func coalescingCountsAtMost64FiresOfAnotherCalendar() throws {
        let rule = try #require(TimeRule(Self.chineseDaily().trigger, addedAt: Self.t0, floatingTimeZone: Self.utc))
        let first = try #require(rule.firstFire)
        let limit = first + 200 * 86_400_000
        let (last, count, next) = rule.coalesce(from: first, before: limit)
        #expect(count == TimeRule.otherCalendarCoalescingCap)
        #expect(last == first + Int64(count - 1) * 86_400_000)  // one a day at 22:17 UTC
        #expect(next == rule.nextFire(strictlyAfter: limit - 1))
        // The Gregorian calendar's native answers are counted exactly.
        let gregorian = try #require(TimeRule(Self.gregorianDaily("g", hour: 10).trigger, addedAt: Self.t0, floatingTimeZone: Self.utc))
        let g1 = try #require(gregorian.firstFire)
        #expect(gregorian.coalesce(from: g1, before: g1 + 200 * 86_400_000).count == 200)
    }
}
