import Foundation
@_spi(Engine) extension StreamEvaluator {
    /// Whether each request (by position) is still pending: a time trigger while it has a
    /// next fire (all of them before the stream starts), a location trigger unless it was
    /// refused or is a device-scoped one-shot that fired. A shared one-shot stays pending:
    /// it fires once per device. O(requests).
    public func pendingFlags() -> [Bool] {
        var flags = [Bool](repeating: true, count: requests.count)
        if let s = schedule {
            var queued = [Bool](repeating: false, count: s.entries.count)
            for f in s.queuedFires { queued[Int(f.slot)] = true }
            for (slot, e) in s.entries.enumerated() where !queued[slot] || !e.live { flags[Int(e.request)] = false }
        }
        for l in locations where l.done { flags[Int(l.request)] = false }
        if let g = guarded {
            for (f, gate) in g.gates.enumerated() where gate.done { flags[Int(g.fences[f].request)] = false }
        }
        return flags
    }

    /// Location slot of each location request, by request position (-1 for other requests).
    package func locationSlotsByRequest() -> [Int32] {
        var out = [Int32](repeating: -1, count: requests.count)
        for (slot, l) in locations.enumerated() { out[Int(l.request)] = Int32(slot) }
        return out
    }

    /// Whether a location slot is finished (a device-scoped one-shot that fired).
    package func isLocationDone(_ slot: Int32) -> Bool { locations[Int(slot)].done }

    // MARK: changes in place (the live center)

    /// Adds a time-based request (calendar, interval, immediate; `addedAt` set) in place:
    /// appended to the requests and the schedule, and its `expiresAt` to the clock of the
    /// fences with rules. Returns its request index, or nil when the request is not
    /// time-based, the stream has not started, or it has an `expiresAt` and there is no such
    /// clock yet (then rebuild instead: the build makes one).
    /// - Complexity: O(log n) plus one next-date computation; with an `expiresAt`, O(e) for
    ///   e expiries pending (a move of memory, not a rebuild).
    func appendTimeRequest(_ r: NotificationRequest) -> Int32? {
        guard schedule != nil, let added = r.addedAt, canAppendExpiry(of: r),
              let rule = TimeRule(r.trigger, addedAt: Timestamp.millis(added), floatingTimeZone: options.floatingTimeZone)
        else { return nil }
        let index = Int32(requests.count)
        requests.append(r)
        contentWants.append(Self.contentWant(r.content))
        let expires = r.expiresAt.flatMap(RequestLimits.millis)
        schedule?.append(request: index, rule: rule, expiresAt: expires ?? .max)
        if let expires { guarded?.appendExpiry(request: index, at: expires) }
        return index
    }

    /// Whether a request's `expiresAt` (if any) can be kept in place: by the clock of the
    /// fences with rules, once there is one and it has started. Each add of a request with an
    /// `expiresAt` rebuilt the evaluator (2 s per add at 200,000 requests; found by a helper).
    private func canAppendExpiry(of r: NotificationRequest) -> Bool {
        r.expiresAt == nil || (guarded?.started == true && r.expiresAt.flatMap(RequestLimits.millis) != nil)
    }

