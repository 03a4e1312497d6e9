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
    }
}
