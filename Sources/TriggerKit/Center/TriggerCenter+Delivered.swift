import Foundation

// The delivered history: what fired, per device, within its bound.

extension TriggerCenter {
    /// Delivered notifications still in the history, oldest first; with `device`, those that
    /// device got: its own (at most ``CenterConfiguration/deliveredLimitPerDevice``) and the
    /// time fires of requests shared by every device.
    public func deliveredNotifications(device: String? = nil) -> [DeliveredNotification] {
        let all = device.map { history.entries(device: $0) + history.entries(device: nil) } ?? history.all()
        return all.sorted { $0.date != $1.date ? $0.date < $1.date : $0.id.sorts(before: $1.id) }
    }

    /// Removes delivered notifications of these requests (every device).
    public func removeDeliveredNotifications(withIdentifiers ids: [String]) {
        guard !isShutDown else { return }
        history.remove(identifiers: Set(ids.map(ExactKey.init)))
    }

    /// Removes one device's delivered notifications: its own list (what its location
    /// triggers and its own requests delivered to it). Deliveries of requests shared by every
    /// device (time triggers without a device) stay: they are every device's, and
    /// ``deliveredNotifications(device:)`` still lists them.
    ///
    /// - Complexity: O(1) plus releasing the device's list.
    public func removeAllDeliveredNotifications(device: String) {
        guard !isShutDown else { return }
        history.removeAll(device: device)
    }

    /// Empties the delivered history.
    public func removeAllDeliveredNotifications() {
        guard !isShutDown else { return }
        history.removeAll()
    }
}