    /// Adds a location request (`addedAt` set) in place: appended to the requests, the
    /// location slots and the region index (its overlay). Returns its request index, or nil
    /// when the stream has not started or the region index refuses the region (then rebuild
    /// instead, which reports the refusal).
    ///
    /// Devices' neighbourhoods built before the add are no longer trusted (``regionEpoch``),
    /// and a device skips no fix until one of its fixes reaches the request's `addedAt`, so
    /// the request's silent initial state is set by the first fix at or after it, as in a
    /// fresh build. Fires of one fix stay in identifier order (see ``process(device:t:latitude:longitude:accuracy:into:)``).
    /// - Complexity: O(1) amortised (a few grid cells); a polygon adds GEOS preparation.
    ///
    /// `validated`: the request passed the one validator (the live center's adds have), so
    /// its polygon's validity is not checked again.
    func appendLocationRequest(_ r: NotificationRequest, validated: Bool) -> Int32? {
        if case .location(let t) = r.trigger, t.hasRules { return appendFenceRequest(r, t, validated: validated) }
        guard schedule != nil, let added = r.addedAt, canAppendExpiry(of: r), case .location(let t) = r.trigger, !t.hasRules,
              let (_, box, level) = try? regionIndex.appendReturningBox(t.region, validated: validated)
        else { return nil }
        // Only the tiles the region overlaps change: devices in the others keep theirs.
        tileCache.drop(overlapping: box, storedAt: level)
        let index = Int32(requests.count)
        let addedAt = Timestamp.millis(added)
        requests.append(r)
        contentWants.append(Self.contentWant(r.content))
        let slot = Int32(locations.count)
        locations.append(LocationEntry(request: index, device: r.device.map { device(named: $0) } ?? -1, addedAt: addedAt,
                                       notifyOnEntry: t.region.notifyOnEntry, notifyOnExit: t.region.notifyOnExit,
                                       repeats: t.repeats, ownAddedAt: true))
        if !locationSlotIndex.isEmpty {
            while locationSlotIndex.count < requests.count { locationSlotIndex.append(-1) }
            locationSlotIndex[Int(index)] = slot
        }
        regionEpoch &+= 1
        appendedLocationAddedAt = Swift.max(appendedLocationAddedAt, addedAt)
        if let expires = r.expiresAt.flatMap(RequestLimits.millis) { guarded?.appendExpiry(request: index, at: expires) }
        return index
    }

    /// Adds a location request with fence rules (`addedAt` set) in place: appended to the
    /// requests and to the fences with rules (``GuardedFences/append(_:request:addedAt:device:expiresAt:now:floatingTimeZone:validated:)``).
    /// Nil where only a rebuild can take it: no fence with rules is live yet, the stream has
    /// not started, or the region is refused. (Each such add rebuilt the evaluator: about 1 s
    /// an add at 200,000 requests held.)
    /// - Complexity: O(cells of its box); a polygon adds GEOS preparation.
    private func appendFenceRequest(_ r: NotificationRequest, _ t: LocationTrigger, validated: Bool) -> Int32? {
        guard schedule != nil, let g = guarded, let added = r.addedAt, let defaultAdded = defaultAddedAt else { return nil }
        let expiry = r.expiresAt.flatMap(RequestLimits.millis)
        if r.expiresAt != nil && expiry == nil { return nil }
        let index = Int32(requests.count)
        // The device is numbered only once the fence is taken (a refused one leaves no trace).
        let device = r.device.map { deviceIndex[ExactKey($0)] ?? Int32(deviceNames.count) } ?? -1
        guard g.append(t, request: index, addedAt: Timestamp.millis(added), device: device, expiresAt: expiry,
                       now: streamTime ?? defaultAdded, floatingTimeZone: options.floatingTimeZone, validated: validated)
        else { return nil }
        if let name = r.device { _ = self.device(named: name) }
        requests.append(r)
        contentWants.append(Self.contentWant(r.content))
        return index
    }

    /// Removes a request in place: its time trigger's queued fire is dropped, its location
    /// slot never fires again (device states forget it at their next step). O(log n) for a
    /// time trigger; O(1) for a location one once ``locationSlotIndex`` is built (O(n), once).
    func kill(request index: Int32) {
        if let g = guarded, Int(index) < g.fenceOfRequest.count, g.fenceOfRequest[Int(index)] >= 0 {
            g.remove(Int(g.fenceOfRequest[Int(index)]))
            return
        }
        if let slot = schedule?.slot(ofRequest: index) {
            schedule?.kill(slot: slot)
            return
        }
        if locationSlotIndex.isEmpty && !locations.isEmpty { locationSlotIndex = locationSlotsByRequest() }
        if Int(index) < locationSlotIndex.count, locationSlotIndex[Int(index)] >= 0 {
            locations[Int(locationSlotIndex[Int(index)])].done = true
            locations[Int(locationSlotIndex[Int(index)])].removed = true
        }
    }

    /// Reserves room for `extra` appended requests, so the appends after a rebuild do not
    /// reallocate (moving 100,000 requests took 13 ms: the latency of one change).
    func reserveForAppends(_ extra: Int) {
        requests.reserveCapacity(requests.count + extra)
        contentWants.reserveCapacity(contentWants.count + extra)
        schedule?.reserveCapacity(extra)
    }
}
