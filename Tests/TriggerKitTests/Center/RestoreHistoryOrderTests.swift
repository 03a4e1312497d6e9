import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A restored center keeps the delivered lists the live one keeps: the snapshot held the
/// history sorted by date, so a full list restored dropped another entry than the live list
/// when deliveries had arrived out of date order (a fix dated before a time fire already
/// delivered). Found by a restore-equivalence fuzz.
@Suite("Restore: the delivered history in arrival order")
struct RestoreHistoryOrderTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)

    /// Deliveries at one instant are listed by identifier, then device: they were listed by
    /// event id (a hash), so `GET /v1/delivered` gave b, a, c, d where the step and the event
    /// stream gave a, b, c, d (found by a helper).
    @Test func deliveriesAtOneInstantAreListedByIdentifierThenDevice() async throws {
        let clock = ManualClock(Self.t0)
        let center = try TriggerCenter(configuration: CenterConfiguration(), clock: clock)
        for id in ["c", "a", "d", "b"] {
            for device in ["e", "d"] {
                try await center.add(NotificationRequest(identifier: "\(id)-\(device)", content: NotificationContent(title: id), trigger: .location(LocationTrigger(
                    region: .circular(CircularRegion(identifier: "g", center: Coordinate(latitude: 10, longitude: 0), radius: 500)),
                    repeats: true)), device: device, addedAt: Self.t0))
            }
        }
        var delivered: [String] = []
        for device in ["e", "d"] {
            _ = try await center.receive(LocationFix(device: device, date: Self.t0.addingTimeInterval(10), latitude: 0, longitude: 0))
        }
        for device in ["e", "d"] {
            delivered += try await center.receive(LocationFix(device: device, date: Self.t0.addingTimeInterval(20), latitude: 10, longitude: 0))
                .map(\.request.identifier)
        }
        #expect(delivered == ["a-e", "b-e", "c-e", "d-e", "a-d", "b-d", "c-d", "d-d"])
        #expect(await center.deliveredNotifications(device: "e").map(\.request.identifier) == ["a-e", "b-e", "c-e", "d-e"])
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["a-d", "a-e", "b-d", "b-e", "c-d", "c-e", "d-d", "d-e"])
    }

    @Test func aFullListDropsTheSameEntryAfterARestore() async throws {
        var configuration = CenterConfiguration()
        configuration.deliveredLimitPerDevice = 2
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(configuration: configuration, clock: clock)
        try await live.add(NotificationRequest(identifier: "every", content: NotificationContent(title: "every"),
                                               trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)),
                                               device: "d", addedAt: Self.t0))
        try await live.add(NotificationRequest(identifier: "home", content: NotificationContent(title: "home"), trigger: .location(LocationTrigger(
            region: .circular(CircularRegion(identifier: "home", center: Coordinate(latitude: 40, longitude: -74), radius: 100)),
            repeats: true)), device: "d", addedAt: Self.t0))
        // The time fire at +60 s arrives first; then fixes dated +20 s (outside) and +30 s
        // (inside): the entry, dated +30 s, arrives after the fire dated +60 s.
        clock.advance(to: Self.t0.addingTimeInterval(61))
        #expect(await live.deliverDue().count == 1)
        _ = try await live.receive(LocationFix(device: "d", date: Self.t0.addingTimeInterval(20), latitude: 40.01, longitude: -74))
        #expect(try await live.receive(LocationFix(device: "d", date: Self.t0.addingTimeInterval(30), latitude: 40, longitude: -74)).count == 1)

        let snapshot = try CenterSnapshot(serialized: try await live.snapshot().serialized())
        #expect(snapshot.delivered.map(\.request.identifier) == ["every", "home"])
        let restored = try TriggerCenter(restoring: snapshot, configuration: configuration, clock: clock)
        // One more fire: each full list drops its oldest arrival, the fire at +60 s.
        clock.advance(to: Self.t0.addingTimeInterval(121))
        #expect(await live.deliverDue().count == 1)
        #expect(await restored.deliverDue().count == 1)
        let kept = await live.deliveredNotifications().map { "\($0.request.identifier)@\($0.date.timeIntervalSince(Self.t0))" }
        #expect(kept == ["home@30.0", "every@120.0"])
        #expect(await restored.deliveredNotifications() == (await live.deliveredNotifications()))
    }
}
