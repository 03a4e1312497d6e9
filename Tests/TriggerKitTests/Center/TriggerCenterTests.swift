import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Trigger center")
struct TriggerCenterTests {
    static let t0 = Timestamp.date(millis: 1_795_770_000_000)  // 2026-11-27T09:00:00Z

    static func interval(_ id: String, _ seconds: Double, repeats: Bool = false, device: String? = nil) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id),
                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: seconds, repeats: repeats)), device: device, addedAt: t0)
    }

    static func circle(_ id: String, repeats: Bool = true, device: String? = nil) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(body: id), trigger: .location(LocationTrigger(
            region: .circular(CircularRegion(identifier: "r-\(id)", center: Coordinate(latitude: 40, longitude: -74), radius: 100)),
            repeats: repeats)), device: device, addedAt: t0)
    }

    static func fixAt(_ s: Int, north: Double, device: String = "d") -> LocationFix {
        LocationFix(device: device, date: t0.addingTimeInterval(Double(s)), latitude: 40 + north / 111_034, longitude: -74)
    }

    @Test func oneShotsMoveFromPendingToDelivered() async throws {
        let c = Center()
        try await c.add(Self.interval("once", 60))
        try await c.add(Self.interval("every", 60, repeats: true))
        #expect(await c.pendingRequests().map(\.identifier) == ["once", "every"])
        let fired = await c.advance(to: Self.t0.addingTimeInterval(130))
        #expect(fired.map(\.request.identifier) == ["every", "once", "every"])
        #expect(await c.pendingRequests().map(\.identifier) == ["every"])
        #expect(await c.deliveredNotifications().count == 3)
        await c.removeDeliveredNotifications(withIdentifiers: ["every"])
        #expect(await c.deliveredNotifications().map(\.request.identifier) == ["once"])
        await c.removeAllDeliveredNotifications()
        #expect(await c.deliveredNotifications().isEmpty)
    }

    @Test func replacingARequestRestartsItsTriggerOthersKeepTheirs() async throws {
        let c = Center()
        try await c.add(Self.interval("a", 100))
        try await c.add(Self.interval("b", 100))
        await c.advance(to: Self.t0.addingTimeInterval(50))
        var replacement = Self.interval("a", 100)
        replacement.addedAt = Self.t0.addingTimeInterval(50)
        try await c.add(replacement)
        let fired = await c.advance(to: Self.t0.addingTimeInterval(120))
        #expect(fired.map(\.request.identifier) == ["b"])
        let later = await c.advance(to: Self.t0.addingTimeInterval(200))
        #expect(later.map(\.request.identifier) == ["a"])
        #expect(later.first?.date == Self.t0.addingTimeInterval(150))
    }

    @Test func removedRequestsNeverFire() async throws {
        let c = Center()
        try await c.add(Self.interval("a", 60, repeats: true))
        try await c.add(Self.interval("b", 60, repeats: true))
        await c.advance(to: Self.t0.addingTimeInterval(61))
        await c.removePendingRequests(withIdentifiers: ["a"])
        #expect(await c.advance(to: Self.t0.addingTimeInterval(200)).map(\.request.identifier) == ["b", "b"])
        await c.removeAllPendingRequests()
        #expect(await c.advance(to: Self.t0.addingTimeInterval(400)).isEmpty)
        #expect(await c.pendingRequests().isEmpty)
    }

    @Test func locationStateSurvivesAddingOtherRequests() async throws {
        let c = Center()
        try await c.add(Self.circle("home"))
        try await c.receive(Self.fixAt(0, north: 300))
        #expect(try await c.receive(Self.fixAt(10, north: 0)).map(\.crossing) == [.enter])
        try await c.add(Self.interval("x", 1000))       // re-plan: "home" must remember "inside"
        #expect(try await c.receive(Self.fixAt(20, north: 0)).isEmpty)
        let exit = try await c.receive(Self.fixAt(30, north: 300))
        #expect(exit.map(\.crossing) == [.exit])
        #expect(exit.first?.device == "d")
        #expect(exit.first?.region == "r-home")
    }

    @Test func authorizationGatesAddingAndDelivery() async throws {
        let c = Center(defaultSettings: NotificationSettings(authorizationStatus: .notDetermined))
        await #expect(throws: RequestError.self) { try await c.add(Self.circle("mine", device: "d")) }
        try await c.setNotificationSettings(NotificationSettings(authorizationStatus: .provisional), forDevice: "d")
        try await c.add(Self.circle("mine", device: "d"))
        try await c.add(Self.circle("shared"))
        try await c.receive(Self.fixAt(0, north: 300))
        let fired = try await c.receive(Self.fixAt(10, north: 0))
        #expect(fired.map(\.request.identifier) == ["mine", "shared"])
        #expect(fired.allSatisfy { $0.presentation == [.notificationCenter] })
        // Another device that never authorized: its shared fires are suppressed.
        try await c.receive(Self.fixAt(0, north: 300, device: "e"))
        #expect(try await c.receive(Self.fixAt(10, north: 0, device: "e")).isEmpty)
        do {
            try await c.add(Self.circle("nope", device: "e"))
            Issue.record("accepted a request for an unauthorized device")
        } catch {
            #expect(error.code == .notificationsNotAllowed)
        }
    }

    @Test func deliveriesStreamAndConcurrentUse() async throws {
        let c = Center()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask { try? await c.add(Self.interval("r\(i)", Double(60 + i), repeats: false)) }
            }
        }
        #expect(await c.pendingRequests().count == 50)
        let feed = await c.center.deliveries()  // subscribed before anything fires
        let collector = Task { () -> [String] in
            var ids: [String] = []
            for await d in feed {
                ids.append(d.request.identifier)
                if ids.count == 50 { break }
            }
            return ids
        }
        await c.advance(to: Self.t0.addingTimeInterval(3600))
        let ids = await collector.value
        #expect(ids == (0..<50).map { "r\($0)" })
        #expect(await c.pendingRequests().isEmpty)
    }

    @Test func invalidRequestsAreRefusedWithTheirCode() async {
        let c = Center()
        let never = NotificationRequest(identifier: "n", content: NotificationContent(title: "t"),
                                        trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(hour: 25), repeats: true)))
        do {
            try await c.add(never)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .notificationInvalidNoDate)
        }
    }
}
