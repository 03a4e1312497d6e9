@_spi(Engine) extension StreamEvaluator {
    /// One fix: staleness, accuracy, then the device's region states.
    func process(_ fix: Fix, into events: inout [FiredEvent]) {
        stats.fixes += 1
        if let acc = fix.accuracy, acc < 0 {
            stats.skipped += 1
            return
        }
        let d = device(named: fix.device)
        process(device: d, t: fix.t, latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.accuracy, into: &events)
    }

    /// A valid fix of device `d` (counted in `stats.fixes`, accuracy not negative).
    func process(device d: Int32, t: Int64, latitude: Double, longitude: Double, accuracy: Double?,
                 into events: inout [FiredEvent]) {
        if t < devices[Int(d)].lastAccepted {
            stats.stale += 1
            return
        }
        devices[Int(d)].lastAccepted = t
        markChanged(d)
        if let limit = options.maxAccuracy, let acc = accuracy, acc > limit {
            stats.inaccurate += 1
            return
        }
        if let g = guarded, !g.fences.isEmpty {
            let first = events.count
            let n = guardedFix(g, device: d, t: t, latitude: latitude, longitude: longitude, accuracy: accuracy, into: &events)
            process(main: d, t: t, latitude: latitude, longitude: longitude, into: &events)
            // One line's location events in identifier order; within a request a
            // pass-through's enter (earlier, or at the same millisecond) before its exit.
            // (Fences appended in place have slots out of identifier order: their events
            // alone need it too.)
            if n > 0 && events.count - first > n || n > 1 && g.hasAppendedFences {
                events[first...].sort { a, b in
                    let ka = ExactKey(requests[Int(a.request)].identifier), kb = ExactKey(requests[Int(b.request)].identifier)
                    if ka != kb { return ka < kb }
                    if a.date != b.date { return a.date < b.date }
                    return a.crossing == .enter && b.crossing != .enter
                }
            }
            return
        }
        process(main: d, t: t, latitude: latitude, longitude: longitude, into: &events)
    }

    /// The main path of a used fix: the device's regions without rules.
    private func process(main d: Int32, t: Int64, latitude: Double, longitude: Double, into events: inout [FiredEvent]) {
        let fix = (t: t, latitude: latitude, longitude: longitude)
        let dd = Int(d)
        var inNeighbourhood = false, decidedAhead = false
        var aheadSlice: UnsafeBufferPointer<RegionHit>?
        if let g = lookaheadGeometry {
            // Decided ahead (``FixLookahead``): its `same` and `delta` hold for this device
            // only when it compared this fix with the very fix used last here.
            lookaheadGeometry = nil
            decidedAhead = true
            let chained = g.previous == devices[dd].lastSequence
            devices[dd].lastSequence = g.sequence
            if chained, g.same, skipsStableFixes, skips(dd, t: fix.t) { return }
            let slice = UnsafeBufferPointer(rebasing: lookaheadHits[Int(g.start)..<Int(g.start + g.count)])
            if g.delta, chained, skipsStableFixes, stepsChanges(dd, t: fix.t) {
                // (No hits are kept then: they are kept only by a step that left the state
                // unsettled. A later fix that needs them asks the index.)
                stepChanges(device: d, t: fix.t, changes: slice, into: &events)
                return
            }
            if !g.same && !g.delta {
                // Stepped straight from the lookahead's buffer.
                aheadSlice = slice
            } else {
                hits.removeAll(keepingCapacity: true)
                if chained && devices[dd].aheadHitsKept {
                    if g.delta {
                        devices[dd].aheadHits.withUnsafeBufferPointer { RegionHit.apply(slice, to: $0, into: &hits) }
                    } else {
                        devices[dd].aheadHits.withUnsafeBufferPointer { hits.append(contentsOf: $0) }
                    }
                } else {
                    // Relative to a fix this evaluator did not use, or one whose hits were not
                    // kept: ask the index (rare).
                    regionIndex.query(latitude: fix.latitude, longitude: fix.longitude, margin: options.margin, into: &hits)
                }
            }
        } else {
            // A fix decided here breaks any chain of fixes decided ahead. After such fixes
            // (the lookahead's share moved) the device's neighbourhood here describes an
            // older fix than the last one used: it is taken again, not compared with.
            let afterAhead = devices[dd].lastSequence != -2
            devices[dd].lastSequence = -2
            if skipsStableFixes, !afterAhead, nearIsCurrent(dd),
               devices[dd].near.holds(latitude: fix.latitude, longitude: fix.longitude) {
                // In the device's tile: only the open regions it may have reached are tested
                // (in place: this is the path of most fixes).
                inNeighbourhood = true
                scratchChanges.removeAll(keepingCapacity: true)
                let changed = devices[dd].near.advance(with: regionIndex, latitude: fix.latitude, longitude: fix.longitude,
                                                       margin: options.margin, changes: &scratchChanges)
                if !changed {
                    if skips(dd, t: fix.t) { return }
                } else if stepsChanges(dd, t: fix.t) {
                    scratchChanges.withUnsafeBufferPointer { stepChanges(device: d, t: fix.t, changes: $0, into: &events) }
                    return
                }
            }
        }
        // Move the state out of the array while stepping it: a copy would share its arrays
        // with the array's element and make every change copy them (copy-on-write).
        var state = DeviceState()
        swap(&state, &devices[dd])
        defer { swap(&state, &devices[dd]) }
        if inNeighbourhood {
            state.near.hits(into: &hits)
        } else if !decidedAhead {  // (decided ahead, `hits` holds the fix's hits already)
            if skipsStableFixes {
                enterTile(&state, latitude: fix.latitude, longitude: fix.longitude)
            } else {
                regionIndex.query(latitude: fix.latitude, longitude: fix.longitude, margin: options.margin, into: &hits)
            }
        }
        let first = events.count
        if let aheadSlice {
            state.settled = step(&state, device: d, t: fix.t, hits: aheadSlice, into: &events)
        } else {
            state.settled = hits.withUnsafeBufferPointer { step(&state, device: d, t: fix.t, hits: $0, into: &events) }
        }
        if decidedAhead {
            // The hits of a fix decided ahead are kept for a later fix the lookahead finds the
            // same (it sends none then) or sends as changes, only when that fix could not be
            // skipped or stepped by its changes alone: while something is pending. Otherwise
            // only a request added since could stop that, and such a fix asks the index.
            state.aheadHitsKept = !state.settled
            if !state.settled {
                state.aheadHits.removeAll(keepingCapacity: true)
                if let aheadSlice { state.aheadHits.append(contentsOf: aheadSlice) } else { state.aheadHits.append(contentsOf: hits) }
            }
        }
        putInIdentifierOrder(&events, from: first)
        state.lastUsed = fix.t
    }

    /// Slots appended in place are numbered after the built ones, not by identifier: puts one
    /// fix's fires back in identifier order (a fresh build's slot order).
    @inline(__always)
    func putInIdentifierOrder(_ events: inout [FiredEvent], from first: Int) {
        if locations.count > builtLocationCount && events.count - first > 1 {
            events[first...].sort { ExactKey(requests[Int($0.request)].identifier) < ExactKey(requests[Int($1.request)].identifier) }
        }
    }

    /// The skip rule, for a fix whose hits are the last used fix's: when a step would change
    /// nothing for the regions whose hits are unchanged (``stepsChanges(_:t:)``), a step that
    /// decides the same as its predecessor changes nothing at all; so only the device's clock
    /// moves (and true is returned).
    @inline(__always)
    private func skips(_ dd: Int, t: Int64) -> Bool {
        guard stepsChanges(dd, t: t) else { return false }
        devices[dd].lastUsed = t
        stableSkips += 1
        return true
    }

    /// Whether a step of the device's next fix (at `t`) changes nothing for a region whose hit
    /// is the last used fix's: nothing is pending (settled) and no request was added since
    /// that fix. Then only the regions whose hits changed need stepping
    /// (``stepChanges(device:t:changes:into:)``).
    @inline(__always)
    private func stepsChanges(_ dd: Int, t: Int64) -> Bool {
        devices[dd].settled && appendedLocationAddedAt <= devices[dd].lastUsed
            && !locationAdded(after: devices[dd].lastUsed, upTo: t)
    }

    /// Whether device `dd`'s neighbourhood describes the regions as they are: taken since the
    /// last region was appended in place, or its tile still held by the cache (an append
    /// drops every tile it overlaps, so a held tile is as a build would make it now).
    @inline(__always)
    func nearIsCurrent(_ dd: Int) -> Bool {
        if devices[dd].nearEpoch == regionEpoch { return true }
        guard devices[dd].near.level >= 0,
              tileCache.holds(serial: devices[dd].near.tileSerial, leafKey: devices[dd].near.leafKey) else { return false }
        devices[dd].nearEpoch = regionEpoch
        return true
    }

    /// Puts the device in the tile of a fix (``TileCache``) and answers the fix's query into
    /// ``hits`` from it; a plain query for a fix far from the device's last one
    /// (``Neighbourhood/follows(latitude:longitude:)``) or beyond the tiles' latitude, and for
    /// the first fix after regions were added in place since the device's last one: a tile is
    /// taken at its next fix only if none is added meanwhile. (Where adds come faster than a
    /// device's fixes, a tile taken at every fix, its prefix tiles shared by thousands of
    /// dense regions rebuilt after each add, cost three times the queries it saved.)
    private func enterTile(_ state: inout DeviceState, latitude: Double, longitude: Double) {
        neighbourhoodSlots -= state.near.storedSlots
        let sinceAdds = state.nearEpoch == regionEpoch
        guard sinceAdds, state.near.follows(latitude: latitude, longitude: longitude),
              let tile = tileCache.tile(latitude: latitude, longitude: longitude, index: regionIndex, margin: options.margin) else {
            state.near.clear(latitude: latitude, longitude: longitude)
            state.nearEpoch = regionEpoch
            regionIndex.query(latitude: latitude, longitude: longitude, margin: options.margin, into: &hits)
            return
        }
        state.near.enter(tile, with: regionIndex, latitude: latitude, longitude: longitude, margin: options.margin)
        state.nearEpoch = regionEpoch
        neighbourhoodSlots += state.near.storedSlots
        if neighbourhoodSlots > neighbourhoodSlotBudget { releaseNeighbourhoods(keeping: &state) }
        state.near.hits(into: &hits)
    }

    /// The memory bound: past ``neighbourhoodSlotBudget`` slots held in all neighbourhoods,
    /// every other device's is dropped (each rebuilds it at its next fix). Output never
    /// depends on them.
    private func releaseNeighbourhoods(keeping state: inout DeviceState) {
        for i in devices.indices { devices[i].near.release() }
        neighbourhoodSlots = state.near.storedSlots
        neighbourhoodReleases += 1
    }

    /// Whether some location request's `addedAt` lies in (`lastUsed`, `t`]: its first fix
    /// for this device is due, so the fix must be stepped.
    ///
    /// - Complexity: O(1) once every request has been seen; O(log n) otherwise.
    @inline(__always)
    func locationAdded(after lastUsed: Int64, upTo t: Int64) -> Bool {
        guard let last = sortedAddedAts.last, last > lastUsed else { return false }
        var lo = 0, hi = sortedAddedAts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sortedAddedAts[mid] <= lastUsed { lo = mid + 1 } else { hi = mid }
        }
        return lo < sortedAddedAts.count && sortedAddedAts[lo] <= t
    }
}
