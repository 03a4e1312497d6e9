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
}
