import Foundation

// A fix against the fences with rules: measure, decide by the accuracy rule, step the link,
// look for a pass-through on the path from the previous fix.

extension GuardedFences {
    /// How a fix stands to one fence.
    struct Verdict {
        /// Plain containment (distance <= radius; polygon covers the fix).
        var plain = false
        /// Inside by the entry rule (accuracy circle inside, minus `--margin` for circles).
        var inside = false
        /// Outside by the exit rule (accuracy circle outside, plus `--margin` for circles).
        var outside = true
        /// A circle's distance to its boundary at the fix, when measured (a lower bound, as
        /// ``RegionIndex/distanceToBoundary(slot:latitude:longitude:)`` gives); -1 when not.
        var boundary = -1.0
    }

    /// Steps every fence with rules for a used fix of device `d` (after staleness and
    /// `--max-accuracy`), appending its events (unfiltered by settings) to `out`. `accuracy`,
    /// when given, is >= 0 (the stream's validation refuses a negative one).
    func fix(device d: Int32, t: Int64, latitude: Double, longitude: Double, accuracy: Double?,
             initialFire: Bool, into out: inout [FiredEvent]) {
        guard !fences.isEmpty, latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude) else { return }
        ensure(device: d)
        let di = Int(d)
        if !recordsMoves {
            // Stepped here: a lookahead's copy of the device is behind from now on, and after
            // moves applied from one this thread's bounds describe an older fix.
            if aheadChain[di] >= 0 { quiet[di].forget() }
            aheadChain[di] = -2
        }
        let seen = lastSeen[di]
        let previous = lastFix[di]
        lastSeen[di] = t
        lastFix[di] = LastFix(latitude: latitude, longitude: longitude, t: t)
        let lon = Geodesic.unwrapDegrees(longitude)
        var old: [Link] = []
        swap(&old, &links[di])
        // The fences to look at: near the fix, on the path from the previous fix (crossing
        // fences), linked to the device, and outside dwells not yet started for it. Each
        // source is sorted; the candidates are sorted only when more than a cell's list is
        // involved, and the links are walked alongside them (not merged into a new list).
        var candidates: [Int32] = []
        swap(&candidates, &scratch)
        defer { swap(&candidates, &scratch) }
        candidates.removeAll(keepingCapacity: true)
        grid.collect(latitude: latitude, longitude: lon, into: &candidates)
        var ordered = grid.large.isEmpty
        var pathBound = -1.0
        if !crossingFences.isEmpty, let p = previous {
            let lon1 = p.longitude + Geodesic.unwrapDegrees(lon - p.longitude)
            let pad = 1e-4 + 0.01 * max(abs(latitude - p.latitude), abs(lon1 - p.longitude))
            let before = candidates.count
            if !grid.collect(minLatitude: min(p.latitude, latitude) - pad, maxLatitude: max(p.latitude, latitude) + pad,
                             minLongitude: min(p.longitude, lon1) - pad, maxLongitude: max(p.longitude, lon1) + pad,
                             besides: grid.key(latitude: latitude, longitude: lon), into: &candidates) {
                candidates.append(contentsOf: crossingFences)
            }
            if candidates.count > before { ordered = false }
            // An upper bound of the path's length (haversine's bracket), once per fix.
            pathBound = Haversine.distance(p.latitude, p.longitude, latitude, longitude) * (1 + Haversine.relativeBound) + Haversine.absoluteBound
        }
        for f in outsideDwellFences where seen < gates[Int(f)].addedAt {
            candidates.append(f)
            ordered = false
        }
        if scansAll {
            candidates.removeAll(keepingCapacity: true)
            candidates.append(contentsOf: 0..<Int32(fences.count))
        }
        if candidates.isEmpty && old.isEmpty {
            // Nothing near and no link: no bound is kept either (the path starts again).
            if !quiet[di].entries.isEmpty { quiet[di].entries.removeAll(keepingCapacity: true) }
            return
        }
        var new: [Link] = []
        new.reserveCapacity(old.count + 1)
        // The fences this device cannot have moved across since it measured them (``Quiet``).
        // Without it (no circle, or a test measuring every fix) none of this state is touched.
        let cached = usesQuiet
        var q = Quiet(), bounds: [Quiet.Entry] = []
        var travelled = 0.0, qi = 0, skips = 0
        if cached {
            swap(&q, &quiet[di])
            swap(&bounds, &quietScratch)
            bounds.removeAll(keepingCapacity: true)
            travelled = q.advance(latitude: latitude, longitude: lon)
        }
        defer {
            if cached {
                quietSkips &+= skips
                q.keep(bounds)
                swap(&q, &quiet[di])
                swap(&bounds, &quietScratch)
            }
        }
        if !ordered { candidates.sort() }
        var path: GeodesicPath??
        var li = 0, ci = 0
        var ignored = false
        var previousCandidate: Int32 = -1
        // The candidates and the links' fences (both sorted) in one ascending walk, each fence
        // once (a fence may be listed by several cells, and be linked too).
        while true {
            let c: Int32
            if ci < candidates.count, li >= old.count || candidates[ci] <= old[li].fence {
                c = candidates[ci]
                ci += 1
            } else if li < old.count {
                c = old[li].fence  // (taken as the link just below)
            } else {
                break
            }
            if c == previousCandidate {
                // A link to a fence just walked (a restored snapshot may list one twice): dropped,
                // and passed (the walk would otherwise stop here).
                if li < old.count, old[li].fence == c { li += 1 }
                continue
            }
            previousCandidate = c
            let f = Int(c)
            var link: Link?
            if li < old.count, old[li].fence == c {
                link = old[li]
                li += 1
            }
            // Up to the quiet skip only the fence's gate is read (most candidates).
            let gate = gates[f]
            if gate.done { continue }
            guard gate.device < 0 || gate.device == d, t >= gate.addedAt else {
                if let link { new.append(link) }
                continue
            }
            if let l = link, l.firedOnce, !gate.repeats {
                new.append(l)
                continue
            }
            var a = 0.0
            var decides = true
            if !gate.accuracyLimit.isNaN, let acc = accuracy {
                if acc > gate.accuracyLimit {
                    decides = false
                } else {
                    a = acc
                }
            }
            // A circle the device cannot have moved across since it was measured (nor passed
            // through, with crossings): no move can come of this fix (after the device's first fix for the
            // request, whose state is taken by containment). The bound is about where the
            // device is, for the side it was taken on: it holds for a link on that side
            // whatever befell the link since (a restored snapshot, say), not for the other.
            let measurable = cached && gate.circle && seen >= gate.addedAt
            while qi < q.entries.count && q.entries[qi].fence < c { qi += 1 }
            if measurable, qi < q.entries.count, q.entries[qi].fence == c, q.entries[qi].inside == (link?.inside ?? false),
               q.entries[qi].due > travelled {
                bounds.append(q.entries[qi])
                skips += 1
                if let l = link, l.inside || l.due != Self.noDwell || l.firedOnce { new.append(l) }
                continue
            }
            let fence = fences[f]
            let v = verdict(f, latitude: latitude, longitude: lon, accuracy: a)
            var l = link ?? Link(fence: Int32(f), inside: false, since: t, due: Self.noDwell, firedOnce: false)
            // Each move acts at once, or (a lookahead's copy) is recorded with the link's new
            // side, for the evaluator to act on (``apply(_:device:t:latitude:longitude:initialFire:into:)``).
            if seen < gate.addedAt {
                // The device's first fix for this request: the silent first state, by plain
                // containment whatever the accuracy (as with --margin).
                if recordsMoves { moves.append(FenceMove(fence: c, kind: .first, plain: v.plain)) }
                firstState(&l, plain: v.plain, device: d, at: t, initialFire: initialFire, acting: !recordsMoves, into: &out)
            } else if !decides {
                // Too inaccurate for this fence: decides nothing. Counted when the fix, had it
                // been exact, would have moved the fence (`v` is taken with no accuracy, the
                // margin applied). (Counting every fence walked made the count depend on the
                // grid's cells: a fence removed in place and a rebuilt grid counted
                // differently. Plain containment instead of the margin's thresholds made it
                // depend on whether a quiet bound skipped the fence.)
                if l.inside ? v.outside : v.inside {
                    ignored = true
                    if recordsMoves { moves.append(FenceMove(fence: c, kind: .ignored)) }
                }
            } else if !l.inside && v.inside {
                if recordsMoves { moves.append(FenceMove(fence: c, kind: .enter)) }
                move(&l, inside: true, device: d, at: t, acting: !recordsMoves, into: &out)
            } else if l.inside && v.outside {
                if recordsMoves { moves.append(FenceMove(fence: c, kind: .exit)) }
                move(&l, inside: false, device: d, at: t, acting: !recordsMoves, into: &out)
            } else if !l.inside && v.outside && fence.crossings, let p = previous, p.t >= gate.addedAt, p.t < t,
                      let (tIn, tOut) = passThrough(f, from: p, toLatitude: latitude, longitude: lon, t: t, lengthBound: pathBound,
                                                    boundary: v.boundary, path: &path) {
                // Both fixes outside, the path between them through the fence.
                if recordsMoves {
                    moves.append(FenceMove(fence: c, kind: .pass, tIn: tIn, tOut: tOut))
                } else {
                    passedThrough(&l, device: d, in: tIn, out: tOut, into: &out)
                }
            }
            if l.inside || l.due != Self.noDwell || l.firedOnce { new.append(l) }
            if measurable, let slack = quietSlack(f, latitude: latitude, longitude: lon, inside: l.inside), slack > 0 {
                bounds.append(Quiet.Entry(fence: c, inside: l.inside, due: travelled + slack))
            }
        }
        if ignored { ignoredForAccuracy += 1 }
        links[di] = new
    }

    /// A crossing at `t`: the new side, and unless only the side is wanted (`acting` false:
    /// a lookahead's copy) its event and the dwell clock for it.
    @inline(__always)
    func move(_ l: inout Link, inside: Bool, device d: Int32, at t: Int64, acting: Bool = true, into out: inout [FiredEvent]) {
        l.inside = inside
        l.since = t
        l.due = Self.noDwell
        guard acting else { return }
        emit(&l, inside ? .enter : .exit, device: d, date: t, into: &out)
        startDwell(&l, device: d, from: t)
    }

    /// The device's first fix for a fence: its side by plain containment, silently (an
    /// entry with `initialFire`), and the dwell clock for it; the side only unless `acting`.
    @inline(__always)
    func firstState(_ l: inout Link, plain: Bool, device d: Int32, at t: Int64, initialFire: Bool, acting: Bool = true,
                    into out: inout [FiredEvent]) {
        l.inside = plain
        l.since = t
        l.due = Self.noDwell
        guard acting else { return }
        startDwell(&l, device: d, from: t)
        if initialFire && plain { emit(&l, .enter, device: d, date: t, into: &out) }
    }

    /// A path through the fence between two fixes outside it: its entry and exit, and an
    /// outside dwell's clock restarted at the exit.
    func passedThrough(_ l: inout Link, device d: Int32, in tIn: Int64, out tOut: Int64, into out: inout [FiredEvent]) {
        emit(&l, .enter, device: d, date: tIn, into: &out)
        emit(&l, .exit, device: d, date: tOut, into: &out)
        if fences[Int(l.fence)].dwell == .outside {
            l.since = tOut
            l.due = Self.noDwell
            startDwell(&l, device: d, from: tOut)
        }
    }

    /// Measures a fix (longitude unwrapped) against fence `f` with accuracy `a` metres.
    @inline(__always)
    func verdict(_ f: Int, latitude: Double, longitude: Double, accuracy a: Double) -> Verdict {
        let fence = fences[f]
        guard latitude >= fence.minLatitude, latitude <= fence.maxLatitude,
              inBox(longitude, fence.minLongitude, fence.maxLongitude) else { return Verdict() }
        if fence.radius >= 0 {
            // Far enough from the boundary for the margin and the accuracy: the fast test.
            let side = regions.boundarySide(slot: Int32(f), latitude: latitude, longitude: longitude)
            if let (b, c) = side, b > margin + a {
                return Verdict(plain: c, inside: c, outside: !c, boundary: b)
            }
            let d = Geodesic.distance(latitude1: fence.latitude, longitude1: fence.longitude, latitude2: latitude, longitude2: longitude)
            return Verdict(plain: d <= fence.radius, inside: d + a <= fence.radius - margin, outside: d - a > fence.radius + margin,
                           boundary: side?.distance ?? -1)
        }
        let covers = regions.contains(slot: Int32(f), latitude: latitude, longitude: longitude)
        guard a > 0 else { return Verdict(plain: covers, inside: covers, outside: !covers) }
        // Only whether the boundary is within `a` matters: the search may stop well beyond it.
        let b = boundaryDistance(f, latitude: latitude, longitude: longitude, within: Self.searchLimit(a))
        return Verdict(plain: covers, inside: covers && b >= a, outside: !covers && b > a)
    }

    @inline(__always)
    func inBox(_ lon: Double, _ lo: Double, _ hi: Double) -> Bool {
        (lon >= lo && lon <= hi) || (lon + 360 >= lo && lon + 360 <= hi) || (lon - 360 >= lo && lon - 360 <= hi)
    }

    /// Metres from a point to the nearest edge of polygon fence `f`, on the local plane at
    /// the point (WGS84 radii of curvature there): within 0.2 % for edges up to 10 km away
    /// at latitudes up to 60 degrees, which is what an accuracy circle needs. With an
    /// ``EdgeIndex`` the edges of the cells near the point, else every edge (the same answer).
    /// With a `limit`, the distance when it is at most `limit`, else some value above it
    /// (``EdgeIndex/nearestDistance(latitude:longitude:plane:within:_:)``).
    func boundaryDistance(_ f: Int, latitude: Double, longitude: Double, within limit: Double = .infinity) -> Double {
        Self.boundaryDistance(rings: rings[Int32(f)] ?? [], index: edgeIndexes[Int32(f)], latitude: latitude, longitude: longitude,
                              within: limit)
    }

    static func boundaryDistance(rings: [[(x: Double, y: Double)]], index: EdgeIndex?, latitude: Double, longitude: Double,
                                 within limit: Double = .infinity) -> Double {
        let plane = LocalPlane(latitude: latitude)
        func distance(_ px: Double, _ py: Double, _ qx: Double, _ qy: Double) -> Double {
            edgeDistance(px, py, qx, qy, latitude: latitude, longitude: longitude, plane: plane)
        }
        if let index, let d = index.nearestDistance(latitude: latitude, longitude: longitude, plane: plane, within: limit, distance) {
            return d
        }
        var best = Double.infinity
        for ring in rings {
            for j in 1..<max(1, ring.count) { best = min(best, distance(ring[j - 1].x, ring[j - 1].y, ring[j].x, ring[j].y)) }
        }
        return best
    }

    /// The search limit for a comparison of a boundary distance with `threshold` metres: twice
    /// it and a metre more, so that a distance known only to exceed the limit decides every
    /// comparison (`>=`, `>`, and a sum's cushions) as the exact distance would.
    @inline(__always)
    static func searchLimit(_ threshold: Double) -> Double { 2 * threshold + 1 }

    /// Metres from (`latitude`, `longitude`) to edge P-Q on its local `plane`.
    @inline(__always)
    static func edgeDistance(_ p0: Double, _ p1: Double, _ q0: Double, _ q1: Double,
                             latitude: Double, longitude: Double, plane: LocalPlane) -> Double {
        let px = Geodesic.unwrapDegrees(p0 - longitude) * plane.kLon, py = (p1 - latitude) * plane.kLat
        let qx = Geodesic.unwrapDegrees(q0 - longitude) * plane.kLon, qy = (q1 - latitude) * plane.kLat
        let ex = qx - px, ey = qy - py
        let len2 = ex * ex + ey * ey
        let u = len2 > 0 ? min(1, max(0, -(px * ex + py * ey) / len2)) : 0
        let cx = px + u * ex, cy = py + u * ey
        return (cx * cx + cy * cy).squareRoot()
    }
}
