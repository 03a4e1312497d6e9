import Foundation

// A device's neighbourhood: the regions around one of its fixes, sorted out once for every
// later fix near it. Where regions are dense no disc around a fix is free of boundaries (the
// plain stable area shrinks to metres), but only a few boundaries pass near it: those few are
// tested per fix, the others keep the decision they had.

/// The regions around a point, split by whether their decision can change anywhere within
/// ``area``: those that cannot are kept with their decision (``fixed``, hits only), the
/// others (``open``) are tested for each fix.
///
/// Built by ``RegionIndex/buildNeighbourhood(latitude:longitude:radius:margin:into:hits:)``,
/// which also answers the query at its centre; the decisions of the open regions for a later
/// fix come from ``RegionIndex/openDecisions(_:latitude:longitude:margin:into:)``. Memory:
/// 8 bytes per fixed hit, 5 per open region; the evaluator bounds the total
/// (``StreamEvaluator/neighbourhoodSlotBudget``).
struct Neighbourhood: Sendable {
    /// The disc the split holds for; `.empty`: no neighbourhood.
    var area: StableArea = .empty
    /// Regions hit at every point of the area, with their (constant) flags, by slot.
    var fixed: [RegionHit] = []
    /// Regions whose decision may change within the area, by slot.
    var open: [Int32] = []
    /// The decisions for ``open`` at the last fix stepped (``RegionHit/code``).
    var decisions: [UInt8] = []

    init() {}

    /// Slots held (the evaluator's memory bound counts these).
    var storedSlots: Int { fixed.count + open.count }

    /// Forgets everything, keeping the arrays' capacity.
    mutating func clear() {
        area = .empty
        fixed.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
        decisions.removeAll(keepingCapacity: true)
    }

    /// Decides the open regions for a fix inside ``area`` into `codes` (see
    /// ``RegionIndex/openDecisions(_:latitude:longitude:margin:into:)``) and says whether they
    /// decide as at the last fix stepped. Called in place on a stored neighbourhood, it copies
    /// nothing.
    mutating func decide(with index: RegionIndex, latitude: Double, longitude: Double, margin: Double,
                         into codes: inout [UInt8]) -> Bool {
        index.openDecisions(self, latitude: latitude, longitude: longitude, margin: margin, into: &codes)
        return codes == decisions
    }

    /// Drops the arrays' storage too (the memory bound).
    mutating func release() {
        self = Neighbourhood()
    }
}

extension RegionHit {
    /// One byte per decision: 0 no hit, 1 hit, 2 hit and contains, 3 hit, contains and inner.
    @inline(__always) var code: UInt8 { 1 + (contains ? 1 : 0) + (inner ? 1 : 0) }
    @inline(__always) init(slot: Int32, code: UInt8) {
        self.init(slot: slot, inner: code == 3, contains: code >= 2)
    }
}

