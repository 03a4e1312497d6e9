import TriggerKit

/// Once, when the device arrives at the bakery.
func addBreadReminder(for device: String, to center: TriggerCenter) async throws {
    let bakery = CircularRegion(
        identifier: "bakery",
        center: Coordinate(latitude: 48.8530, longitude: 2.3499),
        radius: 60, notifyOnEntry: true, notifyOnExit: false)
    try await center.add(NotificationRequest(
        identifier: "bread",
        content: NotificationContent(title: "Buy bread", body: "You are passing the bakery"),
        trigger: .location(LocationTrigger(region: .circular(bakery), repeats: false)),
        device: device))
}
