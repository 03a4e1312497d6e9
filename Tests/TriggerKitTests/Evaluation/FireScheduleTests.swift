import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Schedule index")
struct FireScheduleTests {
    static let t0: Int64 = 1_795_770_000_000  // 2026-11-27T09:00:00Z

    static func requests(_ n: Int, seed: UInt64) -> [NotificationRequest] {
        var g = SeededGenerator(seed: seed)
        return (0..<n).map { i in
            let trigger: NotificationTrigger
            switch Int.random(in: 0..<4, using: &g) {
            case 0: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double(Int.random(in: 60...7200, using: &g)), repeats: Bool.random(using: &g)))
            case 1: trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "Europe/Berlin"),
                                                                                   minute: Int.random(in: 0..<60, using: &g)), repeats: true))
            case 2: trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(hour: Int.random(in: 0..<24, using: &g)), repeats: Bool.random(using: &g)))
            default: trigger = .immediate
            }
            return NotificationRequest(identifier: String(format: "r%04d", (i * 7919) % n), content: NotificationContent(title: "x"),
                                       trigger: trigger, addedAt: Timestamp.date(millis: t0 + Int64.random(in: 0...3_600_000, using: &g)))
        }
    }

    /// Every fire of every trigger up to `until`, computed one trigger at a time.
    static func bruteForce(_ reqs: [NotificationRequest], until: Int64) -> [(Int64, String)] {
        var out: [(Int64, String)] = []
        for r in reqs {
            let added = r.addedAt.map(Timestamp.millis) ?? t0
            guard let rule = TimeRule(r.trigger, addedAt: added, floatingTimeZone: TimeZone(identifier: "UTC")!) else { continue }
            var d = rule.firstFire
            while let x = d, x <= until {
                out.append((x, r.identifier))
                d = rule.fire(after: x)
            }
        }
        return out.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
    }

    /// A one-shot interval under a millisecond fires a millisecond after `addedAt` (the
    /// clock's resolution), strictly after it, as every interval does: it rounded to a fire at
    /// `addedAt` itself, which `next` left out while `--merged` and `run` fired it.
    @Test(arguments: [1e-320, 0.0001, 0.0004, 0.0005, 0.0009, 0.001, 0.0015])
    func anIntervalUnderAMillisecondFiresStrictlyAfterItsStart(seconds: Double) throws {
        let rule = try #require(TimeRule(.timeInterval(TimeIntervalTrigger(timeInterval: seconds, repeats: false)), addedAt: Self.t0,
                                         floatingTimeZone: TimeZone(identifier: "UTC")!))
        let expected = Self.t0 + Swift.max(1, Int64((seconds * 1000).rounded()))
        #expect(rule.firstFire == expected)
        #expect(rule.nextFire(strictlyAfter: Self.t0) == expected)
        #expect(rule.nextFire(strictlyAfter: Self.t0 - 1) == expected)
        #expect(rule.nextFire(strictlyAfter: expected) == nil)
    }

    /// ``FireSchedule/countDue(until:coalescingBefore:limit:)`` (a server's bound on one
    /// step) counts what ``FireSchedule/popDue(until:coalescingBefore:into:limit:)`` then
    /// returns, coalesced ones as 1, up to its limit, and changes nothing.
    @Test(arguments: [1, 2, 3])
    func countDueCountsWhatPopDueReturns(seed: UInt64) {
        let reqs = Self.requests(200, seed: seed)
        var s = FireSchedule(requests: reqs, defaultAddedAt: Self.t0, floatingTimeZone: TimeZone(identifier: "UTC")!)
        var g = SeededGenerator(seed: seed &+ 99)
        var now = Self.t0
        var due: [FireSchedule.DueFire] = []
        for _ in 0..<40 {
            let t = now + Int64.random(in: 0...14_400_000, using: &g)
            // Coalesce everything, nothing, or what is older than a window.
            let horizon = [t + 1, Int64.min, t - Int64.random(in: 0...7_200_000, using: &g)].randomElement(using: &g)!
            let counted = s.countDue(until: t, coalescingBefore: horizon, limit: .max)
            let limit = Int.random(in: 1...50, using: &g)
            #expect(s.countDue(until: t, coalescingBefore: horizon, limit: limit) == Swift.min(limit, counted))
            #expect(s.countDue(until: t, coalescingBefore: horizon, limit: .max) == counted, "changed nothing")
            due.removeAll()
            s.popDue(until: t, coalescingBefore: horizon, into: &due)
            #expect(due.count == counted, "t \(t), horizon \(horizon)")
            #expect(s.countDue(until: t, coalescingBefore: horizon, limit: .max) == 0)
            now = t
        }
    }

    @Test func popDueGivesEveryFireInDateThenIdentifierOrder() {
        let reqs = Self.requests(300, seed: 1)
        var s = FireSchedule(requests: reqs, defaultAddedAt: Self.t0, floatingTimeZone: TimeZone(identifier: "UTC")!)
        var got: [(Int64, String)] = []
        var due: [ScheduledFire] = []
        for step in stride(from: Self.t0, through: Self.t0 + 86_400_000, by: 977_000) {
            due.removeAll()
            s.popDue(until: step, into: &due)
            got += due.map { ($0.date, reqs[Int(s.entries[Int($0.slot)].request)].identifier) }
        }
        let want = Self.bruteForce(reqs, until: Self.t0 + 86_400_000 - (86_400_000 % 977_000))
        #expect(got.map(\.0) == want.map(\.0))
        #expect(got.map(\.1) == want.map(\.1))
    }

    @Test func soonestEqualsBruteForceAndLeavesTheQueueAlone() {
        let reqs = Self.requests(500, seed: 2)
        let s = FireSchedule(requests: reqs, defaultAddedAt: Self.t0, floatingTimeZone: TimeZone(identifier: "UTC")!)
        let before = s.queuedFires
        for k in [0, 1, 64, 700] {
            let got = s.soonest(k).map { ($0.date, reqs[Int(s.entries[Int($0.slot)].request)].identifier) }
            let want = Array(Self.bruteForce(reqs, until: Self.t0 + 30 * 86_400_000).prefix(k))
            #expect(got.map(\.0) == want.map(\.0), "k = \(k)")
            #expect(got.map(\.1) == want.map(\.1), "k = \(k)")
        }
        #expect(s.queuedFires == before)
    }

    @Test func heapInvariantHoldsAfterManyOperations() {
        var q = FireQueue((0..<1000).map { ScheduledFire(date: Int64(($0 * 7919) % 1000), rank: Int32($0), slot: Int32($0)) })
        #expect(q.checkInvariants())
        for i in 0..<500 {
            q.replaceMin(with: i % 3 == 0 ? nil : ScheduledFire(date: Int64(2000 + i), rank: 0, slot: 0))
            q.insert(ScheduledFire(date: Int64(i * 13 % 997), rank: 1, slot: 1))
        }
        #expect(q.checkInvariants())
    }

    @Test func floatingTriggersFollowTheZoneAndReplan() {
        let r = NotificationRequest(identifier: "lunch", content: NotificationContent(title: "x"),
                                    trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(hour: 12), repeats: true)),
                                    addedAt: Timestamp.date(millis: Self.t0))
        var s = FireSchedule(requests: [r], defaultAddedAt: Self.t0, floatingTimeZone: TimeZone(identifier: "UTC")!)
        #expect(s.soonestFire?.date == Self.t0 + 3 * 3_600_000)  // 12:00Z
        s.setFloatingTimeZone(TimeZone(identifier: "Asia/Tokyo")!, now: Self.t0, requests: [r])
        #expect(s.soonestFire?.date == Self.t0 + 18 * 3_600_000)  // 12:00 JST on the 28th = 03:00Z
    }

    @Test func intervalRuleArithmetic() {
        let rule = TimeRule.interval(start: 1000, intervalMillis: 30_500, repeats: true)
        #expect(rule.fires(after: 1000, count: 3) == [31_500, 62_000, 92_500])
        #expect(rule.nextFire(strictlyAfter: 62_000) == 92_500)
        #expect(rule.nextFire(strictlyAfter: 0) == 31_500)
        let once = TimeRule.interval(start: 1000, intervalMillis: 60_000, repeats: false)
        #expect(once.fires(after: 0, count: 5) == [61_000])
        #expect(once.fires(after: 61_000, count: 5) == [])
    }

    @Test func oneShotCalendarFiresAtItsFirstMatchOnly() {
        let t = CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "UTC"), hour: 10), repeats: false)
        let rule = TimeRule.calendar(CalendarSchedule(t, floatingTimeZone: TimeZone(identifier: "UTC")!), start: Self.t0, repeats: false)
        #expect(rule.fires(after: Self.t0, count: 4) == [Self.t0 + 3_600_000])
        #expect(rule.fires(after: Self.t0 + 3_600_000, count: 4) == [])
        #expect(rule.fires(after: Self.t0 - 86_400_000, count: 4) == [Self.t0 + 3_600_000])
    }
}
