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
        let center = try TriggerCenter(configuration: configuration, clock: clock)

        try await center.setNotificationCategories([
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
        let first = await deliveries.next()        // the "stretch" delivery
        _ = try await center.receive(LocationFix(device: "phone-1", date: clock.now, latitude: 40.75, longitude: -73.99))
        _ = await center.respond(NotificationResponse(requestIdentifier: "stretch", device: "phone-1", actionIdentifier: "cancel"))
        let next = await center.upcomingFires(limit: 10)  // empty: "stretch" was cancelled
        print(first?.request.identifier ?? "-", next.count)
        await center.shutdown()
        await service.value
        // --- README snippet ends ---
        #expect(first?.request.identifier == "stretch")
        #expect(next.isEmpty)
        #expect(await center.pendingRequests().map(\.identifier) == ["office"])
    }
}

// --- EmbeddingTheCenter.md's own-thread snippet: the executor ---
final class QueueExecutor: TaskExecutor, @unchecked Sendable {
    let queue: DispatchQueue
    init(label: String) { queue = DispatchQueue(label: label) }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job), executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` on this queue, and any default actor it calls (a center) with it.
    func run<T: Sendable, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        try await withTaskExecutorPreference(self) { () async throws(E) -> T in
            await Task.yield()  // onto the queue before `body` enters the center
            return try await body()
        }
    }
}

/// Marks the queue the snippet's center should run on.
private let queueMark = DispatchSpecificKey<String>()

@Suite("Embedding: a center on its own thread")
struct OwnThreadExampleTests {
    /// The guide's snippet compiles and does what it says: the center's code runs on the
    /// preferred queue, and without the preference it does not.
    @Test func theGuidesSnippetRunsTheCenterOnItsQueue() async throws {
        let center = try TriggerCenter(configuration: CenterConfiguration(), clock: ManualClock(Date(timeIntervalSince1970: 1_795_770_000)))
        let fix = LocationFix(device: "phone-1", date: Date(timeIntervalSince1970: 1_795_770_000), latitude: 40.75, longitude: -73.99)
        // --- snippet begins ---
        let thread = QueueExecutor(label: "center.acme")
        let fired = try await thread.run { try await center.receive(fix) }
        // --- snippet ends ---
        #expect(fired.isEmpty)
        thread.queue.setSpecific(key: queueMark, value: "center.acme")
        let there = await thread.run { await center.atomically { _ in DispatchQueue.getSpecific(key: queueMark) } }
        let elsewhere = await center.atomically { _ in DispatchQueue.getSpecific(key: queueMark) }
        #expect(there == "center.acme")
        #expect(elsewhere == nil)
    }
}