extension RegionIndex {
    /// Answers ``query(latitude:longitude:margin:into:)`` at a fix and builds the neighbourhood
    /// of radius up to `radius` metres around it: a region whose nearest threshold (radius -
    /// margin, radius, radius + margin; a polygon's edges) is farther than the neighbourhood's
    /// radius has the same decision at every point of it (``thresholdDistance(_:latitude:longitude:margin:)``
    /// for circles; for a polygon, no edge's bounding box meets the disc's box).
    ///
    /// Every grid cell overlapping the disc's bounding box is read at each level (so a region
    /// stored in no cell read lies wholly outside the disc); the radius is capped so that a box
    /// spans at most 5 x 5 cells of the finest level in use. Beyond 80 degrees of latitude, or
    /// for a non-finite fix, the neighbourhood is empty (a plain query).
    ///
    /// - Complexity: O(cells read + candidates + edges of nearby polygons), then sorting the
    ///   hits and open regions.
    func buildNeighbourhood(latitude: Double, longitude: Double, radius: Double, margin: Double,
                                   into n: inout Neighbourhood, hits: inout [RegionHit]) {
        n.clear()
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= Self.maximumStableLatitude,
              radius.isFinite, radius > 0 else {
            query(latitude: latitude, longitude: longitude, margin: margin, into: &hits)
            return
        }
        hits.removeAll(keepingCapacity: true)
        let lon = Geodesic.unwrapDegrees(longitude)
        let m = margin >= 0 ? min(margin, maximumMargin) : 0
        var points = FixPoints(latitude: latitude, longitude: lon)
        defer { release(&points) }
        let kLatMin = Geodesic.equatorialRadius * (1 - Geodesic.e2) * Geodesic.degree
        let kLonMin = Geodesic.equatorialRadius * Geodesic.degree
            * cos(min(90, abs(latitude) + StableArea.latitudeReach) * Geodesic.degree)
        let entries = self.entries
        let polygons = self.polygons
        let grid = self.grid
        // The levels that may hold a region near the fix: those of every summary cell the
        // disc's box meets (near 80 degrees a 5 km box is wider than a summary cell, so its
        // corners alone could miss the cell between them).
        @inline(__always) func levels(within r: Double) -> UInt32 {
            let dLat = r / kLatMin + 1e-9, dLon = r / kLonMin + 1e-9
            return summary.mask(minLatitude: latitude - dLat, maxLatitude: latitude + dLat,
                                minLongitude: lon - dLon, maxLongitude: lon + dLon)
        }
        if levels(within: Self.maximumStableRadius) == 0 {
            // No region anywhere near: the largest disc is free.
            n.area = StableArea(latitude: latitude, longitude: lon, radius: Self.maximumStableRadius)
            return
        }
        var r = min(radius, Self.maximumStableRadius)
        let mask = levels(within: r)
        guard mask != 0 else {
            n.area = StableArea(latitude: latitude, longitude: lon, radius: r)
            return
        }
        // At most 5 x 5 cells per level: the disc's box no wider than 4 cells of the finest level.
        let finest = 31 - mask.leadingZeroBitCount
        let cell = 360 / Double(1 << finest)
        r = min(r, 2 * cell * min(kLatMin, kLonMin))
        let dLat = r / kLatMin + 1e-9, dLon = r / kLonMin + 1e-9
        // One candidate: its decision at the fix (hit code, 0 for none) and whether that holds
        // over the disc. No captured state is written (a closure writing captured variables
        // pays a dynamic exclusivity check per access).
        @inline(__always) func classify(_ slot: Int, _ points: inout FixPoints) -> (code: UInt8, constant: Bool) {
            let e = entries[slot]
            switch e.kind {
            case .planeCircle:
                // The common case, fused: one flat distance serves the decision and the
                // threshold distance.
                let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
                let err = e.plane.errorBound(d), rr = e.radius
                let nearest = min(abs(d - (rr + m)), abs(d - rr), abs(d - (rr - m)))
                if nearest > err {
                    let code: UInt8 = d > rr + m ? 0 : (d <= rr - m ? 3 : (d <= rr ? 2 : 1))
                    return (code, nearest - err - Self.geodesicSlack > r)
                }
            case .polygon:
                let i = Int(e.polygon)
                return polygons.withUnsafeBufferPointer { p -> (UInt8, Bool) in
                    // Outside the box of the polygon's edges: constant (and no hit).
                    if latitude + dLat < p[i].minY || latitude - dLat > p[i].maxY { return (0, true) }
                    let code: UInt8 = polygonCovers(p, i, points: &points) ? 3 : 0
                    // A polygon across the antimeridian, or a fix near it, has more than one
                    // frame: tested per fix.
                    if p[i].shifted || abs(lon) + dLon >= 180 { return (code, false) }
                    if lon + dLon < p[i].minX || lon - dLon > p[i].maxX { return (code, true) }
                    return (code, !p[i].rings.hasEdge(nearX: lon, y: latitude, dx: dLon, dy: dLat))
                }
            case .exactCircle, .invalid:
                break
            }
            let code = test(slot, latitude: latitude, longitude: lon, margin: m, points: &points)?.code ?? 0
            return (code, thresholdDistance(slot, latitude: latitude, longitude: lon, margin: m) > r)
        }
        var levels = mask
        while levels != 0 {
            let level = levels.trailingZeroBitCount
            levels &= levels - 1
            let scale = Self.levelScales[level]
            let ix0 = Self.cellIndex(lon - dLon + 180, scale: scale), ix1 = Self.cellIndex(lon + dLon + 180, scale: scale)
            let iy0 = max(0, Self.cellIndex(latitude - dLat + 90, scale: scale))
            let iy1 = min((1 << level) / 2, Self.cellIndex(latitude + dLat + 90, scale: scale))
            for iy in iy0...max(iy0, iy1) {
                for ix in ix0...ix1 {
                    let key = Self.cellKey(level: level, ix: ix & ((1 << level) - 1), iy: iy)
                    let run = grid.lookup(key)
                    for i in run {
                        let slot = grid.slots.withUnsafeBufferPointer { $0[i] }
                        let (code, constant) = classify(Int(slot), &points)
                        if code != 0 { hits.append(RegionHit(slot: slot, code: code)) }
                        if !constant { n.open.append(slot) } else if code != 0 { n.fixed.append(RegionHit(slot: slot, code: code)) }
                    }
                    for slot in overlaySlots(key) ?? [] {
                        let (code, constant) = classify(Int(slot), &points)
                        if code != 0 { hits.append(RegionHit(slot: slot, code: code)) }
                        if !constant { n.open.append(slot) } else if code != 0 { n.fixed.append(RegionHit(slot: slot, code: code)) }
                    }
                }
            }
        }
        // A region stored in several cells read was visited once per cell.
        Self.sortUnique(&hits) { $0.slot }
        Self.sortUnique(&n.fixed) { $0.slot }
        Self.sortUnique(&n.open) { $0 }
        n.decisions.reserveCapacity(n.open.count)
        var h = 0
        for slot in n.open {
            while h < hits.count && hits[h].slot < slot { h += 1 }
            n.decisions.append(h < hits.count && hits[h].slot == slot ? hits[h].code : 0)
        }
        n.area = StableArea(latitude: latitude, longitude: lon, radius: r)
    }

