import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Fires of other calendars' triggers that Foundation found are kept as a chain: a listing
/// of a center's next fires followed by a catch-up through the same fires asked Foundation
/// for each twice (`make fuzz`, seed 1: a session's listings and catch-ups, seconds).
@Suite("Calendar: the chain of fires Foundation found")
struct ForeignFireChainTests {
    static let t0: Int64 = 1_795_770_000_000  // 2026-11-27T09:00:00Z
    static let utc = TimeZone(identifier: "UTC")!

    /// The 1st of every Chinese month at 09:00 (Foundation answers every fire).
    static func newMoon() -> NotificationRequest {
        var c = DateComponents(calendar: Calendar(identifier: .chinese), timeZone: utc, day: 1, hour: 9)
        c.calendar?.timeZone = utc
        return NotificationRequest(identifier: "moon", content: NotificationContent(title: "x"),
                                   trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)),
                                   addedAt: Timestamp.date(millis: t0))
    }

    static func foreign(_ schedule: FireSchedule) throws -> (CalendarSchedule, ForeignCalendarSchedule) {
        guard case .calendar(let s, _, _) = try #require(schedule.entries.first).rule else {
            Issue.record("not a calendar rule")
            throw CancellationError()
        }
        return (s, try #require(s.foreign))
    }

    /// Every answer the chain gives is Foundation's own (asked afresh, nothing kept), for
    /// fires stepped from and for dates between them.
    @Test func theChainAnswersAsFoundationDoes() throws {
        let schedule = FireSchedule(requests: [Self.newMoon()], defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let (s, foreign) = try Self.foreign(schedule)
        var refs: [Int64] = [Self.t0]
        var ref = Self.t0
        for _ in 0..<30 {
            let next = try #require(s.nextFire(afterMillis: ref))
            refs.append(next)
            ref = next
        }
        // Walked again, and between fires (a minute after each, an hour before the next).
        let between = zip(refs, refs.dropFirst()).flatMap { [$0 + 60_000, $1 - 3_600_000] }
        for r in refs.dropLast() + between + refs.dropLast() {
            let kept = s.nextFire(afterMillis: r)
            let fresh = ForeignCalendarSchedule.next(calendar: foreign.calendar, components: foreign.components, afterMillis: r)
            #expect(kept == fresh, "after \(Timestamp.string(millis: r))")
        }
    }

    /// A listing of the next fires, then the same listing and a catch-up through those
    /// fires: Foundation is asked only for the first listing's fires.
    @Test func aListingThenACatchUpAskFoundationOnce() throws {
        let schedule = FireSchedule(requests: [Self.newMoon()], defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let (_, foreign) = try Self.foreign(schedule)
        let first = schedule.soonest(40)
        #expect(first.count == 40)
        let searched = foreign.foundationSearches
        #expect(searched >= 39)
        #expect(schedule.soonest(40) == first)
        // Catching up to the 30th fire steps through the listed fires.
        let rule = try #require(schedule.entries.first).rule
        let (last, count, next) = rule.coalesce(from: first[0].date, before: first[29].date + 1)
        #expect(last == first[29].date && count == 30 && next == first[30].date)
        #expect(foreign.foundationSearches == searched)
        // A fire past the chain is searched.
        #expect(schedule.soonest(41).count == 41)
        #expect(foreign.foundationSearches == searched + 1)
    }

    @Test func theChainIsBounded() {
        var chain = ForeignFireChain()
        chain.record(10, after: 0)
        for k in 1...(3 * ForeignFireChain.capacity) {
            #expect(chain.answer(after: Int64(k * 10)) == nil)
            chain.record(Int64(k * 10 + 10), after: Int64(k * 10))
            #expect(chain.fires.count <= ForeignFireChain.capacity)
        }
        // The newest fires are kept, each answering for the one before.
        let n = 3 * ForeignFireChain.capacity
        #expect(chain.answer(after: Int64(n * 10)) == .known(Int64(n * 10 + 10)))
        #expect(chain.answer(after: Int64((n - 100) * 10)) == .known(Int64((n - 99) * 10)))
        #expect(chain.answer(after: 10) == nil)
    }

    @Test func anAnswerOutsideTheChainStartsANewOneUnlessTheChainHoldsIt() {
        var chain = ForeignFireChain()
        chain.record(100, after: 50)
        chain.record(200, after: 100)
        chain.record(300, after: 200)
        #expect(chain.fires == [100, 200, 300])
        // A date between fires whose answer is a fire already kept: the chain stays.
        chain.record(200, after: 150)
        #expect(chain.fires == [100, 200, 300])
        #expect(chain.answer(after: 150) == nil)
        // An answer not in the chain: a new chain begins there.
        chain.record(1_000, after: 900)
        #expect(chain.fires == [1_000])
        #expect(chain.answer(after: 100) == nil)
        // Foundation's "no fire" after the last is kept; after another date it is not.
        chain.record(nil, after: 1_000)
        #expect(chain.answer(after: 1_000) == .known(nil))
        chain.record(nil, after: 5)
        #expect(chain.fires == [1_000] && chain.answer(after: 1_000) == .known(nil))
        // An answer that is not later than its date is not kept.
        var other = ForeignFireChain()
        other.record(100, after: 50)
        other.record(90, after: 100)
        #expect(other.fires == [100] && other.answer(after: 100) == nil)
    }
}
