import TriggerKit

/// Registers the categories the reminders name. A `REMINDER` offers one action,
/// "Stop reminding me", which removes the request: a repeating reminder stops.
func registerCategories(on center: TriggerCenter) async throws {
    try await center.setNotificationCategories([
        NotificationCategory(identifier: "REMINDER", actions: [
            NotificationAction(identifier: "cancel", title: "Stop reminding me",
                               options: [.destructive], effect: .removeRequest),
        ]),
    ])
}
