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
}
