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

    /// The request of the newest delivery of `identifier` to `device`, else of the newest
    /// one concerning no device (a shared time trigger's); with no device, of the newest to
    /// any device, of the greatest device identifier among equal dates (deliveries to
    /// several devices at one instant: the table's order decided, which differed between a
    /// center and its restored copy, found by a helper). O(entries of those lists; every
    /// entry without a device).
    func latestRequest(identifier: String, device: String?) -> NotificationRequest? {
        let key = ExactKey(identifier)
        func newest(in list: Deque<DeliveredNotification>?) -> DeliveredNotification? {
            list?.last { ExactKey($0.request.identifier) == key }
        }
        if let device, let d = newest(in: byDevice[ExactKey(device)]) { return d.request }
        if let d = newest(in: byDevice[nil]) { return d.request }
        guard device == nil else { return nil }
        var best: (date: Date, device: ExactKey, request: NotificationRequest)?
        for case let (device?, list) in byDevice {
            guard let d = newest(in: list) else { continue }
            if let b = best, (d.date, device) <= (b.date, b.device) { continue }
            best = (d.date, device, d.request)
        }
        return best?.request
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
