import Foundation

/// Why ``StreamEvaluator/restore(_:)`` refused a snapshot. Nothing was restored then.
@_spi(Engine) public enum SnapshotRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The snapshot was taken with other requests (their fingerprints differ).
    case otherRequests
    /// The snapshot is damaged: a value no evaluator writes (a date outside years 1-9999, a
    /// slot these requests do not have, a negative count, a coordinate off the globe).
    /// `reason` names the field and the value.
    case damaged(reason: String)

    public var description: String {
        switch self {
        case .otherRequests: "the saved state was made with different requests"
        case .damaged(let reason): "the saved state is damaged: \(reason)"
        }
    }
}

extension StreamEvaluator {
    /// What is wrong with `snap` for these requests, or `nil` when no value is one an
    /// evaluator over them never writes (dates, slots, fences, counts, coordinates and dwell
    /// dates are checked; a value that is only wrong, such as another valid date, cannot be
    /// told from a right one). A restore checks this first: a damaged file
    /// (a flipped byte, a hand edit) must be refused, not trap later in date arithmetic, an
    /// array index or a counter that overflows.
    ///
    /// - Complexity: O(size of the snapshot).
    func damage(in snap: EvaluatorSnapshot) -> String? {
        let slots = 0..<Int32(truncatingIfNeeded: locations.count)
        func date(_ v: Int64, _ field: @autoclosure () -> String) -> String? { RequestLimits.damagedDate(v, field()) }
        // A time a device or fence has not had yet is Int64.min.
        func dateOrNever(_ v: Int64, _ field: @autoclosure () -> String) -> String? {
            v == .min ? nil : date(v, field())
        }
        func slotList(_ xs: [Int32], _ field: @autoclosure () -> String) -> String? {
            xs.first { !slots.contains($0) }.map { "\(field()) names location slot \($0) of \(slots.count)" }
        }
        if let t = snap.streamTime, let why = date(t, "streamTime") { return why }
        if let t = snap.defaultAddedAt, let why = date(t, "defaultAddedAt") { return why }
        let s = snap.stats
        for (name, count) in [("lines", s.lines), ("fixes", s.fixes), ("stale", s.stale), ("skipped", s.skipped),
                              ("inaccurate", s.inaccurate), ("errors", s.errors), ("fires", s.fires),
                              ("suppressed", s.suppressed), ("ignoredAccuracy", s.ignoredAccuracy)]
        where !Self.countRange.contains(count) {
            return "stats.\(name) is \(count)"
        }
        // One cursor per time trigger: the schedule numbers them in request order.
        let timeSlots = 0..<Int32(truncatingIfNeeded: requests.reduce(0) { n, r in
            if case .location = r.trigger { return n }
            return n + 1
        })
        var queued = Set<Int32>()
        for f in snap.queuedFires {
            if let why = date(f.date, "the queued fire of slot \(f.slot)") { return why }
            // (A slot past the end was dropped, and one given twice fired twice.)
            guard timeSlots.contains(f.slot), queued.insert(f.slot).inserted else {
                return "queuedFires names time slot \(f.slot) of \(timeSlots.count)\(timeSlots.contains(f.slot) ? " twice" : "")"
            }
        }
        if let why = slotList(snap.doneLocationSlots, "doneLocationSlots") { return why }
        // A request scoped to another device (a flipped byte in a name moved its state there).
        func scopedElsewhere(_ request: Int32, _ device: String) -> String? {
            guard let own = requests[Int(request)].device, ExactKey(own) != ExactKey(device) else { return nil }
            return own
        }
        for d in snap.devices {
            let field = "device \"\(d.name)\""
            if let why = dateOrNever(d.lastAccepted, "\(field) lastAccepted") ?? dateOrNever(d.lastUsed, "\(field) lastUsed")
                ?? slotList(d.inside, "\(field) inside") ?? slotList(d.pendingSlots, "\(field) pendingSlots")
                ?? slotList(d.firedOnce, "\(field) firedOnce") {
                return why
            }
            for slot in d.inside + d.pendingSlots {
                if let own = scopedElsewhere(locations[Int(slot)].request, d.name) {
                    return "\(field) names location slot \(slot), a request of device \"\(own)\""
                }
            }
            guard d.pendingSlots.count == d.pendingSince.count else {
                return "\(field) has \(d.pendingSlots.count) pending slots and \(d.pendingSince.count) dates"
            }
            for since in d.pendingSince {
                if let why = date(since, "\(field) pendingSince") { return why }
            }
        }
        guard let fences = snap.fences else { return nil }
        let fenceSlots = 0..<Int32(truncatingIfNeeded: guarded?.fences.count ?? 0)
        if let f = fences.doneFences.first(where: { !fenceSlots.contains($0) }) {
            return "doneFences names fence \(f) of \(fenceSlots.count)"
        }
        for d in fences.devices {
            let field = "fence device \"\(d.name)\""
            if let why = dateOrNever(d.lastSeen, "\(field) lastSeen") { return why }
            if let t = d.lastFixTime, let why = date(t, "\(field) lastFixTime") { return why }
            if let lat = d.lastLatitude, !(lat.isFinite && (-90...90).contains(lat)) { return "\(field) lastLatitude is \(lat)" }
            if let lon = d.lastLongitude, !(lon.isFinite && (-180...180).contains(lon)) { return "\(field) lastLongitude is \(lon)" }
            for l in d.links {
                guard fenceSlots.contains(l.fence) else { return "\(field) links fence \(l.fence) of \(fenceSlots.count)" }
                if let g = guarded, let own = scopedElsewhere(g.fences[Int(l.fence)].request, d.name) {
                    return "\(field) links fence \(l.fence), a request of device \"\(own)\""
                }
                if let why = date(l.since, "\(field) since (fence \(l.fence))") { return why }
                // A dwell due date, or none pending (max), or fired for this stay (min); a
                // due date only on a fence with a dwell rule (else it fired a dwell event for
                // a request without one).
                if l.due != GuardedFences.noDwell, l.due != GuardedFences.dwellFired {
                    if let why = date(l.due, "\(field) due (fence \(l.fence))") { return why }
                    if guarded?.fences[Int(l.fence)].dwell == nil { return "\(field) due (fence \(l.fence)) on a fence without dwell" }
                }
            }
        }
        return nil
    }

    /// The range of every saved count: a count no run reaches (2^53 lines at a billion a
    /// second take 104 days) is damage, and a count near `Int.max` would trap when increased.
    static let countRange = 0...(1 << 53)
}
