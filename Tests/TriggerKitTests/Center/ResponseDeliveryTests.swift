import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A response answers what the device was shown: the newest delivery of that identifier to
/// it, as delivered (found by a helper: the center answered the pending request, so a device
/// never shown a notification could cancel it, and after a replacement the replacement's
/// device and category decided).
@Suite("Center: a response answers the delivery the device was shown")
struct ResponseDeliveryTests {
    static let t0 = Center.t0

    static func reminder(_ id: String, device: String?, category: String, every seconds: Double = 60) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id, categoryIdentifier: category),
                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: seconds, repeats: true)), device: device)
    }

    static func center() async throws -> Center {
        let c = Center()
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "A", actions: [NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest)]),
            NotificationCategory(identifier: "B", actions: [NotificationAction(identifier: "cancel", title: "Later", effect: .snooze(300))]),
        ])
        return c
    }

    /// A reminder replaced by another device's: the device it was delivered to still answers
    /// it (its category's action), the new device, shown nothing, does not.
    @Test func aReplacementDoesNotTakeOverTheDeliveredNotificationsResponses() async throws {
        let c = try await Self.center()
        try await c.add(Self.reminder("R", device: "phone", category: "A"))
        #expect(await c.advance(to: Self.t0.addingTimeInterval(60)).map(\.device) == ["phone"])
        try await c.add(Self.reminder("R", device: "tab", category: "A"))
        let tab = await c.center.respond(NotificationResponse(requestIdentifier: "R", device: "tab", actionIdentifier: "cancel"))
        #expect(!tab.applied)
        #expect(tab.warnings == [#"no notification of request "R" delivered to device "tab" is in the history: response ignored"#])
        #expect(await c.pendingRequests().map(\.identifier) == ["R"])
        let phone = await c.center.respond(NotificationResponse(requestIdentifier: "R", device: "phone", actionIdentifier: "cancel"))
        #expect(phone.applied, "\(phone.warnings)")
        #expect(phone.effect == .removeRequest)
        #expect(await c.pendingRequests().isEmpty)
    }

    /// The action is the delivered notification's category's: a request re-added in another
    /// category does not change what the shown notification's button does.
    @Test func theActionIsTheDeliveredCategorys() async throws {
        let c = try await Self.center()
        try await c.add(Self.reminder("R", device: "phone", category: "A"))
        _ = await c.advance(to: Self.t0.addingTimeInterval(60))
        try await c.add(Self.reminder("R", device: "phone", category: "B", every: 600))
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "R", device: "phone", actionIdentifier: "cancel"))
        #expect(o.effect == .removeRequest)
        #expect(o.applied)
        #expect(await c.pendingRequests().isEmpty, "category B's snooze was applied instead")
    }

    /// Nothing delivered to the device: before the first fire, a fire its settings
    /// suppressed, a shared request delivered only to another device.
    @Test func aNotificationNeverShownIsNotAnswered() async throws {
        let c = try await Self.center()
        try await c.add(Self.reminder("early", device: "phone", category: "A"))
        let early = await c.center.respond(NotificationResponse(requestIdentifier: "early", device: "phone", actionIdentifier: "cancel"))
        #expect(!early.applied)
        #expect(await c.pendingRequests().map(\.identifier) == ["early"])

        try await c.center.setNotificationSettings(NotificationSettings(authorizationStatus: .denied), forDevice: "kim")
        try await c.add(NotificationRequest(identifier: "zone", content: NotificationContent(title: "z", categoryIdentifier: "A"),
                                            trigger: .location(LocationTrigger(region: .circular(CircularRegion(
                                                identifier: "z", center: Coordinate(latitude: 40, longitude: -74), radius: 100)), repeats: true))))
        let shown = try await c.receive(LocationFix(device: "phone", date: Self.t0.addingTimeInterval(10), latitude: 40.01, longitude: -74))
        _ = try await c.receive(LocationFix(device: "kim", date: Self.t0.addingTimeInterval(10), latitude: 40.01, longitude: -74))
        _ = try await c.receive(LocationFix(device: "tab", date: Self.t0.addingTimeInterval(10), latitude: 40.01, longitude: -74))
        let entered = try await c.receive(LocationFix(device: "phone", date: Self.t0.addingTimeInterval(20), latitude: 40, longitude: -74))
        let suppressed = try await c.receive(LocationFix(device: "kim", date: Self.t0.addingTimeInterval(20), latitude: 40, longitude: -74))
        #expect(shown.isEmpty)
        #expect(entered.map(\.device) == ["phone"])
        #expect(suppressed.isEmpty)
        for device in ["kim", "tab"] {
            let o = await c.center.respond(NotificationResponse(requestIdentifier: "zone", device: device, actionIdentifier: "cancel"))
            #expect(!o.applied, "\(device)")
        }
        #expect(await c.pendingRequests().map(\.identifier).sorted() == ["early", "zone"])
        let phone = await c.center.respond(NotificationResponse(requestIdentifier: "zone", device: "phone", actionIdentifier: "cancel"))
        #expect(phone.applied)
        #expect(await c.pendingRequests().map(\.identifier) == ["early"])
    }

    /// Shared fires fill one list, kept to the same bound as a device's: where the delivery
    /// may have been dropped from a full list, the pending request is answered (a reviewer:
    /// 150 shared reminders evicted each other before anyone could answer them).
    @Test func aDeliveryTheHistoryMayHaveDroppedIsAnsweredByThePendingRequest() async throws {
        let c = Center(deliveredLimit: 2)
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "A", actions: [NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest)])])
        for id in ["r1", "r2", "r3"] { try await c.add(Self.reminder(id, device: nil, category: "A")) }
        #expect(await c.advance(to: Self.t0.addingTimeInterval(60)).count == 3)
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "r1", device: "phone", actionIdentifier: "cancel"))
        #expect(o.applied, "\(o.warnings)")
        #expect(await c.pendingRequests().map(\.identifier) == ["r2", "r3"])
        // Not full: what the history does not hold was never shown.
        let d = Center(deliveredLimit: 5)
        try await d.center.setNotificationCategories([
            NotificationCategory(identifier: "A", actions: [NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest)])])
        try await d.add(Self.reminder("r1", device: nil, category: "A"))
        let early = await d.center.respond(NotificationResponse(requestIdentifier: "r1", device: "phone", actionIdentifier: "cancel"))
        #expect(!early.applied)
    }

    /// Without a history the pending request is answered, as `run` answers it.
    @Test func withoutAHistoryThePendingRequestIsAnswered() async throws {
        let c = Center(deliveredLimit: 0)
        try await c.center.setNotificationCategories([
            NotificationCategory(identifier: "A", actions: [NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest)])])
        try await c.add(Self.reminder("R", device: "phone", category: "A"))
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "R", device: "phone", actionIdentifier: "cancel"))
        #expect(o.applied)
    }
}
