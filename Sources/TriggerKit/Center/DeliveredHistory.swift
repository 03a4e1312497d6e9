import Foundation
import DequeModule

/// Delivered notifications kept per device, oldest first, at most `limit` per device (Apple's
/// notification center keeps a limited list too): when a device's list is full, its oldest
/// entry is dropped (and counted in ``dropped``).
///
/// Fires that concern no device (time triggers of shared requests) are kept under the key
/// `nil` with the same limit.
struct DeliveredHistory: Sendable {
    let limit: Int
    private var byDevice: [ExactKey?: Deque<DeliveredNotification>] = [:]
    /// Entries dropped because their device's list was full.
    private(set) var dropped = 0
    /// Entries held.
    private(set) var count = 0

    init(limit: Int) { self.limit = Swift.max(0, limit) }

    /// Adds one delivery; a full list drops its oldest first. O(1) amortised.
    mutating func append(_ d: DeliveredNotification) {
        guard limit > 0 else { dropped += 1; return }
        // One access to the device's list, mutated in place through the defaulted subscript
        // (no copy of the deque). With three lookups of the key per delivery, `append` had
        // 31 % of the samples of RestartBench's walk (24 deliveries a fix); one made that walk
        // 5 % faster.
        if Self.push(d, limit: limit, into: &byDevice[d.device.map(ExactKey.init), default: []]) {
            dropped += 1
        } else {
            count += 1
        }
    }

    /// Appends to a full list after dropping its oldest entry (and says so).
    @inline(__always)
    private static func push(_ d: DeliveredNotification, limit: Int, into list: inout Deque<DeliveredNotification>) -> Bool {
        let full = list.count == limit
        if full { list.removeFirst() }
        list.append(d)
        return full
    }

    /// Every entry, per device oldest first, devices in no particular order unless sorted
    /// by the caller. O(count).
    func all() -> [DeliveredNotification] {
        byDevice.values.flatMap { $0 }
    }

    /// Every entry in the order a restore must append them to hold the same lists: device by
    /// device (those concerning no device first, then by device id), each device's in the
    /// order they arrived. (Sorted by date, a full list restored kept other entries than the
    /// live one when deliveries arrived out of date order: a fix dated before a time fire
    /// already delivered. Found by a restore-equivalence fuzz.) O(count + devices log devices).
    func inArrivalOrder() -> [DeliveredNotification] {
        var out: [DeliveredNotification] = []
        out.reserveCapacity(count)
        if let shared = byDevice[nil] { out.append(contentsOf: shared) }
        for key in byDevice.keys.compactMap({ $0 }).sorted() { out.append(contentsOf: byDevice[key]!) }
        return out
    }

    /// One device's entries (`nil`: those concerning no device), oldest first.
    func entries(device: String?) -> [DeliveredNotification] {
        byDevice[device.map(ExactKey.init)].map(Array.init) ?? []
    }

    /// The request of the newest delivery of `identifier` that `device` was shown: its own
    /// and those concerning no device (a shared time trigger's); with no device, the newest
    /// to any device or to none. Among equal dates a device's own delivery counts as newer
    /// than a shared one, and among devices the greatest identifier (deliveries to several
    /// devices at one instant: the table's order decided, which differed between a center
    /// and its restored copy, found by a helper). A shared delivery was taken first whatever
    /// its date (and, with a device, the device's own first), so a request replaced under the
    /// same identifier was answered with the older one (found by a helper).
    /// O(entries of those lists).
    func latestRequest(identifier: String, device: String?) -> NotificationRequest? {
        let key = ExactKey(identifier)
        var best: (date: Date, device: ExactKey?, request: NotificationRequest)?
        func consider(_ list: Deque<DeliveredNotification>?, _ device: ExactKey?) {
            guard let d = list?.last(where: { ExactKey($0.request.identifier) == key }) else { return }
            if let b = best {
                guard d.date >= b.date else { return }
                if d.date == b.date {
                    // Equal dates: a device's over none, the greater device over the lesser.
                    guard let mine = device else { return }
                    if let theirs = b.device, mine <= theirs { return }
                }
            }
            best = (d.date, device, d.request)
        }
        if let device {
            let own = ExactKey(device)
            consider(byDevice[own], own)
            consider(byDevice[nil], nil)
        } else {
            for (device, list) in byDevice { consider(list, device) }
        }
        return best?.request
    }

    /// Whether a delivery to `device` (nil: to any) may have been dropped: a list it would be
    /// in (the device's own, or the one of deliveries that concern no device, which every
    /// device sees and all shared fires fill) is full.
    func mayHaveDropped(device: String?) -> Bool {
        guard limit > 0 else { return true }
        guard let device else { return byDevice.values.contains { $0.count >= limit } }
        return (byDevice[ExactKey(device)]?.count ?? 0) >= limit || (byDevice[nil]?.count ?? 0) >= limit
    }

    /// Removes the entries whose request identifier is in `ids` (every device). O(count).
    mutating func remove(identifiers ids: Set<ExactKey>) {
        for (key, list) in byDevice {
            let kept = list.filter { !ids.contains(ExactKey($0.request.identifier)) }
            count -= list.count - kept.count
            byDevice[key] = kept.isEmpty ? nil : Deque(kept)
        }
    }

    /// Removes one device's own entries (not those concerning no device, which every device
    /// sees). O(1) plus the list's release.
    mutating func removeAll(device: String) {
        if let list = byDevice.removeValue(forKey: ExactKey(device)) { count -= list.count }
    }

    /// Removes everything.
    mutating func removeAll() {
        byDevice.removeAll()
        count = 0
    }
}
