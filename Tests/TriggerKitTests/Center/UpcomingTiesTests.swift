import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// `upcomingFires` lists same-date fires by identifier, as documented, also for requests
/// added in place (they came out in the order added until a snapshot compacted the center, so
/// a restored center answered otherwise; found by a restore-equivalence fuzz).
@Suite("Upcoming fires: ties by identifier")
struct UpcomingTiesTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)

    static func every(_ id: String, addedAt: Date = t0) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id),
                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)), addedAt: addedAt)
    }

    @Test func tiesAreByIdentifierBeforeAndAfterARestore() async throws {
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        // Added in reverse order, all firing at +60 s (and "m" at +30 s, +90 s).
        for id in ["z", "c", "b", "a"] { try await live.add(Self.every(id)) }
        try await live.add(Self.every("m", addedAt: Self.t0.addingTimeInterval(-30)))
        let expected = ["m@30", "a@60", "b@60", "c@60", "z@60", "m@90"]
        func names(_ fires: [UpcomingFire]) -> [String] {
            fires.map { "\($0.identifier)@\(Int($0.date.timeIntervalSince(Self.t0)))" }
        }
        #expect(names(await live.upcomingFires(limit: 6)) == expected)
        // A limit that cuts between ties takes the first by identifier.
        #expect(names(await live.upcomingFires(limit: 2)) == ["m@30", "a@60"])
        #expect(names(await live.upcomingFires(limit: 4)) == Array(expected.prefix(4)))
        let restored = try TriggerCenter(restoring: try CenterSnapshot(serialized: try await live.snapshot().serialized()), clock: clock)
        for limit in 1...6 {
            #expect(names(await restored.upcomingFires(limit: limit)) == names(await live.upcomingFires(limit: limit)), "limit \(limit)")
        }
    }
}
