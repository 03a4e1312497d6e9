import Foundation
import Synchronization
import Testing
@_spi(Engine) @testable import TriggerKit

/// `run()` sleeps until the next fire: it spun a core for ever after the first change that
/// woke it (a cancelled timer woke the loop once more, whose next timer was cancelled in turn;
/// 161,536 sleeps in 2 s on the wall clock, found by a helper).
@Suite("run(): an idle loop sleeps")
struct RunLoopIdleTests {
    /// A clock that counts the sleeps asked of it.
    final class CountingClock: TriggerClock, Sendable {
        let inner: ManualClock
        let sleeps = Atomic<Int>(0)
        init(_ start: Date) { inner = ManualClock(start) }
        var now: Date { inner.now }
        func sleep(until deadline: Date) async throws {
            sleeps.add(1, ordering: .relaxed)
            try await inner.sleep(until: deadline)
        }
    }

    @Test func changesWakeTheLoopOnceEach() async throws {
        let t0 = Date(timeIntervalSince1970: 1_795_770_000)
        let clock = CountingClock(t0)
        let center = try TriggerCenter(clock: clock)
        let hourly = { (id: String) in
            NotificationRequest(identifier: id, content: NotificationContent(title: id),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 3600, repeats: true)))
        }
        try await center.add(hourly("a"))
        let runner = Task { await center.run() }
        for k in 0..<5 {
            try await Task.sleep(for: .milliseconds(60))
            try await center.add(hourly("b\(k)"))
        }
        try await Task.sleep(for: .milliseconds(300))
        let sleeps = clock.sleeps.load(ordering: .relaxed)
        // One sleep to start and about one per change (a few more if a timer races a change).
        #expect(sleeps <= 20, "\(sleeps) sleeps in 0.6 s")
        #expect(sleeps >= 1)
        // And it still delivers when the clock gets there.
        let feed = await center.deliveries()
        var it = feed.makeAsyncIterator()
        clock.inner.advance(to: t0.addingTimeInterval(3600))
        #expect(await it.next()?.date == t0.addingTimeInterval(3600))
        await center.shutdown()
        await runner.value
    }
}

/// Several `run()` loops at once: the second took the first one's wake-up, and the first
/// never returned, even at shutdown (a helper embedding the library).
@Suite("run(): several loops")
struct SeveralRunLoopsTests {
    @Test(.timeLimit(.minutes(1))) func eachReturnsAndEveryFireIsDeliveredOnce() async throws {
        let t0 = Date(timeIntervalSince1970: 1_795_770_000)
        let clock = ManualClock(t0)
        let center = try TriggerCenter(clock: clock)
        try await center.add(NotificationRequest(identifier: "a", content: NotificationContent(title: "a"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true))))
        let feed = await center.deliveries()
        var it = feed.makeAsyncIterator()
        let loops = (0..<3).map { _ in Task { await center.run() } }
        try await Task.sleep(for: .milliseconds(100))
        for k in 1...2 {
            clock.advance(to: t0.addingTimeInterval(60 * Double(k)))
            #expect(await it.next()?.date == t0.addingTimeInterval(60 * Double(k)))
        }
        // A cancelled loop returns; the others go on.
        loops[0].cancel()
        await loops[0].value
        clock.advance(to: t0.addingTimeInterval(180))
        #expect(await it.next()?.date == t0.addingTimeInterval(180))
        await center.shutdown()
        for loop in loops { await loop.value }
        #expect(await center.deliveredNotifications().map(\.date) == [60, 120, 180].map { t0.addingTimeInterval($0) })
    }
}

