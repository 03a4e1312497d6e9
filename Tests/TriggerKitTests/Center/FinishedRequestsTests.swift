import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A one-shot that fired, or a request whose `expiresAt` passed, leaves the center as it leaves
/// Apple's pending list: it used to stay held for ever (`requestCount`, `request(withIdentifier:)`,
/// snapshots), so a service taking one-shots grew without bound and `serve`'s request limit
/// counted them (found by a helper). Its deliveries keep it: a reminder can be snoozed after it
/// showed.
@Suite("Center: finished requests leave")
struct FinishedRequestsTests {
    static let t0 = Center.t0

    static func once(_ id: String, _ seconds: Double, device: String? = nil, category: String? = nil,
                     expires: Date? = nil) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id, categoryIdentifier: category),
                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: seconds, repeats: false)),
                            device: device, addedAt: t0, expiresAt: expires)
    }

    static func circle(_ id: String, device: String?, repeats: Bool = false) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id), trigger: .location(LocationTrigger(
            region: .circular(CircularRegion(identifier: id, center: Coordinate(latitude: 40, longitude: -74), radius: 100)),
            repeats: repeats)), device: device, addedAt: t0)
    }

    @Test func oneShotTimeTriggersLeaveWhenTheyFire() async throws {
        let c = Center()
        try await c.add(Self.once("a", 60))
        try await c.add(Self.once("b", 120, device: "d"))
        try await c.add(LiveCenterTests.every("r", 60))
        #expect(await c.center.requestCount == 3)
        #expect(await c.advance(to: Self.t0.addingTimeInterval(90)).map(\.request.identifier) == ["a", "r"])
        #expect(await c.center.requestCount == 2)
        #expect(await c.center.request(withIdentifier: "a") == nil)
        #expect(await c.advance(to: Self.t0.addingTimeInterval(120)).map(\.request.identifier) == ["b", "r"])
        #expect(await c.center.requestCount == 1)
        #expect(await c.center.pendingRequests().map(\.identifier) == ["r"])
        // Adding "a" again is a new request, not a replacement, and fires again.
        try await c.add(Self.once("a", 300))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(300)).map(\.request.identifier).contains("a"))
        // The snapshot holds what is left, and a restore goes on alike.
        let snap = await c.center.snapshot()
        #expect(snap.requests.map(\.identifier) == ["r"])
        // The deliveries still carry their requests.
        #expect(await c.center.deliveredNotifications().filter { $0.request.identifier == "a" }.count == 2)
    }

    @Test func aSuppressedOneShotLeavesToo() async throws {
        let c = Center()
        try await c.add(Self.once("quiet", 60, device: "d"))
        // Denied after it was added: its fire is suppressed, and it is finished all the same.
        try await c.center.setNotificationSettings(NotificationSettings(authorizationStatus: .denied), forDevice: "d")
        #expect(await c.advance(to: Self.t0.addingTimeInterval(61)).isEmpty)
        #expect(await c.center.requestCount == 0)
    }

    @Test func aDevicesOneShotRegionLeavesASharedOneStays() async throws {
        let c = Center()
        try await c.add(Self.circle("mine", device: "d"))
        try await c.add(Self.circle("shared", device: nil))
        try await c.add(Self.circle("always", device: "d", repeats: true))
        let far = LocationFix(device: "d", date: Self.t0.addingTimeInterval(1), latitude: 40.01, longitude: -74)
        let near = LocationFix(device: "d", date: Self.t0.addingTimeInterval(20), latitude: 40, longitude: -74)
        try await c.receive(far)
        #expect(try await c.receive(near).map(\.request.identifier) == ["always", "mine", "shared"])
        #expect(await c.center.pendingRequests().map(\.identifier) == ["shared", "always"])
        #expect(await c.center.requestCount == 2)
    }

    @Test func anExpiredRequestLeaves() async throws {
        let c = Center()
        try await c.add(Self.once("late", 3600, expires: Self.t0.addingTimeInterval(600)))
        try await c.add(Self.once("kept", 7200))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(601)).isEmpty)
        #expect(await c.center.requestCount == 1)
        #expect(await c.center.request(withIdentifier: "late") == nil)
    }

    /// Many one-shots over time: what the center holds stays the pending ones.
    @Test func aCenterTakingOneShotsForEverStaysSmall() async throws {
        let c = Center()
        for k in 0..<2_000 {
            try await c.add(Self.once("once-\(k)", 60, device: "d\(k % 7)"))
            if k % 100 == 99 { _ = await c.advance(to: c.clock.now.addingTimeInterval(61)) }
        }
        #expect(await c.center.requestCount == 0)
        let snap = await c.center.snapshot()
        #expect(snap.requests.count == 0)
    }

    /// A snooze of a one-shot after it showed (it has left the center) adds the snooze from
    /// its delivery; two devices snoozing one shared reminder each get their own.
    @Test func snoozesComeFromTheDeliveryAndAreEachDevicesOwn() async throws {
        let c = Center()
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "later", title: "Later", effect: .snooze(300))])])
        try await c.add(Self.once("pill", 60, category: "R"))
        let shown = await c.advance(to: Self.t0.addingTimeInterval(60))
        #expect(shown.map(\.request.identifier) == ["pill"])
        #expect(await c.center.requestCount == 0)
        for device in ["phone", "watch"] {
            let o = await c.center.respond(NotificationResponse(requestIdentifier: "pill", device: device, actionIdentifier: "later"))
            #expect(o.applied, "\(o.warnings)")
        }
        #expect(await c.center.pendingRequests().map(\.identifier) == ["pill/snooze/phone", "pill/snooze/watch"])
        let again = await c.advance(to: Self.t0.addingTimeInterval(360))
        #expect(again.map(\.device) == ["phone", "watch"])
    }

    /// Retiring once made the evaluator compact between a step and the reading of its fires,
    /// whose positions then named other requests (or none: a crash). A helper's case: the
    /// second step retires past half of the requests.
    @Test func firesAreReadBeforeRetiringCompacts() async throws {
        let c = Center()
        func id(_ k: Int) -> String { "r" + String(format: "%04d", k) }
        for k in 0..<3000 {
            let r: NotificationRequest = switch k {
            case 0..<200: Self.once(id(k), 120)
            case 200..<1600: Self.once(id(k), 60)
            default: LiveCenterTests.every(id(k), 3600)
            }
            try await c.add(r)
        }
        let first = await c.advance(to: Self.t0.addingTimeInterval(90)).map(\.request.identifier)
        #expect(first == (200..<1600).map(id))
        let second = await c.advance(to: Self.t0.addingTimeInterval(150)).map(\.request.identifier)
        #expect(second == (0..<200).map(id))
        #expect(await c.center.requestCount == 1400)
        let third = await c.advance(to: Self.t0.addingTimeInterval(3600)).map(\.request.identifier)
        #expect(third == (1600..<3000).map(id))
    }

    /// A response without a device to a device's one-shot that fired (it has left) is
    /// applied with the request its delivery carries, as `run` applies it.
    @Test func aResponseWithoutADeviceFindsTheDeliveryOfAnyDevice() async throws {
        let c = Center()
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "later", title: "Later", effect: .snooze(300))])])
        try await c.add(Self.once("dev1", 60, device: "phone", category: "R"))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(90)).map(\.device) == ["phone"])
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "dev1", actionIdentifier: "later"))
        #expect(o.applied, "\(o.warnings)")
        #expect(await c.center.pendingRequests().map(\.identifier) == ["dev1/snooze"])
        #expect(await c.center.pendingRequests().first?.device == "phone")
    }

    /// The delivery a response answers is the newest of its identifier, whether shared or the
    /// device's own: a shared delivery was taken first whatever its date (and with a device,
    /// the device's own first), so a request replaced under the same identifier was answered
    /// with the older one's category (found by a helper comparing `serve` with `run`).
    @Test(arguments: [nil, "d"] as [String?])
    func aResponseAnswersTheNewestDeliveryOfItsIdentifier(responder: String?) async throws {
        let c = Center()
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "OLD", dismissEffect: .snooze(600)),
            NotificationCategory(identifier: "NEW", dismissEffect: .snooze(45))])
        // Shared first, then the device's own under the same identifier (each fires and leaves).
        try await c.add(Self.once("a", 60, category: "OLD"))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(60)).count == 1)
        var own = Self.once("a", 120, device: "d", category: "NEW")
        own.addedAt = Self.t0.addingTimeInterval(60)
        try await c.add(own)
        #expect(await c.advance(to: Self.t0.addingTimeInterval(180)).map(\.device) == ["d"])
        // The device's own first, then shared under the same identifier.
        try await c.add(Self.once("b", 200, device: "d", category: "OLD"))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(200)).map(\.device) == ["d"])
        var shared = Self.once("b", 100, category: "NEW")
        shared.addedAt = Self.t0.addingTimeInterval(200)
        try await c.add(shared)
        #expect(await c.advance(to: Self.t0.addingTimeInterval(300)).count == 1)
        for id in ["a", "b"] {
            let o = await c.center.respond(NotificationResponse(requestIdentifier: id, device: responder, actionIdentifier: NotificationResponse.dismissActionIdentifier))
            #expect(o.effect == .snooze(45), "\(id): \(o.warnings)")
        }
    }

    /// One-shots firing one per step, past the compaction threshold (1,024 retired).
    @Test func oneShotsFiringOneByOneStayThemselves() async throws {
        let c = Center()
        for k in 0..<1_100 { try await c.add(Self.once("o\(k)", Double(60 + k))) }
        _ = await c.advance(to: Self.t0.addingTimeInterval(1))
        for k in 0..<1_100 {
            let fired = await c.advance(to: Self.t0.addingTimeInterval(Double(60 + k))).map(\.request.identifier)
            if fired != ["o\(k)"] { Issue.record("step \(k): \(fired)"); return }
        }
        #expect(await c.center.requestCount == 0)
    }

    /// A repeating trigger that runs out (a calendar trigger naming its year) leaves at its
    /// last fire, as a restore would drop it: the center is the same before and after.
    @Test func aRepeatingTriggerThatRanOutLeavesLiveAsAtARestore() async throws {
        let c = Center()
        var when = DateComponents(year: 2026, month: 11, day: 27, hour: 9, minute: 30)
        when.timeZone = TimeZone(identifier: "UTC")
        try await c.add(NotificationRequest(identifier: "cal", content: NotificationContent(title: "cal"),
                                            trigger: .calendar(CalendarTrigger(dateMatching: when, repeats: true)), addedAt: Self.t0))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(3600)).map(\.request.identifier) == ["cal"])
        #expect(await c.center.requestCount == 0)
        #expect(await c.center.request(withIdentifier: "cal") == nil)
    }

    /// A request whose next fire lies past its `expiresAt` is held until the expiry passes;
    /// a restore dropped it at once, so a response (a snooze) then differed from the
    /// uninterrupted center (found by a helper's restore-equivalence fuzz).
    @Test func aRestoreHoldsWhatTheLiveCenterHoldsUntilItsExpiry() async throws {
        let a = Center()
        try await a.add(Self.once("r", 61, device: "d1", expires: Self.t0.addingTimeInterval(1)))
        #expect(await a.center.requestCount == 1)
        let snapshot = await a.center.snapshot()
        let clock = ManualClock(a.clock.now)
        let b = Center(wrapping: try TriggerCenter(restoring: CenterSnapshot(serialized: try snapshot.serialized()), clock: clock), clock: clock)
        #expect(await b.center.requestCount == 1)
        #expect(await b.center.request(withIdentifier: "r") != nil)
        // Both let it go when the expiry passes.
        for c in [a, b] {
            _ = await c.advance(to: Self.t0.addingTimeInterval(2))
            #expect(await c.center.requestCount == 0)
        }
    }
}
