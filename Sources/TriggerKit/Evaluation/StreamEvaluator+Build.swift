// The evaluator's location slots, built from its requests.

extension StreamEvaluator {
    /// The plain location requests (location triggers without fence rules) in identifier
    /// order, slot k the k-th: their entries and their regions by slot, and each request's
    /// ``LocationFlags`` in file order.
    ///
    /// Each request is read once, in file order, into its flags and (scattered to its slot)
    /// its region: the slots follow the identifiers' order, and reading the requests in that
    /// order (three passes) was a cache miss per request and pass when identifiers are not in
    /// file order (a tenth of loading a million with random UUIDs).
    ///
    /// - Complexity: O(n) for n requests, on every core.
    static func locationSlots(_ requests: [NotificationRequest], byRank: [Int32])
        -> (flags: [UInt8], entries: [LocationEntry], regions: [Region]) {
        let flags = ParallelChunks.map(requests.count) { range in range.map { LocationFlags(requests[$0]).rawValue } }
        // Fences with rules are followed by ``GuardedFences``, not the main path.
        let locationRequests = ParallelChunks.map(byRank.count) { range in
            byRank[range].lazy.map(Int.init).filter { LocationFlags(rawValue: flags[$0]).contains(.plain) }
        }
        let entries: [LocationEntry] = ParallelChunks.map(locationRequests.count) { range in
            range.map { k in
                let f = LocationFlags(rawValue: flags[locationRequests[k]])
                return LocationEntry(request: Int32(locationRequests[k]), device: -1, addedAt: .min, notifyOnEntry: f.contains(.onEntry),
                                     notifyOnExit: f.contains(.onExit), repeats: f.contains(.repeats), ownAddedAt: f.contains(.ownAddedAt))
            }
        }
        let slots: [Int32] = {
            var slotOfRequest = [Int32](repeating: -1, count: requests.count)
            for (k, r) in locationRequests.enumerated() { slotOfRequest[r] = Int32(k) }
            return slotOfRequest
        }()
        let regions = [Region](unsafeUninitializedCapacity: locationRequests.count) { out, initialized in
            // Each slot is written by the one chunk that holds its request.
            nonisolated(unsafe) let out = out
            ParallelChunks.forEach(requests.count) { _, range in
                for r in range where slots[r] >= 0 {
                    guard case .location(let t) = requests[r].trigger else { preconditionFailure("a location request") }
                    (out.baseAddress! + Int(slots[r])).initialize(to: t.region)
                }
            }
            initialized = locationRequests.count
        }
        return (flags, entries, regions)
    }
}

/// What the evaluator's build needs of a request's trigger, in a byte (read once per request,
/// in file order).
struct LocationFlags: OptionSet {
    let rawValue: UInt8
    /// A location trigger without fence rules (the main path's).
    static let plain = LocationFlags(rawValue: 1)
    static let onEntry = LocationFlags(rawValue: 2)
    static let onExit = LocationFlags(rawValue: 4)
    static let repeats = LocationFlags(rawValue: 8)
    /// Scoped to a device.
    static let scoped = LocationFlags(rawValue: 16)
    /// With its own `addedAt`.
    static let ownAddedAt = LocationFlags(rawValue: 32)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ request: NotificationRequest) {
        guard case .location(let t) = request.trigger, !t.hasRules else { self = []; return }
        self = .plain
        if t.region.notifyOnEntry { insert(.onEntry) }
        if t.region.notifyOnExit { insert(.onExit) }
        if t.repeats { insert(.repeats) }
        if request.device != nil { insert(.scoped) }
        if request.addedAt != nil { insert(.ownAddedAt) }
    }
}
