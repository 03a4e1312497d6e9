import Foundation
import TriggerKit

@main
struct ReminderService {
    static func main() async throws {
        // A clock that moves only when told to, so this demo replays a morning in a moment.
        // A real service passes WallClock() instead.
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_417_200))  // 2026-11-23 07:00 UTC

        var configuration = CenterConfiguration()
        configuration.margin = 10  // metres of hysteresis around every circle
        configuration.floatingTimeZone = TimeZone(identifier: "Europe/Paris")!
        let center = TriggerCenter(configuration: configuration, clock: clock)

        await center.setNotificationCategories([
            NotificationCategory(identifier: "REMINDER", actions: [
                NotificationAction(identifier: "cancel", title: "Stop reminding me",
                                   options: [.destructive], effect: .removeRequest),
            ]),
        ])

        // Every day at 08:30, in the zone the center's floating triggers follow.
        var morning = DateComponents()
        morning.hour = 8
        morning.minute = 30
        try await center.add(NotificationRequest(
            identifier: "pills",
            content: NotificationContent(title: "Take your pills", categoryIdentifier: "REMINDER"),
            trigger: .calendar(CalendarTrigger(dateMatching: morning, repeats: true)),
            device: "phone-1"))

        // Once, when phone-1 arrives at the bakery.
        let bakery = CircularRegion(
            identifier: "bakery",
            center: Coordinate(latitude: 48.8530, longitude: 2.3499),
            radius: 60, notifyOnEntry: true, notifyOnExit: false)
        try await center.add(NotificationRequest(
            identifier: "bread",
            content: NotificationContent(title: "Buy bread", body: "You are passing the bakery"),
            trigger: .location(LocationTrigger(region: .circular(bakery), repeats: false)),
            device: "phone-1"))

        // Stands in for the push service and the phone: what the sender pushes, the phone shows.
        let (phone, push) = AsyncStream.makeStream(of: DeliveredNotification.self)
        var shown = phone.makeAsyncIterator()

        // The sender: every delivery, in order, for as long as the center runs.
        let feed = await center.deliveries()
        let sender = Task {
            for await delivery in feed {
                print("\(delivery.date.ISO8601Format())  push to \(delivery.device ?? "everyone"):",
                      delivery.request.content.title ?? "", "[\(delivery.eventId)]")
                push.yield(delivery)
            }
            push.finish()
        }

        // Fire time-based triggers as the clock reaches them.
        let service = Task { await center.run() }

        // 08:30 in Paris: "pills" fires, and the phone shows it.
        clock.advance(by: 30 * 60)
        guard let pills = await shown.next() else { return }

        // The user taps "Stop reminding me".
        await handle(NotificationResponse(requestIdentifier: pills.request.identifier,
                                          device: pills.device, actionIdentifier: "cancel"),
                     in: center)

        // The phone reports where it is: near the Hôtel de Ville, then at the bakery.
        try await center.receive(LocationFix(device: "phone-1", date: clock.now,
                                             latitude: 48.8566, longitude: 2.3522, horizontalAccuracy: 8))
        clock.advance(by: 10 * 60)
        try await center.receive(LocationFix(device: "phone-1", date: clock.now,
                                             latitude: 48.8531, longitude: 2.3498, horizontalAccuracy: 8))
        _ = await shown.next()

        // A day later nothing fires: the pills reminder was cancelled, the bread one is done.
        clock.advance(by: 24 * 3600)
        await center.shutdown()  // run() returns and the feed finishes
        await service.value
        await sender.value
        print("pending:", await center.pendingRequests().map(\.identifier))
    }

    /// What the service does when a device reports that its user chose an action.
    static func handle(_ response: NotificationResponse, in center: TriggerCenter) async {
        let outcome = await center.respond(response)
        print("\(response.requestIdentifier): \"\(response.actionIdentifier)\" applied: \(outcome.applied)")
        for warning in outcome.warnings {
            print("warning:", warning)
        }
    }
}
