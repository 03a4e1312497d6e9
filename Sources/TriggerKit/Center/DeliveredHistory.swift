/// Delivered notifications kept per device, oldest first, at most `limit` per device (Apple's
/// notification center keeps a limited list too): when a device's list is full, its oldest
/// entry is dropped (and counted in ``dropped``).
///
/// Fires that concern no device (time triggers of shared requests) are kept under the key
/// `nil` with the same limit.
struct DeliveredHistory: Sendable {
    let limit: Int
    private var byDevice: [ExactKey?: Ring] = [:]
    /// Entries dropped because their device's list was full.
    private(set) var dropped = 0
    /// Entries held.
    private(set) var count = 0

    init(limit: Int) { self.limit = Swift.max(0, limit) }

    /// A fixed-capacity ring of one device's entries.
    private struct Ring: Sendable {
        var items: [DeliveredNotification] = []
        var head = 0  // index of the oldest once the ring is full

        /// Appends; when full, overwrites the oldest. Returns whether the ring grew.
        mutating func push(_ d: DeliveredNotification, limit: Int) -> Bool {
            if items.count < limit {
                items.append(d)
                return true
            }
            items[head] = d
            head = (head + 1) % limit
            return false
        }

        func ordered() -> [DeliveredNotification] {
            Array(items[head...] + items[..<head])
        }
    }

    /// Adds one delivery. O(1) amortised.
    mutating func append(_ d: DeliveredNotification) {
        guard limit > 0 else { dropped += 1; return }
        // Mutated in place through the defaulted subscript (no copy of the ring).
        if byDevice[d.device.map(ExactKey.init), default: Ring()].push(d, limit: limit) {
            count += 1
        } else {
            dropped += 1
        }
    }

    /// Every entry, per device oldest first, devices in no particular order unless sorted
    /// by the caller. O(count).
    func all() -> [DeliveredNotification] {
        byDevice.values.flatMap { $0.ordered() }
    }

    /// One device's entries (`nil`: those concerning no device), oldest first.
    func entries(device: String?) -> [DeliveredNotification] {
        byDevice[device.map(ExactKey.init)]?.ordered() ?? []
    }

    /// Removes the entries whose request identifier is in `ids` (every device). O(count).
    mutating func remove(identifiers ids: Set<ExactKey>) {
        for (key, ring) in byDevice {
            let kept = ring.ordered().filter { !ids.contains(ExactKey($0.request.identifier)) }
            count -= ring.items.count - kept.count
            byDevice[key] = kept.isEmpty ? nil : Ring(items: kept, head: 0)
        }
    }

    /// Removes everything.
    mutating func removeAll() {
        byDevice.removeAll()
        count = 0
    }
}