/// A feed obtained and released without ever being iterated kept its subscription (and
/// queued deliveries for it) for ever: 10,000 of them made each delivery 2,000 times slower
/// (found by a helper).
@Suite("Feeds: released ones end")
struct ReleasedFeedTests {
    @Test func aFeedNeverIteratedEndsWhenReleased() async throws {
        let t0 = Date(timeIntervalSince1970: 1_795_770_000)
        let clock = ManualClock(t0)
        let center = try TriggerCenter(clock: clock)
        try await center.add(NotificationRequest(identifier: "a", content: NotificationContent(title: "a"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true))))
        for _ in 0..<1_000 { _ = await center.deliveries() }
        let kept = await center.deliveries()
        var it = kept.makeAsyncIterator()
        clock.advance(to: t0.addingTimeInterval(60))
        #expect(await center.deliverDue().count == 1)
        #expect(await it.next()?.date == t0.addingTimeInterval(60))
        // The released ones are gone at the first delivery after their release; the kept one stays.
        #expect(await center.atomically { $0.feed.subscriberCount } == 1)
    }

    /// A center that delivers nothing let go of no released feed: a feed opened per call
    /// (per HTTP request, say) grew the list without bound (a helper's find). They are let go
    /// as the list doubles.
    @Test func releasedFeedsAreLetGoWithoutADelivery() async throws {
        let center = try TriggerCenter(clock: ManualClock(Date(timeIntervalSince1970: 1_795_770_000)))
        let kept = await center.deliveries()
        for _ in 0..<10_000 { _ = await center.deliveries() }
        let count = await center.atomically { $0.feed.subscriberCount }
        #expect(count <= 128, "\(count) subscribers held")
        withExtendedLifetime(kept) {}
    }
}

/// A clock that goes back (the system's, stepped by NTP): a request added then without
/// `addedAt` was dated by the clock, behind what the center had evaluated, and a 60 s reminder
/// was delivered dated an hour before instants already evaluated (a helper embedding the
/// library). It is dated at the latest instant evaluated now, as `run` adds at its stream
/// time, and so is a snooze (a reviewer's find); it fires once the clock passes that instant.
@Suite("Trigger center: a clock that goes back")
struct SteppedBackClockTests {
    /// A clock set by hand, backwards too; its sleeps only end by cancellation.
    final class SettableClock: TriggerClock, Sendable {
        let date: Mutex<Date>
        init(_ start: Date) { date = Mutex(start) }
        var now: Date { date.withLock { $0 } }
        func set(_ d: Date) { date.withLock { $0 = d } }
        func sleep(until deadline: Date) async throws { try await Task.sleep(for: .seconds(3600)) }
    }

    /// A center on a settable clock at 2026-11-27T09:00:00Z (`t0`) that has evaluated up to
    /// `ahead` seconds later (delivering nothing), then had its clock set to `t0 + back`.
    static func centerWithItsClockSetBack(evaluatedTo ahead: TimeInterval, thenTo back: TimeInterval) async throws
        -> (t0: Date, clock: SettableClock, center: TriggerCenter) {
        let t0 = Date(timeIntervalSince1970: 1_795_770_000)
        let clock = SettableClock(t0)
        let center = try TriggerCenter(clock: clock)
        clock.set(t0.addingTimeInterval(ahead))
        #expect(await center.deliverDue().isEmpty)
        clock.set(t0.addingTimeInterval(back))
        return (t0, clock, center)
    }

