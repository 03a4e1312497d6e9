import Foundation
import TriggerKit

@main
struct ReminderService {
    static func main() async throws {
        // A clock that moves only when told to, so this demo replays a morning in a moment.
        // A real service passes WallClock() instead.
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_417_200))  // 2026-11-23 07:00 UTC
        let center = try makeCenter(clock: clock)
        try await registerCategories(on: center)
        try await addPillsReminder(for: "phone-1", to: center)
        try await addBreadReminder(for: "phone-1", to: center)

        // Stands in for the push service and the phone: what the sender pushes, the phone shows.
        let (phone, push) = AsyncStream.makeStream(of: DeliveredNotification.self)
        var shown = phone.makeAsyncIterator()
        let sender = await startSender(for: center, push: push)

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
        await handle(LocationFix(device: "phone-1", date: clock.now, latitude: 48.8566,
                                 longitude: 2.3522, horizontalAccuracy: 8), in: center)
        clock.advance(by: 10 * 60)
        await handle(LocationFix(device: "phone-1", date: clock.now, latitude: 48.8531,
                                 longitude: 2.3498, horizontalAccuracy: 8), in: center)
        _ = await shown.next()

        // A day later nothing fires: the pills reminder was cancelled, the bread one is done.
        clock.advance(by: 24 * 3600)
        await center.shutdown()  // run() returns and the feed finishes
        await service.value
        await sender.value
        print("pending:", await center.pendingRequests().map(\.identifier))
    }
}
