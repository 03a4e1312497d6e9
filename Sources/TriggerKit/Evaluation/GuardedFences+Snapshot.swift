// The state of fences with rules as plain values: saved with the evaluator's snapshot,
// carried across a rebuild (control lines, the center's changes) by identifier.

/// What the fences with rules have learnt: per device its links (inside, dwell clock, a
/// shared one-shot's fire), its last fix time and position, and the fences that are done.
/// Windows and expiries are not saved: both follow from the stream time alone.
@_spi(Engine) public struct FenceSnapshot: Sendable, Hashable, Codable {
    /// Fence slots (identifier order of the requests with rules) that are done.
    public var doneFences: [Int32]
    public var devices: [Device]

    public struct Device: Sendable, Hashable, Codable {
        public var name: String
        public var lastSeen: Int64
        public var lastLatitude: Double?
        public var lastLongitude: Double?
        public var lastFixTime: Int64?
        public var links: [LinkState]
    }

    /// One (device, fence) link.
    public struct LinkState: Sendable, Hashable, Codable {
        public var fence: Int32
        public var inside: Bool
        public var since: Int64
        /// Dwell due date; `Int64.max` none pending, `Int64.min` fired for this stay.
        public var due: Int64
        public var firedOnce: Bool
    }
}

extension GuardedFences {
    func snapshot(deviceNames: [String]) -> FenceSnapshot {
        var devices: [FenceSnapshot.Device] = []
        for d in links.indices where lastSeen[d] != .min || !links[d].isEmpty {
            let f = lastFix[d]
            devices.append(FenceSnapshot.Device(
                name: deviceNames[d], lastSeen: lastSeen[d], lastLatitude: f?.latitude, lastLongitude: f?.longitude, lastFixTime: f?.t,
                // A done fence's links say nothing more; they are dropped when next walked (or,
                // for moves decided ahead, when next moved), so they are left out here: the
                // snapshot is the same whichever way the fixes were decided.
                links: links[d].filter { !gates[Int($0.fence)].done }
                    .map { FenceSnapshot.LinkState(fence: $0.fence, inside: $0.inside, since: $0.since, due: $0.due, firedOnce: $0.firedOnce) }))
        }
        return FenceSnapshot(doneFences: fences.indices.filter { gates[$0].done && !regionRefused(Int32($0)) }.map { Int32($0) },
                             devices: devices)
    }

    private func regionRefused(_ f: Int32) -> Bool { regions.invalid.contains { $0.slot == f } }

    /// Restores a snapshot (after ``start(addedAt:device:now:)``), keeping only the fences
    /// `map` gives a slot here (identity for a snapshot of the same requests; by identifier
    /// across a rebuild). Pending dwells are queued again.
    ///
    /// A fence `map` gives no slot here (a rebuild's request gone or fresh) is skipped; a
    /// snapshot naming fences these requests do not have is refused before (``StreamEvaluator/restore(_:)``).
    func restore(_ snap: FenceSnapshot, device: (String) -> Int32, map mapped: (Int32) -> Int32?) {
        let count = fences.count
        func map(_ f: Int32) -> Int32? {
            guard let n = mapped(f), n >= 0, Int(n) < count else { return nil }
            return n
        }
        for f in snap.doneFences { if let n = map(f) { gates[Int(n)].done = true } }
        for dev in snap.devices {
            let d = device(dev.name)
            ensure(device: d)
            lastSeen[Int(d)] = dev.lastSeen
            if let lat = dev.lastLatitude, let lon = dev.lastLongitude, let t = dev.lastFixTime {
                lastFix[Int(d)] = LastFix(latitude: lat, longitude: lon, t: t)
            }
            var restored: [Link] = []
            for l in dev.links {
                guard let n = map(l.fence) else { continue }
                restored.append(Link(fence: n, inside: l.inside, since: l.since, due: l.due, firedOnce: l.firedOnce))
                if l.due != Self.noDwell && l.due != Self.dwellFired {
                    timers.insert(Timer(date: l.due, phase: Timer.dwell, fence: n, device: d))
                }
            }
            // Sorted by fence, each fence once (a snapshot that lists one twice keeps the first:
            // ties are ordered by position, not left to the sort).
            let order = restored.indices.sorted { (restored[$0].fence, $0) < (restored[$1].fence, $1) }
            var unique: [Link] = []
            for i in order where unique.last?.fence != restored[i].fence { unique.append(restored[i]) }
            links[Int(d)] = unique
            quiet[Int(d)].forget()
        }
    }
}
