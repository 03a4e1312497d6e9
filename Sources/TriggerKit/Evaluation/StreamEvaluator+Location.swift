extension StreamEvaluator {
    /// One fix: staleness, accuracy, then the device's region states.
    func process(_ fix: Fix, into events: inout [FiredEvent]) {
        stats.fixes += 1
        if let acc = fix.accuracy, acc < 0 {
            stats.skipped += 1
            return
        }
        let d = device(named: fix.device)
        if fix.t < devices[Int(d)].lastAccepted {
            stats.stale += 1
            return
        }
        devices[Int(d)].lastAccepted = fix.t
        markChanged(d)
        if let limit = options.maxAccuracy, let acc = fix.accuracy, acc > limit {
            stats.inaccurate += 1
            return
        }
        regionIndex.query(latitude: fix.latitude, longitude: fix.longitude, margin: options.margin, into: &hits)
        // Move the state out of the array while stepping it: a copy would share its arrays
        // with the array's element and make every change copy them (copy-on-write).
        var state = DeviceState()
        swap(&state, &devices[Int(d)])
        step(&state, device: d, t: fix.t, into: &events)
        state.lastUsed = fix.t
        swap(&state, &devices[Int(d)])
    }

    /// Walks the union of the regions the fix may be in, the regions the device is inside
    /// and its pending crossings (all sorted by slot, i.e. by identifier), deciding each.
    private func step(_ state: inout DeviceState, device d: Int32, t: Int64, into events: inout [FiredEvent]) {
        scratchInside.removeAll(keepingCapacity: true)
        scratchPending.removeAll(keepingCapacity: true)
        var hi = 0, ii = 0, pi = 0
        let none = Int32.max
        while true {
            let hs = hi < hits.count ? hits[hi].slot : none
            let isl = ii < state.inside.count ? state.inside[ii] : none
            let ps = pi < state.pending.count ? state.pending[pi].slot : none
            let s = Swift.min(hs, isl, ps)
            if s == none { break }
            var hit: RegionHit?
            if hs == s { hit = hits[hi]; hi += 1 }
            let wasInside = isl == s
            if wasInside { ii += 1 }
            var pending: PendingCrossing?
            if ps == s { pending = state.pending[pi]; pi += 1 }

            let e = locations[Int(s)]
            guard !e.done, e.device < 0 || e.device == d, t >= e.addedAt,
                  e.repeats || e.device >= 0 || !state.firedOnce.sortedContains(s) else { continue }

            if state.lastUsed < e.addedAt {
                // First used fix since the request was added: silent initial state, plain
                // containment even with a margin.
                if hit?.contains == true {
                    scratchInside.append(s)
                    if options.initialFire && e.notifyOnEntry { fire(s, .enter, device: d, t: t, state: &state, into: &events) }
                }
                continue
            }
            // On the new side? Leaving needs distance > r + M (no hit at all); entering needs
            // distance <= r - M.
            let onNewSide = wasInside ? hit == nil : hit?.inner == true
            var crossed = false
            if onNewSide {
                let since = pending?.since ?? t
                if t >= since &+ dwellMillis { crossed = true } else { scratchPending.append(PendingCrossing(slot: s, since: since)) }
            }
            let insideNow = crossed ? !wasInside : wasInside
            if insideNow { scratchInside.append(s) }
            if crossed { fire(s, wasInside ? .exit : .enter, device: d, t: t, state: &state, into: &events) }
        }
        swap(&state.inside, &scratchInside)
        swap(&state.pending, &scratchPending)
    }

    private func fire(_ s: Int32, _ crossing: Crossing, device d: Int32, t: Int64, state: inout DeviceState, into events: inout [FiredEvent]) {
        let e = locations[Int(s)]
        guard crossing == .enter ? e.notifyOnEntry : e.notifyOnExit else { return }
        deliver(FiredEvent(request: e.request, date: t, kind: .location, crossing: crossing, device: d), into: &events)
        if !e.repeats {
            if e.device >= 0 { locations[Int(s)].done = true } else { state.firedOnce.sortedInsert(s) }
        }
    }
}
