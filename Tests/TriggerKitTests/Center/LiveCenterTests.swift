import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

/// Issue 9: the center a service embeds: its clock, bounded feeds and history, queries,
/// categories and actions.
@Suite("Trigger center: clock, feeds, history, queries, actions")
struct LiveCenterTests {
    static let t0 = Center.t0

    static func every(_ id: String, _ seconds: Double, device: String? = nil, category: String? = nil) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id, categoryIdentifier: category),
                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: seconds, repeats: true)), device: device)
    }

    @Test func timeTriggersFireFromTheClockAloneAndNowIsHonouredFromTheFirstCall() async throws {
        let c = Center()
        // No addedAt: the request is added at the clock's time (not the machine's).
        try await c.add(Self.every("tick", 60))
        #expect(await c.center.nextTriggerDate(forIdentifier: "tick") == Self.t0.addingTimeInterval(60))
        // run() delivers as the manual clock reaches each fire; no fix, no explicit call.
        let feed = await c.center.deliveries()
        let runner = Task { await c.center.run() }
        c.clock.advance(to: Self.t0.addingTimeInterval(60))
        var it = feed.makeAsyncIterator()
        let first = await it.next()
        #expect(first?.date == Self.t0.addingTimeInterval(60))
        c.clock.advance(to: Self.t0.addingTimeInterval(120))
        #expect(await it.next()?.date == Self.t0.addingTimeInterval(120))
        await c.center.shutdown()
        await runner.value
        // The feed finishes on shutdown.
        #expect(await it.next() == nil)
    }

    @Test func coalescedCatchUpIsTheDefault() async throws {
        let c = Center(catchUp: .coalesced)
        try await c.add(Self.every("tick", 60))
        let fired = await c.advance(to: Self.t0.addingTimeInterval(3600 + 30))
        #expect(fired.count == 1)
        #expect(fired.first?.fireCount == 60)
        #expect(fired.first?.date == Self.t0.addingTimeInterval(3600))
        #expect(CenterConfiguration().catchUp == .coalesced)
    }

    @Test func everyFireCatchUpAfterALongPauseIsBoundedByTheWindow() async throws {
        // A service down for 30 days with a 60 s reminder: the last hour one by one, the
        // rest as one coalesced delivery (it used to deliver 43,200 and could take minutes
        // for a calendar trigger firing every second).
        let c = Center(catchUp: .everyFire)
        try await c.add(Self.every("tick", 60))
        let fired = await c.advance(to: Self.t0.addingTimeInterval(30 * 86_400))
        #expect(fired.count == 1 + 61)
        #expect(fired.first?.fireCount == 30 * 1440 - 61)
        #expect(fired.dropFirst().allSatisfy { $0.fireCount == 1 })
    }

    @Test func everyConsumerGetsEveryDeliveryAndOverflowIsCounted() async throws {
        let c = Center(bufferLimit: 5)
        let a = await c.center.deliveries(), b = await c.center.deliveries(bufferLimit: 100)
        try await c.add(Self.every("tick", 60))
        _ = await c.advance(to: Self.t0.addingTimeInterval(600))
        await c.center.shutdown()
        var na = 0, nb = 0
        for await _ in a { na += 1 }
        for await _ in b { nb += 1 }
        #expect(nb == 10)
        #expect(na == 5)  // the slow consumer's buffer held 5; the other 5 were dropped, counted
        #expect(await c.center.statistics.feedDropped == 5)
        #expect(await c.center.deliveredNotifications().count == 10)  // the history has them all
    }

    @Test func aConcurrentConsumerGetsEveryDeliveryInOrder() async throws {
        let c = Center(bufferLimit: 100_000)
        let feed = await c.center.deliveries()
        let consumer = Task {
            var dates: [Date] = []
            for await d in feed { dates.append(d.date) }
            return dates
        }
        for i in 0..<50 { try await c.add(Self.every("r\(i)", 60)) }
        var expected: [Date] = []
        for m in 1...100 {
            expected += await c.advance(to: Self.t0.addingTimeInterval(Double(m) * 60)).map(\.date)
        }
        await c.center.shutdown()
        let got = await consumer.value
        #expect(expected.count == 5_000)
        #expect(got == expected)
        #expect(await c.center.statistics.feedDropped == 0)
    }

    @Test func aCancelledConsumerEndsItsSubscriptionAndAFeedAfterShutdownEndsAtOnce() async throws {
        let c = Center()
        try await c.add(Self.every("tick", 60))
        let feed = await c.center.deliveries()
        let consumer = Task { () -> Int in
            var n = 0
            for await _ in feed { n += 1 }
            return n
        }
        // The consumer is waiting (nothing fired yet); cancelling it ends its loop.
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(await consumer.value == 0)
        // The center stops queueing for it: nothing is counted as dropped for a gone consumer.
        _ = await c.advance(to: Self.t0.addingTimeInterval(600))
        #expect(await c.center.statistics.feedDropped == 0)
        await c.center.shutdown()
        var n = 0
        for await _ in await c.center.deliveries() { n += 1 }
        #expect(n == 0)
    }

    @Test func deliveredHistoryIsBoundedPerDevice() async throws {
        let c = Center(deliveredLimit: 3)
        try await c.add(Self.every("a", 60, device: "d1"))
        try await c.add(Self.every("b", 60, device: "d2"))
        _ = await c.advance(to: Self.t0.addingTimeInterval(600))
        let d1 = await c.center.deliveredNotifications(device: "d1")
        #expect(d1.count == 3)
        #expect(d1.map(\.date) == [480, 540, 600].map { Self.t0.addingTimeInterval($0) })
        #expect(await c.center.deliveredNotifications().count == 6)
        #expect(await c.center.statistics.historyDropped == 14)
    }

    @Test func upcomingFiresMergedAndPerDevice() async throws {
        let c = Center()
        try await c.add(Self.every("a", 60, device: "d1"))
        try await c.add(Self.every("b", 90, device: "d2"))
        try await c.add(Self.every("s", 120))
        let all = await c.center.upcomingFires(limit: 5)
        #expect(all.map(\.identifier) == ["a", "b", "a", "s", "a"])
        let d2 = await c.center.upcomingFires(limit: 3, device: "d2")
        #expect(d2.map(\.identifier) == ["b", "s", "b"])
        #expect(d2.map(\.date) == [90, 120, 180].map { Self.t0.addingTimeInterval($0) })
    }

    @Test func aFixFromTheFutureIsRefusedAndChangesNothing() async throws {
        let c = Center()
        do {
            _ = try await c.center.receive(LocationFix(device: "d", date: Self.t0.addingTimeInterval(3600), latitude: 40, longitude: -74))
            Issue.record("accepted a fix an hour ahead of the clock")
        } catch {
            guard case .fromTheFuture = error else { Issue.record("\(error)"); return }
        }
        // Its message names the dates as the contract writes them, year 9999 too (Date's own
        // description of it is "<description unavailable>").
        let far = FixError.fromTheFuture(date: Timestamp.date(millis: RequestLimits.latestMillis), clock: Self.t0)
        #expect(far.description == "fix dated 9999-12-31T23:59:59.999Z is ahead of the clock (2026-11-27T09:00:00Z) by more than the allowed lead")
        await #expect(throws: FixError.self) {
            try await c.center.receive(LocationFix(device: "d", date: Self.t0, latitude: .nan, longitude: -74))
        }
        #expect(await c.center.statistics.rejectedFixes == 2)
    }

    /// A fix dated ahead of the clock (within the lead) moved the evaluator's time: a 120 s
    /// reminder fired at once, 2 minutes early, and a request added after it waited until the
    /// clock passed the fix's date (a helper's find against `serve --clock wall`). Evaluated
    /// at its own date with the clock left behind, it then met a request that had expired by
    /// that date (a reviewer's find). It is taken as dated at the clock.
    @Test func aFixAheadOfTheClockIsTakenAtTheClock() async throws {
        let c = Center()
        try await c.add(NotificationRequest(identifier: "t120", content: NotificationContent(title: "t"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 120, repeats: false))))
        try await c.add(TriggerCenterTests.circle("zone"))
        var expiring = TriggerCenterTests.circle("soon")
        expiring.expiresAt = Self.t0.addingTimeInterval(100)
        try await c.add(expiring)
        _ = try await c.center.receive(LocationFix(device: "d", date: Self.t0, latitude: 40.01, longitude: -74))
        // The device's clock runs 250 s ahead; the center's reads t0 + 1.
        c.clock.advance(to: Self.t0.addingTimeInterval(1))
        let inside = try await c.center.receive(LocationFix(device: "d", date: Self.t0.addingTimeInterval(250), latitude: 40, longitude: -74))
        #expect(inside.map(\.request.identifier).sorted() == ["soon", "zone"], "\(inside.map(\.request.identifier))")
        #expect(inside.map(\.date) == [Self.t0.addingTimeInterval(1), Self.t0.addingTimeInterval(1)])
        #expect(await c.center.deliverDue().isEmpty)
        // Added after that fix, at the clock's t0 + 1: due at t0 + 6, not held back to t0 + 250.
        try await c.add(NotificationRequest(identifier: "t5", content: NotificationContent(title: "t"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 5, repeats: false))))
        let soon = await c.advance(to: Self.t0.addingTimeInterval(6))
        #expect(soon.map(\.request.identifier) == ["t5"])
        #expect(soon.map(\.date) == [Self.t0.addingTimeInterval(6)])
        #expect(await c.advance(to: Self.t0.addingTimeInterval(119)).isEmpty)
        let due = await c.advance(to: Self.t0.addingTimeInterval(120))
        #expect(due.map(\.request.identifier) == ["t120"])
        // "soon" expired at t0 + 100: a later exit is the plain circle's alone, dated at the clock.
        let exit = try await c.center.receive(LocationFix(device: "d", date: Self.t0.addingTimeInterval(260), latitude: 40.01, longitude: -74))
        #expect(exit.map(\.request.identifier) == ["zone"])
        #expect(exit.map(\.date) == [Self.t0.addingTimeInterval(120)])
    }

    /// The seeds' example: a reminder every 60 s whose "cancel" action removes it.
    @Test func aCancelActionStopsARepeatingReminder() async throws {
        let c = Center()
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "REMINDER", actions: [
                NotificationAction(identifier: "cancel", title: "Cancel", options: [.destructive], effect: .removeRequest),
                NotificationAction(identifier: "snooze", title: "Snooze", effect: .snooze(300)),
            ])])
        let warnings = try await c.add(Self.every("water", 60, device: "d", category: "REMINDER"))
        #expect(warnings.isEmpty)
        #expect(await c.advance(to: Self.t0.addingTimeInterval(120)).count == 2)
        // Another device, shown nothing, cannot cancel a request that is not its own.
        let stranger = await c.center.respond(NotificationResponse(requestIdentifier: "water", device: "other", actionIdentifier: "cancel"))
        #expect(!stranger.applied)
        #expect(stranger.warnings == [#"no notification of request "water" delivered to device "other" is in the history: response ignored"#])
        #expect(await c.pendingRequests().count == 1)
        let outcome = await c.center.respond(NotificationResponse(requestIdentifier: "water", device: "d", actionIdentifier: "cancel"))
        #expect(outcome.effect == .removeRequest)
        #expect(outcome.applied)
        #expect(await c.advance(to: Self.t0.addingTimeInterval(600)).isEmpty)
        #expect(await c.pendingRequests().isEmpty)
    }

    @Test func snoozeDeliversAgainAfterTheDelayAndUnknownsAreWarned() async throws {
        let c = Center()
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "later", title: "Later", effect: .snooze(300))])])
        let once = NotificationRequest(identifier: "call", content: NotificationContent(title: "Call", categoryIdentifier: "R"),
                                       trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: false)), device: "d")
        try await c.add(once)
        _ = await c.advance(to: Self.t0.addingTimeInterval(60))
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "call", device: "d", actionIdentifier: "later"))
        #expect(o.applied)
        #expect(o.warnings.isEmpty, "\(o.warnings)")
        // A second snooze before the first fired replaces it, and says so, as `run` says it of
        // the add a snooze amounts to (the center said nothing).
        let twice = await c.center.respond(NotificationResponse(requestIdentifier: "call", device: "d", actionIdentifier: "later"))
        #expect(twice.applied)
        #expect(twice.warnings == ["call/snooze: replaces the request with the same identifier"], "\(twice.warnings)")
        let again = await c.advance(to: Self.t0.addingTimeInterval(360))
        #expect(again.map(\.request.identifier) == ["call/snooze"])
        #expect(again.first?.request.content.title == "Call")
        let unknown = await c.center.respond(NotificationResponse(requestIdentifier: "call/snooze", actionIdentifier: "nope"))
        #expect(!unknown.applied)
        #expect(!unknown.warnings.isEmpty)
        #expect(try await c.add(Self.every("x", 60, category: "NOT-REGISTERED")).count == 1)
    }

    @Test func deliveredNotificationsAreCodable() async throws {
        let c = Center()
        try await c.add(Self.every("tick", 60))
        let d = try #require(await c.advance(to: Self.t0.addingTimeInterval(60)).first)
        let back = try JSONDecoder().decode(DeliveredNotification.self, from: JSONEncoder().encode(d))
        #expect(back == d)
    }
}