    @Test func aRequestAddedAfterTheStepCountsFromTheLatestInstantEvaluated() async throws {
        // Evaluated up to 09:05, the clock at 08:00.
        let (t0, clock, center) = try await Self.centerWithItsClockSetBack(evaluatedTo: 300, thenTo: -3600)
        try await center.add(NotificationRequest(identifier: "tea", content: NotificationContent(title: "tea"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: false))))
        #expect(await center.request(withIdentifier: "tea")?.addedAt == t0.addingTimeInterval(300))
        clock.set(t0.addingTimeInterval(359))
        #expect(await center.deliverDue().isEmpty)
        clock.set(t0.addingTimeInterval(360))
        #expect(await center.deliverDue().map(\.date) == [t0.addingTimeInterval(360)])
        // A snooze answered while the clock is behind is dated as an add is.
        try await center.setNotificationCategories([NotificationCategory(identifier: "R", actions: [
            NotificationAction(identifier: "later", title: "Later", effect: .snooze(300))])])
        try await center.add(NotificationRequest(identifier: "call", content: NotificationContent(title: "c", categoryIdentifier: "R"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: false)), device: "d"))
        clock.set(t0.addingTimeInterval(420))
        #expect(await center.deliverDue().map(\.request.identifier) == ["call"])  // evaluated up to 09:07
        clock.set(t0.addingTimeInterval(-3600))
        #expect(await center.respond(NotificationResponse(requestIdentifier: "call", device: "d", actionIdentifier: "later")).applied)
        #expect(await center.request(withIdentifier: "call/snooze")?.addedAt == t0.addingTimeInterval(420))
        // An `addedAt` given is kept as given.
        try await center.add(NotificationRequest(identifier: "given", content: NotificationContent(title: "g"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 600, repeats: false)),
                                                 addedAt: t0))
        #expect(await center.request(withIdentifier: "given")?.addedAt == t0)
    }

    /// With the clock behind the latest instant evaluated, what is due by that instant is
    /// delivered at once (a request added with an `addedAt` in the past catches up) and the
    /// next clock instant is after it: left for the clock to reach, the fires stayed due in
    /// the past, and `serve`'s tick loop, which ticks while one is, spun a core until the
    /// clock got there (a helper restarting a server a day after a clock stepped back).
    @Test func whatIsDueByTheLatestInstantEvaluatedIsDeliveredWhileTheClockIsBehind() async throws {
        // Evaluated up to 10:00, the clock stepped back an hour.
        let (t0, _, center) = try await Self.centerWithItsClockSetBack(evaluatedTo: 3600, thenTo: 0)
        try await center.add(NotificationRequest(identifier: "past", content: NotificationContent(title: "p"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 600, repeats: true)),
                                                 addedAt: t0.addingTimeInterval(-1200)))
        let due = await center.deliverDue()
        // Its fires up to the instant evaluated (10:00), none later.
        #expect(due.map(\.date) == [t0.addingTimeInterval(3600)] && due.map(\.fireCount) == [8], "\(due.map { ($0.date, $0.fireCount) })")
        let next = try #require(await center.nextClockInstant)
        #expect(next > t0.addingTimeInterval(3600))
        #expect(await center.deliverDue().isEmpty)
    }
}

/// A sleep on a ``ManualClock`` in a task cancelled before its sleeper was registered waited
/// for the clock to reach its deadline, which it might never do: `run()` cancels its timer at
/// every wake, and 20,000 adds with the clock still left ~129 timer tasks asleep, 128 after
/// `shutdown()` (a helper embedding the library).
@Suite("ManualClock: a cancelled sleep throws")
struct ManualClockCancellationTests {
    @Test(.timeLimit(.minutes(1))) func aTaskCancelledBeforeItSleepsThrowsAtOnce() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_770_000))
        let far = clock.now.addingTimeInterval(3600)
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await clock.sleep(until: far)
                return "returned"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        #expect(await sleeper.value == "cancelled")
    }

    @Test(.timeLimit(.minutes(1))) func sleepsCancelledAtAnyMomentAllEnd() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_770_000))
        let far = clock.now.addingTimeInterval(3600)
        // Cancelled around the moment each registers: every one ends (before the fix some
        // waited for the deadline, which the clock never reaches here).
        for _ in 0..<200 {
            let sleeper = Task { try? await clock.sleep(until: far) }
            sleeper.cancel()
            await sleeper.value
        }
        // A sleep woken by the clock still returns normally.
        let woken = Task { try await clock.sleep(until: far) }
        try await Task.sleep(for: .milliseconds(50))
        clock.advance(to: far)
        try await woken.value
    }
}
