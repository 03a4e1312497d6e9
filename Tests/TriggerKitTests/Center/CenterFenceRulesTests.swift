import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 13 in the library: a center fires a dwell from its clock alone, wakes its run loop
/// for it, and drops an expired request from its pending list.
@Suite("center: fence rules")
struct CenterFenceRulesTests {
    static func cafe(expires: Date? = nil) -> NotificationRequest {
        var t = LocationTrigger(region: .circular(CircularRegion(identifier: "cafe", center: Coordinate(latitude: 40, longitude: -74),
                                                                 radius: 100, notifyOnEntry: false, notifyOnExit: false)),
                                repeats: true)
        t.rules.dwell = FenceDwell(side: .inside, duration: 300)
        return NotificationRequest(identifier: "cafe", content: NotificationContent(title: "Still here?"), trigger: .location(t),
                                   device: "sam", expiresAt: expires)
    }

    @Test func aDwellIsDeliveredByTheClockWithNoFurtherFix() async throws {
        let c = Center()
        try await c.add(Self.cafe())
        try await c.receive(LocationFix(device: "sam", date: Center.t0.addingTimeInterval(1), latitude: 40.01, longitude: -74))
        try await c.receive(LocationFix(device: "sam", date: Center.t0.addingTimeInterval(10), latitude: 40, longitude: -74))
        #expect(await c.advance(to: Center.t0.addingTimeInterval(309)).isEmpty)
        let due = await c.advance(to: Center.t0.addingTimeInterval(400))
        #expect(due.map(\.crossing) == [.dwellInside])
        #expect(due.first?.date == Center.t0.addingTimeInterval(310))
    }

    @Test func theRunLoopWakesForADwell() async throws {
        let c = Center()
        try await c.add(Self.cafe())
        try await c.receive(LocationFix(device: "sam", date: Center.t0.addingTimeInterval(1), latitude: 40.01, longitude: -74))
        try await c.receive(LocationFix(device: "sam", date: Center.t0.addingTimeInterval(10), latitude: 40, longitude: -74))
        let soonest = await c.center.atomically { center in center.engine.soonestFireDate }
        #expect(soonest == Timestamp.millis(Center.t0.addingTimeInterval(310)))
    }

    @Test func anExpiredRequestLeavesThePendingList() async throws {
        let c = Center()
        try await c.add(Self.cafe(expires: Center.t0.addingTimeInterval(60)))
        #expect(await c.center.pendingRequests().count == 1)
        await c.advance(to: Center.t0.addingTimeInterval(61))
        #expect(await c.center.pendingRequests().isEmpty)
    }
}