    /// The decisions (``RegionHit/code``) of the neighbourhood's open regions for a fix
    /// inside its area, the same as ``query(latitude:longitude:margin:into:)`` would make.
    ///
    /// - Complexity: O(open regions), no allocation once `codes` has capacity.
    func openDecisions(_ n: Neighbourhood, latitude: Double, longitude: Double, margin: Double,
                              into codes: inout [UInt8]) {
        codes.removeAll(keepingCapacity: true)
        let lon = Geodesic.unwrapDegrees(longitude)
        let m = margin >= 0 ? min(margin, maximumMargin) : 0
        var points = FixPoints(latitude: latitude, longitude: lon)
        defer { release(&points) }
        for slot in n.open {
            codes.append(test(Int(slot), latitude: latitude, longitude: lon, margin: m, points: &points)?.code ?? 0)
        }
    }

    /// The hits for a fix inside the neighbourhood's area: its fixed hits and the open regions
    /// hit by `codes`, by slot.
    func neighbourhoodHits(_ n: Neighbourhood, codes: [UInt8], into hits: inout [RegionHit]) {
        hits.removeAll(keepingCapacity: true)
        var f = 0
        for (k, slot) in n.open.enumerated() where codes[k] != 0 {
            while f < n.fixed.count && n.fixed[f].slot < slot {
                hits.append(n.fixed[f])
                f += 1
            }
            hits.append(RegionHit(slot: slot, code: codes[k]))
        }
        while f < n.fixed.count {
            hits.append(n.fixed[f])
            f += 1
        }
    }

    /// Sorts by key and drops repeated keys (equal keys carry equal values here).
    static func sortUnique<T>(_ a: inout [T], _ key: (T) -> Int32) {
        guard a.count > 1 else { return }
        a.sort { key($0) < key($1) }
        var w = 1
        for i in 1..<a.count where key(a[i]) != key(a[w - 1]) {
            a[w] = a[i]
            w += 1
        }
        a.removeLast(a.count - w)
    }
}
