import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The center holds at most ``CenterConfiguration/maxRequests`` requests: past it, a request
/// under a new identifier (or a snooze that would add one) is refused, typed, changing
/// nothing, while replacing and removing go on (a library center had no bound on requests).
@Suite("Center: the bound on requests")
struct RequestBoundTests {
    static let t0 = TriggerCenterTests.t0

    static func center(maxRequests: Int) throws -> (TriggerCenter, ManualClock) {
        try Center.configured { $0.maxRequests = maxRequests }
    }

    @Test func aNewIdentifierIsRefusedAtTheBoundAndReplacingGoesOn() async throws {
        let (center, clock) = try Self.center(maxRequests: 2)
        try await center.add(TriggerCenterTests.interval("a", 60))
        try await center.add(TriggerCenterTests.circle("b"))
        let error = await #expect(throws: RequestError.self) { try await center.add(TriggerCenterTests.interval("c", 60)) }
        #expect(error?.code == .tooManyRequests)
        #expect(error?.message == "the center holds 2 requests, its limit (maxRequests): c is new")
        #expect(await center.requestCount == 2)
        #expect(await center.request(withIdentifier: "c") == nil)
        // A replacement does not grow the table: accepted, with its new trigger.
        try await center.add(TriggerCenterTests.interval("a", 120))
        #expect(await center.request(withIdentifier: "a")?.trigger == .timeInterval(TimeIntervalTrigger(timeInterval: 120, repeats: false)))
        // A bad request at the bound is named for what is wrong with it.
        let bad = NotificationRequest(identifier: "d", content: NotificationContent(),
                                      trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: false)))
        let badError = await #expect(throws: RequestError.self) { try await center.add(bad) }
        #expect(badError?.code == .notificationInvalidNoContent)
        // Once one leaves (fired or removed), a new identifier fits again.
        await center.removePendingRequests(withIdentifiers: ["b"])
        try await center.add(TriggerCenterTests.interval("c", 60))
        #expect(await center.pendingRequests().map(\.identifier) == ["a", "c"])
        clock.advance(to: Self.t0.addingTimeInterval(120))
        #expect(await center.deliverDue().map(\.request.identifier) == ["c", "a"])
        #expect(await center.requestCount == 0)
    }

    @Test func aSnoozeThatWouldAddARequestIsRefusedAtTheBound() async throws {
        let (center, clock) = try Self.center(maxRequests: 1)
        try await center.setNotificationCategories([
            NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "later", title: "Later", effect: .snooze(300))])])
        var every = TriggerCenterTests.interval("every", 60, repeats: true)
        every.content.categoryIdentifier = "R"
        try await center.add(every)
        clock.advance(to: Self.t0.addingTimeInterval(60))
        #expect(await center.deliverDue().map(\.request.identifier) == ["every"])
        let o = await center.respond(NotificationResponse(requestIdentifier: "every", device: "phone", actionIdentifier: "later"))
        #expect(!o.applied)
        #expect(o.warnings.contains { $0.hasPrefix("snooze refused: tooManyRequests: the center holds 1 request, its limit") }, "\(o.warnings)")
        #expect(await center.pendingRequests().map(\.identifier) == ["every"])
    }

    @Test func aCenterRestoredWithMoreRequestsKeepsThemAll() async throws {
        let (center, clock) = try Self.center(maxRequests: 10)
        for k in 0..<5 { try await center.add(TriggerCenterTests.interval("r\(k)", 60)) }
        var tighter = CenterConfiguration()
        tighter.maxRequests = 2
        let restored = try TriggerCenter(restoring: await center.snapshot(), configuration: tighter, clock: clock)
        #expect(await restored.requestCount == 5)
        await #expect(throws: RequestError.self) { try await restored.add(TriggerCenterTests.interval("new", 60)) }
        clock.advance(to: Self.t0.addingTimeInterval(60))
        #expect(await restored.deliverDue().map(\.request.identifier) == (0..<5).map { "r\($0)" })
    }

    @Test(arguments: [0, -1, 100_000_001])
    func aBoundOutOfRangeIsRefused(_ n: Int) throws {
        var c = CenterConfiguration()
        c.maxRequests = n
        #expect(throws: CenterError.invalidConfiguration(field: "maxRequests", reason: "must be in 1...100000000, not \(n)")) {
            try c.validate()
        }
    }
}
