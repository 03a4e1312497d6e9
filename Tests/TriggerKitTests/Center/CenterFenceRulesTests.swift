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

    /// A request with `expiresAt` builds the expiry table; a time request added after it is
    /// appended in place, past the table's end, and its first fire indexed past it: the whole
    /// `serve` process crashed, and again at every restart (found by a helper). Both kinds of
    /// later request, one by one and after a step.
    @Test(arguments: [false, true], [false, true])
    func aRequestAddedAfterOneThatExpiresFires(_ stepBefore: Bool, _ stepBetween: Bool) async throws {
        let c = Center()
        if stepBefore { await c.advance(to: Center.t0) }
        try await c.add(NotificationRequest(identifier: "first", content: NotificationContent(title: "a"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 3600, repeats: false)),
                                            expiresAt: Center.t0.addingTimeInterval(1800)))
        if stepBetween { await c.advance(to: Center.t0.addingTimeInterval(1)) }
        try await c.add(NotificationRequest(identifier: "second", content: NotificationContent(title: "b"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true))))
        let fired = await c.advance(to: Center.t0.addingTimeInterval(300))
        // Added at t0 (fires at 60...300 s) or, after the step, at t0 + 1 s (61...241 s).
        #expect(fired.map(\.request.identifier) == Array(repeating: "second", count: stepBetween ? 4 : 5))
        // "first" expires before its only fire.
        #expect(await c.advance(to: Center.t0.addingTimeInterval(3700)).allSatisfy { $0.request.identifier == "second" })
        #expect(await c.center.pendingRequests().map(\.identifier) == ["second"])
    }
}
