import Foundation
import TriggerKit

/// Every day at 08:30, in the zone the center's floating triggers follow. The reminder is in
/// the `REMINDER` category, so its user can cancel it.
func addPillsReminder(for device: String, to center: TriggerCenter) async throws {
    var morning = DateComponents()
    morning.hour = 8
    morning.minute = 30
    try await center.add(NotificationRequest(
        identifier: "pills",
        content: NotificationContent(title: "Take your pills", categoryIdentifier: "REMINDER"),
        trigger: .calendar(CalendarTrigger(dateMatching: morning, repeats: true)),
        device: device))
}
