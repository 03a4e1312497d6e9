import Foundation

// Fences with rules decided ahead, on `run`'s reader thread: a copy of the fences steps each
// fix's geometry (candidates, bounds, measurements, sides) and records what moved; the
// evaluator acts on the moves (events, dwell clocks, one-shots, windows) in input order.
//
// What a fix does to a link's side depends only on the device's earlier used fixes and on
// what never changes during a run (the fences, their gates' `addedAt` and device): the clock
// never moves a side. What the copy cannot see (a fence that became done, a shared one-shot
// that fired for the device) only makes the evaluator ignore a move, and both skip those
// fences' links alike when they know it, so the sides the copy keeps are the evaluator's.

/// One fence with rules that a fix moved, as a ``GuardedFences`` copy recorded it.
package struct FenceMove {
    enum Kind: UInt8 {
        /// The device's first fix for the fence: its side by plain containment (`plain`).
        case first
        case enter
        case exit
        /// A path between two fixes outside through the fence, entered at `tIn`, left at `tOut`.
        case pass
        /// The fix was too inaccurate for the fence, and would have moved it had it been exact
        /// (it counts in the fixes ignored for accuracy).
        case ignored
        /// Heads a fix's moves (``FixLookahead+Fences``): `fence` is how many follow, `tIn`
        /// the number of the device's fix it followed, `tOut` the default `addedAt` assumed.
        case answer
    }
    var fence: Int32
    var kind: Kind
    var plain = false
    var tIn: Int64 = 0
    var tOut: Int64 = 0
}

extension GuardedFences {
    /// A copy that steps sides and records moves (``recordsMoves``), for a ``FixLookahead``
    /// on another thread: the fences, gates, grid and index (read-only, shared), and each
    /// device's links, last fix and last seen as they are now. Its quiet bounds start empty.
    convenience init(geometryOf g: GuardedFences) {
        self.init(copying: g, recordsMoves: true)
        links = g.links
        lastSeen = g.lastSeen
        lastFix = g.lastFix
        quiet = Array(repeating: Quiet(), count: g.links.count)
        aheadChain = Array(repeating: -1, count: g.links.count)
    }

    /// Each fence's gate: its `addedAt` and device (all a lookahead's copy needs of
    /// ``start(addedAt:device:now:)``: it never acts on the clock).
    func startGeometry(addedAt: (Int32) -> Int64, device: (Int32) -> Int32) {
        started = true
        for f in fences.indices {
            gates[f].addedAt = addedAt(fences[f].request)
            gates[f].device = device(fences[f].request)
        }
    }

    /// Every device's chain back to "none applied" (a new lookahead was made from the state
    /// as it is now).
    func resetAheadChains() {
        for d in aheadChain.indices { aheadChain[d] = -1 }
    }

    /// A used fix of device `d` whose geometry a copy (``init(geometryOf:)``) decided: its
    /// last fix and seen time, then each move in fence order as ``fix(device:t:latitude:longitude:accuracy:initialFire:into:)``
    /// acts on it, so the same events, dwell clocks and links follow. A move of a fence that
    /// is done, or of a shared one-shot that fired for the device, is ignored (the walk skips
    /// those fences).
    ///
    /// - Complexity: O(moves x log links).
    func apply(_ moves: UnsafeBufferPointer<FenceMove>, device d: Int32, t: Int64, latitude: Double, longitude: Double,
               accuracy: Double?, initialFire: Bool, into out: inout [FiredEvent]) {
        ensure(device: d)
        let di = Int(d)
        appliedFixes &+= 1
        lastSeen[di] = t
        lastFix[di] = LastFix(latitude: latitude, longitude: longitude, t: t)
        // Whether an accuracy rule kept the fix from moving a fence: the copy says so
        // (``FenceMove/Kind/ignored``). It walks every fence an exact fix there could move:
        // those the device is inside are linked in the copy, and one it could enter holds the
        // position (in the grid).
        var ignored = false
        for m in moves {
            let f = Int(m.fence)
            let i = linkIndex(f, device: di)
            if gates[f].done {
                if let i { links[di].remove(at: i) }
                continue
            }
            var l = Link(fence: m.fence, inside: false, since: t, due: Self.noDwell, firedOnce: false)
            if let i {
                l = links[di][i]
                if l.firedOnce && !gates[f].repeats { continue }
            }
            switch m.kind {
            case .ignored:
                ignored = true
                continue
            case .first: firstState(&l, plain: m.plain, device: d, at: t, initialFire: initialFire, into: &out)
            case .enter: move(&l, inside: true, device: d, at: t, into: &out)
            case .exit: move(&l, inside: false, device: d, at: t, into: &out)
            case .pass: passedThrough(&l, device: d, in: m.tIn, out: m.tOut, into: &out)
            case .answer: continue
            }
            let keep = l.inside || l.due != Self.noDwell || l.firedOnce
            if let i {
                if keep { links[di][i] = l } else { links[di].remove(at: i) }
            } else if keep {
                insert(l, device: di)
            }
        }
        if ignored { ignoredForAccuracy += 1 }
    }
}