/// Issue 9: a center saved to the SQLite store and restored delivers what the original does.
@Suite("Trigger center: snapshot and restore")
struct CenterSnapshotTests {
    static let t0 = Center.t0

    static func requests() -> [NotificationRequest] {
        [
            NotificationRequest(identifier: "tick", content: NotificationContent(title: "t", categoryIdentifier: "R"),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 90, repeats: true)), device: "d"),
            NotificationRequest(identifier: "nine", content: NotificationContent(title: "n"),
                                trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "Europe/Paris"), minute: 30), repeats: true))),
            NotificationRequest(identifier: "zone", content: NotificationContent(body: "z"), trigger: .location(LocationTrigger(
                region: .circular(CircularRegion(identifier: "z", center: Coordinate(latitude: 40, longitude: -74), radius: 100)), repeats: true))),
            NotificationRequest(identifier: "once", content: NotificationContent(body: "o"), trigger: .location(LocationTrigger(
                region: .circular(CircularRegion(identifier: "o", center: Coordinate(latitude: 40.001, longitude: -74), radius: 100)), repeats: false)),
                device: "d"),
        ]
    }

    /// One step of a scripted session: clock moves and fixes.
    static func step(_ c: Center, _ k: Int) async throws -> [String] {
        let at = Self.t0.addingTimeInterval(Double(k) * 47)
        let north = [300.0, 0, 0, 150, 300, 0, 111][k % 7]
        var out = await c.advance(to: at)
        out += try await c.receive(LocationFix(device: k % 3 == 0 ? "e" : "d", date: at, latitude: 40 + north / 111_034, longitude: -74))
        return out.map { "\($0.request.identifier) \($0.eventId) \($0.fireCount)" }
    }

    @Test func aRestoredCenterDeliversWhatTheOriginalDoes() async throws {
        for cut in [1, 5, 13] {
            let a = Center()
            try await a.center.setNotificationCategories([NotificationCategory(identifier: "R", actions: [
                NotificationAction(identifier: "stop", title: "Stop", effect: .removeRequest)])])
            for r in Self.requests() { try await a.add(r) }
            for k in 0..<cut { _ = try await Self.step(a, k) }
            // Save through the SQLite store, load, restore on a clock at the same time.
            let tmp = TempStorePath(); defer { tmp.cleanup() }
            try StateStore(path: tmp.path).saveCenter(await a.center.snapshot())
            let loaded = try #require(try StateStore(readingAt: tmp.path).loadCenter())
            let b = Center()
            b.clock.advance(to: a.clock.now)
            let restored = try TriggerCenter(restoring: loaded, configuration: a.center.configuration, clock: b.clock)
            let bc = Center(wrapping: restored, clock: b.clock)
            #expect(await bc.pendingRequests().map(\.identifier) == (await a.pendingRequests()).map(\.identifier))
            #expect(await bc.deliveredNotifications() == (await a.deliveredNotifications()))
            var compared = 0
            for k in cut..<(cut + 20) {
                let got = try await Self.step(bc, k), want = try await Self.step(a, k)
                #expect(got == want, "cut \(cut), step \(k)")
                compared += want.count
            }
            #expect(compared >= 15)  // time and location fires both happen after the cut
            let o1 = await a.center.respond(NotificationResponse(requestIdentifier: "tick", device: "d", actionIdentifier: "stop"))
            let o2 = await bc.center.respond(NotificationResponse(requestIdentifier: "tick", device: "d", actionIdentifier: "stop"))
            #expect(o1 == o2 && o1.applied)
        }
    }

    @Test func snapshotsStoreADeliveredRequestOnceAndStillReadFormat1() async throws {
        let c = Center()
        try await c.add(LiveCenterTests.every("a", 60, device: "d1"))
        try await c.add(LiveCenterTests.every("b", 60))
        _ = await c.advance(to: LiveCenterTests.t0.addingTimeInterval(3600))
        // A delivery of a request since replaced keeps its own copy.
        try await c.add(LiveCenterTests.every("b", 120))
        _ = await c.advance(to: LiveCenterTests.t0.addingTimeInterval(3720))
        let snap = await c.center.snapshot()
        #expect(snap.delivered.count > 100)
        let v2 = try JSONEncoder().encode(snap)
        // Format 1: every delivery with its whole request.
        var old = try #require(try JSONSerialization.jsonObject(with: v2) as? [String: Any])
        old["formatVersion"] = 1
        old["delivered"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(snap.delivered))
        let v1 = try JSONSerialization.data(withJSONObject: old)
        // Request "a" (never replaced) is stored once in format 2, once per delivery in 1.
        func copies(_ data: Data) -> Int { String(decoding: data, as: UTF8.self).components(separatedBy: #""title":"a""#).count - 1 }
        let deliveriesOfA = snap.delivered.filter { $0.request.identifier == "a" }.count
        #expect(deliveriesOfA == 62)  // every 60 s up to 3,720 s
        #expect(copies(v2) == 1)
        #expect(copies(v1) == 1 + deliveriesOfA)
        #expect(v2.count < v1.count)
        for data in [v2, v1] {
            let back = try JSONDecoder().decode(CenterSnapshot.self, from: data)
            #expect(back.delivered == snap.delivered)
            #expect(back.requests == snap.requests)
        }
        let replaced = try JSONDecoder().decode(CenterSnapshot.self, from: v2).delivered.filter { $0.request.identifier == "b" }
        #expect(Set(replaced.map { ($0.request.trigger == LiveCenterTests.every("b", 60).trigger) }) == [true, false])
    }
}

/// The floating zone a center is told to follow holds for what comes after too, and a
/// shut-down center changes nothing (both found by a helper reading the API).
@Suite("Live center: the floating zone, shutdown")
struct CenterZoneAndShutdownTests {
    static func daily(_ id: String) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id),
                            trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(hour: 9), repeats: true)))
    }

    /// `setFloatingTimeZone` re-planned the queued fires only: a request added later, and
    /// every request after the next migration (a snapshot compacts), went back to the old zone.
    @Test func aNewFloatingZoneHoldsForLaterRequestsAndAfterAMigration() async throws {
        let c = Center()  // UTC, 2026-11-27T09:00:00Z
        try await c.add(Self.daily("before"))
        await c.center.setFloatingTimeZone(TimeZone(identifier: "Asia/Tokyo")!)
        try await c.add(Self.daily("after"))
        // 09:00 in Tokyo is 00:00Z.
        let tokyo = Timestamp.date(millis: Timestamp.parseMillis("2026-11-28T00:00:00Z")!)
        #expect(await c.center.nextTriggerDate(forIdentifier: "before") == tokyo)
        #expect(await c.center.nextTriggerDate(forIdentifier: "after") == tokyo)
        _ = await c.center.snapshot()
        #expect(await c.center.nextTriggerDate(forIdentifier: "before") == tokyo)
        #expect(await c.center.nextTriggerDate(forIdentifier: "after") == tokyo)
        let fired = await c.advance(to: tokyo)
        #expect(fired.map(\.request.identifier).sorted() == ["after", "before"])
    }

    @Test func aShutDownCenterChangesNothing() async throws {
        let c = Center()
        try await c.add(Self.daily("kept"))
        try await c.center.setNotificationCategories([NotificationCategory(identifier: "R", actions: [
            NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest)])])
        await c.center.shutdown()
        await c.center.removePendingRequests(withIdentifiers: ["kept"])
        await c.center.removeAllPendingRequests()
        try await c.center.setNotificationCategories([])
        try await c.center.setNotificationSettings(NotificationSettings(authorizationStatus: .denied), forDevice: "d")
        #expect(await c.center.pendingRequests().map(\.identifier) == ["kept"])
        #expect(await c.center.notificationCategories().map(\.identifier) == ["R"])
        #expect(await c.center.notificationSettings(forDevice: "d") == .authorized)
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "kept", actionIdentifier: "cancel"))
        #expect(!o.applied && o.warnings == ["the center is shut down"])
        await #expect(throws: RequestError.self) { try await c.add(Self.daily("late")) }
    }
}
