// Stepping a device's regions at a fix: the whole step (its hits with what it is inside and
// pending) and the step of only the regions whose hits changed, through one decision per region.

@_spi(Engine) extension StreamEvaluator {
    /// Walks the union of the regions the fix may be in, the regions the device is inside
    /// and its pending crossings (all sorted by slot, i.e. by identifier), deciding each.
    ///
    /// Returns whether the state is settled: a next fix with the same hits would change
    /// nothing. Not so while a crossing is pending (dwell), nor after a one-shot fired (its
    /// slot leaves `inside` on the next step, when the one-shot guard skips it).
    func step(_ state: inout DeviceState, device d: Int32, t: Int64, hits: UnsafeBufferPointer<RegionHit>,
              into events: inout [FiredEvent]) -> Bool {
        var settled = true
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
            switch stepRegion(s, hit: hit, wasInside: wasInside, pending: pending, state: &state, device: d, t: t,
                              settled: &settled, into: &events) {
            case .outside: break
            case .inside: scratchInside.append(s)
            case .waiting(let p): scratchPending.append(p)
            case .insideWaiting(let p): scratchInside.append(s); scratchPending.append(p)
            }
        }
        swap(&state.inside, &scratchInside)
        swap(&state.pending, &scratchPending)
        return settled && state.pending.isEmpty
    }

    /// The step of a fix of a device whose state lets the regions with unchanged hits be
    /// passed over (``stepsChanges(_:t:)``): only the regions in `changes` (by slot, each the
    /// new hit or a ``RegionHit/miss(_:)``) are decided, as ``step(_:device:t:hits:into:)``
    /// decides them, and the state is updated in place. The same events and state as a whole
    /// step.
    ///
    /// - Complexity: O(changes x log(inside)), plus moving `inside` for an entry or exit.
    func stepChanges(device d: Int32, t: Int64, changes: UnsafeBufferPointer<RegionHit>, into events: inout [FiredEvent]) {
        let dd = Int(d)
        var state = DeviceState()
        swap(&state, &devices[dd])
        defer { swap(&state, &devices[dd]) }
        let first = events.count
        var settled = true
        for c in changes {
            let s = c.slot
            let at = state.inside.lowerBound(of: s)
            let wasInside = at < state.inside.count && state.inside[at] == s
            let now = stepRegion(s, hit: c.isMiss ? nil : c, wasInside: wasInside, pending: nil, state: &state, device: d, t: t,
                                 settled: &settled, into: &events)
            switch now {
            case .inside, .insideWaiting: if !wasInside { state.inside.insert(s, at: at) }
            case .outside, .waiting: if wasInside { state.inside.remove(at: at) }
            }
            // Nothing was pending (settled): pending crossings come in slot order.
            if case .waiting(let p) = now { state.pending.append(p) }
            if case .insideWaiting(let p) = now { state.pending.append(p) }
        }
        state.settled = settled && state.pending.isEmpty
        putInIdentifierOrder(&events, from: first)
        state.lastUsed = t
    }

    /// Where a region stands for a device after a step.
    enum SlotState {
        case outside, inside
        /// Still on its old side, a crossing pending since the given time (dwell).
        case waiting(PendingCrossing)
        case insideWaiting(PendingCrossing)
    }

    /// Decides region `s` for a fix of device `d` at `t`: its hit (nil: none), whether the
    /// device was inside and its pending crossing; fires what crosses. Clears `settled` when
    /// a one-shot fired. A request that does not apply to the device (done, another
    /// device's, added later, a shared one-shot already fired for it) leaves it outside.
    @inline(__always)
    func stepRegion(_ s: Int32, hit: RegionHit?, wasInside: Bool, pending: PendingCrossing?, state: inout DeviceState,
                    device d: Int32, t: Int64, settled: inout Bool, into events: inout [FiredEvent]) -> SlotState {
        let e = locations[Int(s)]
        guard !e.done, e.device < 0 || e.device == d, t >= e.addedAt,
              e.repeats || e.device >= 0 || !state.firedOnce.sortedContains(s) else { return .outside }

        if state.lastUsed < e.addedAt {
            // First used fix since the request was added: silent initial state, plain
            // containment even with a margin.
            guard hit?.contains == true else { return .outside }
            if options.initialFire && e.notifyOnEntry {
                if !fire(s, .enter, device: d, t: t, state: &state, into: &events) { settled = false }
            }
            return .inside
        }
        // On the new side? Leaving needs distance > r + M (no hit at all); entering needs
        // distance <= r - M.
        let onNewSide = wasInside ? hit == nil : hit?.inner == true
        var crossed = false
        if onNewSide {
            let since = pending?.since ?? t
            if t >= since &+ dwellMillis {
                crossed = true
            } else {
                let p = PendingCrossing(slot: s, since: since)
                return wasInside ? .insideWaiting(p) : .waiting(p)
            }
        }
        if crossed, !fire(s, wasInside ? .exit : .enter, device: d, t: t, state: &state, into: &events) { settled = false }
        return (crossed ? !wasInside : wasInside) ? .inside : .outside
    }

    /// Fires a crossing if the request wants it; returns false when a one-shot fired (it is
    /// finished for this device from now on).
    func fire(_ s: Int32, _ crossing: Crossing, device d: Int32, t: Int64, state: inout DeviceState, into events: inout [FiredEvent]) -> Bool {
        let e = locations[Int(s)]
        guard crossing == .enter ? e.notifyOnEntry : e.notifyOnExit else { return true }
        deliver(FiredEvent(request: e.request, date: t, kind: .location, crossing: crossing, device: d), into: &events)
        if !e.repeats {
            if e.device >= 0 {
                locations[Int(s)].done = true
                if recordsFinished { finishedRequests.append(e.request) }
            } else {
                state.firedOnce.sortedInsert(s)
            }
            return false
        }
        return true
    }
}
