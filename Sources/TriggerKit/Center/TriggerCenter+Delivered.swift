import Foundation

// The delivered history: what fired, per device, within its bound.

extension TriggerCenter {
    /// Delivered notifications still in the history, oldest first, and at one instant by
    /// identifier, then device, then event id (as `triggerkit run` orders one line's location
    /// events; a step's time fires were delivered before its location events, which this
    /// order does not keep); with `device`, those that device got: its own (at most
    /// ``CenterConfiguration/deliveredLimitPerDevice``) and the time fires of requests shared
    /// by every device.
    ///
    /// - Complexity: O(n log n) for the n listed.
    public func deliveredNotifications(device: String? = nil) -> [DeliveredNotification] {
        let all = device.map { history.entries(device: $0) + history.entries(device: nil) } ?? history.all()
        // (At one instant by event id alone, the order was the ids' hashes': `GET
        // /v1/delivered` listed b, a, c, d where the stream had a, b, c, d; found by a helper.
        // The history keeps no delivery sequence across devices, so not the stream's order.)
        return all.sorted { a, b in
            if a.date != b.date { return a.date < b.date }
            let ka = ExactKey(a.shared.value.identifier), kb = ExactKey(b.shared.value.identifier)
            if ka != kb { return ka < kb }
            if a.device != b.device { return (a.device.map(ExactKey.init) ?? ExactKey("")) < (b.device.map(ExactKey.init) ?? ExactKey("")) }
            return a.id.sorts(before: b.id)
        }
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
