import Foundation
import Testing
import TriggerKit  // not @testable: only what a service sees, beside Foundation, unambiguous

/// The README's embedding snippet, compiled and run: a minimal service that imports
/// Foundation and TriggerKit together (`TriggerCenter` clashes with no Foundation name).
@Suite("Embedding example")
struct EmbeddingExampleTests {
    @Test func theReadmeSnippetRuns() async throws {
        // --- README snippet begins ---
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_770_000))  // WallClock() in production
        var configuration = CenterConfiguration()
        configuration.margin = 10                 // hysteresis, metres
        configuration.deliveredLimitPerDevice = 50
        let center = TriggerCenter(configuration: configuration, clock: clock)

        await center.setNotificationCategories([
            NotificationCategory(identifier: "REMINDER", actions: [
                NotificationAction(identifier: "cancel", title: "Stop reminding me", options: [.destructive], effect: .removeRequest),
            ])])
        try await center.add(NotificationRequest(
            identifier: "stretch",
            content: NotificationContent(title: "Stand up and stretch", categoryIdentifier: "REMINDER"),
            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)),
            device: "phone-1"))
        try await center.add(NotificationRequest(
            identifier: "office",
            content: NotificationContent(body: "Welcome to the office"),
            trigger: .location(LocationTrigger(region: .circular(CircularRegion(
                identifier: "hq", center: Coordinate(latitude: 40.7484, longitude: -73.9857), radius: 150)), repeats: true))))

        let feed = await center.deliveries()      // every delivery from now on, bounded buffer
        let service = Task { await center.run() } // fires time triggers as the clock reaches them

        clock.advance(by: 60)                      // one minute later: "stretch" fires
        var deliveries = feed.makeAsyncIterator()
        let first = await deliveries.next()
        _ = try await center.receive(LocationFix(device: "phone-1", date: clock.now, latitude: 40.75, longitude: -73.99))
        _ = await center.respond(NotificationResponse(requestIdentifier: "stretch", device: "phone-1", actionIdentifier: "cancel"))
        let next = await center.upcomingFires(limit: 10)
        await center.shutdown()
        await service.value
        // --- README snippet ends ---
        #expect(first?.request.identifier == "stretch")
        #expect(next.isEmpty)
        #expect(await center.pendingRequests().map(\.identifier) == ["office"])
    }
}
