import Foundation

// Queries that also say how far the fix may move before any answer can change, so a stream
// evaluator can skip the query (and the whole state step) for a device that stays put.

/// A disc around a queried point within which ``RegionIndex`` gives the same hits, with the
/// same ``RegionHit/inner`` and ``RegionHit/contains``, for the margin it was computed with.
///
/// Stored per device by the stream evaluator (32 bytes). ``contains(latitude:longitude:)`` is
/// a conservative test: it may say no for a point inside the disc, never yes for one outside.
@_spi(Engine) public struct StableArea: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Geodesic radius in metres; <= 0 means "no area" (nothing is contained).
    public var radius: Double
    /// An upper bound of metres per degree of longitude anywhere within
    /// ``RegionIndex/maximumStableRadius`` of the centre.
    var kLon: Double

    /// The area that contains nothing.
    public static let empty = StableArea(latitude: 0, longitude: 0, radius: 0, kLon: 0)

    /// The largest metres per degree of latitude anywhere on WGS84: the meridional radius of
    /// curvature peaks at the poles at a / sqrt(1 - e²).
    static let kLatMax = Geodesic.equatorialRadius / (1 - Geodesic.e2).squareRoot() * Geodesic.degree
    /// Latitude change (degrees) within ``RegionIndex/maximumStableRadius`` of any point:
    /// |Δφ| <= s / M_min, M_min = a(1 - e²), with a small cushion.
    static let latitudeReach = RegionIndex.maximumStableRadius / (Geodesic.equatorialRadius * (1 - Geodesic.e2) * Geodesic.degree) * 1.001

    init(latitude: Double, longitude: Double, radius: Double, kLon: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.kLon = kLon
    }

    /// An area of `radius` metres (capped at ``RegionIndex/maximumStableRadius``) around a point.
    init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = min(radius, RegionIndex.maximumStableRadius)
        // N cos φ <= a / sqrt(1 - e²) * cos φ, and |φ| >= |φ0| - reach on the way.
        let lowest = max(0, abs(latitude) - Self.latitudeReach)
        self.kLon = Self.kLatMax * cos(lowest * Geodesic.degree)
    }

    /// Whether the point is surely within ``radius`` of the centre (geodesic distance).
    ///
    /// The straight segment in (latitude, longitude) between the two points is a path of
    /// length <= sqrt((M_max Δφ)² + ((N cos φ)_max Δλ)²) (its length element is
    /// sqrt(M² dφ² + N² cos² φ dλ²)); the geodesic is no longer than any path. A wrapped
    /// longitude difference is never unwrapped here: it only makes the test say no.
    ///
    /// - Complexity: O(1), a few multiplications (no trigonometry).
    @inline(__always)
    public func contains(latitude lat: Double, longitude lon: Double) -> Bool {
        let dLat = lat - latitude
        guard abs(dLat) <= Self.latitudeReach else { return false }
        let y = dLat * Self.kLatMax, x = (lon - longitude) * kLon
        return x * x + y * y < radius * radius
    }
}

@_spi(Engine) extension RegionIndex {
    /// The largest stable radius a query reports (metres); it bounds how far latitude can
    /// change within it, which the longitude scale of ``StableArea`` relies on.
    public static let maximumStableRadius = 5_000.0
    /// Beyond this latitude a query reports no stable area (meridians converge too fast for
    /// the simple bounds to be worth it).
    static let maximumStableLatitude = 80.0
    /// Slack for the exact geodesic's own error (Vincenty, ~0.1 mm): a decision made by it can
    /// differ from the true side of a threshold only within this distance.
    static let geodesicSlack = 1e-3

    /// ``query(latitude:longitude:margin:into:)``, also returning a ``StableArea``: every
    /// point within it gets the same hits with the same `inner` and `contains` flags.
    ///
    /// The radius is the minimum of: for every candidate circle in the cells read, the
    /// distance from the fix to the nearest of its thresholds radius - margin, radius and
    /// radius + margin (a lower bound: flat distance minus the plane's error bound, or the
    /// haversine bracket; minus the exact geodesic's slack); the distance to the edge of every
    /// grid cell read and of the level-summary cell (a region stored in no cell read has its
    /// box, hence its circle, wholly outside that cell). A polygon candidate gives 0.
    ///
    /// - Complexity: as ``query(latitude:longitude:margin:into:)`` plus one cosine.
    public func queryStableArea(latitude: Double, longitude: Double, margin: Double,
                                into hits: inout [RegionHit]) -> StableArea {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= Self.maximumStableLatitude else {
            query(latitude: latitude, longitude: longitude, margin: margin, into: &hits)
            return .empty
        }
        hits.removeAll(keepingCapacity: true)
        let lon = Geodesic.unwrapDegrees(longitude)
        let m = margin >= 0 ? min(margin, maximumMargin) : 0
        var points = FixPoints(latitude: latitude, longitude: lon)
        defer { if let context { points.release(context) } }
        // Degrees to metres, from below, for any point within maximumStableRadius: meridional
        // radius >= a(1 - e²); N cos φ >= a cos(φ_max).
        let kLatMin = Geodesic.equatorialRadius * (1 - Geodesic.e2) * Geodesic.degree
        let kLonMin = Geodesic.equatorialRadius * Geodesic.degree
            * cos(min(90, abs(latitude) + StableArea.latitudeReach) * Geodesic.degree)
        // Cell edges: 1e-9 degrees of slack for rounding in the index computation.
        @inline(__always) func edge(_ scale: Double, _ ix: Int, _ iy: Int) -> Double {
            let x = lon + 180, y = latitude + 90, size = 1 / scale
            let dx = min(x - Double(ix) * size, Double(ix + 1) * size - x) - 1e-9
            let dy = min(y - Double(iy) * size, Double(iy + 1) * size - y) - 1e-9
            return min(dx * kLonMin, dy * kLatMin)
        }
        // Local copies of the index's stored arrays (one retain each): reading the class's
        // `var` properties in the loop would pay Swift's dynamic exclusivity check per read.
        let entries = self.entries
        let polygons = self.polygons
        let grid = self.grid
        var safe = Self.maximumStableRadius
        safe = min(safe, edge(LevelSummary.scale,
                              Self.cellIndex(lon + 180, scale: LevelSummary.scale),
                              Self.cellIndex(latitude + 90, scale: LevelSummary.scale)))
        // One candidate: its hit, and how far the fix is from its nearest threshold.
        @inline(__always) func visit(_ slot: Int) {
            let e = entries[slot]
            if e.kind == .polygon {
                // No stable area around a polygon candidate (its threshold distance is 0).
                if polygons.withUnsafeBufferPointer({ polygonCovers($0, Int(e.polygon), points: &points) }) {
                    hits.append(RegionHit(slot: Int32(slot), inner: true, contains: true))
                }
                safe = 0
                return
            }
            if e.kind == .planeCircle {
                // The common case, fused: one flat distance serves the decision and the
                // threshold distance (the two-call path computes it twice).
                let r = e.radius
                let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
                let err = e.plane.errorBound(d)
                let nearest = min(abs(d - (r + m)), abs(d - r), abs(d - (r - m)))
                if nearest > err {
                    if d <= r + m { hits.append(RegionHit(slot: Int32(slot), inner: d <= r - m, contains: d <= r)) }
                    safe = min(safe, nearest - err - Self.geodesicSlack)
                    return
                }
            }
            if let hit = test(slot, latitude: latitude, longitude: lon, margin: m, points: &points) {
                hits.append(hit)
            }
            safe = min(safe, thresholdDistance(slot, latitude: latitude, longitude: lon, margin: m))
        }
        var levelsWithHits = 0
        var mask = summary.mask(latitude: latitude, longitude: lon)
        while mask != 0 {
            let level = mask.trailingZeroBitCount
            mask &= mask - 1
            let scale = Self.levelScales[level]
            let ix = Self.cellIndex(lon + 180, scale: scale)
            let iy = Self.cellIndex(latitude + 90, scale: scale)
            safe = min(safe, edge(scale, ix, iy))
            let key = Self.cellKey(level: level, ix: ix & ((1 << level) - 1), iy: iy)
            let run = grid.lookup(key)
            let appended = overlaySlots(key)
            if run.isEmpty && appended == nil { continue }
            let before = hits.count
            grid.slots.withUnsafeBufferPointer { slots in
                for i in run { visit(Int(slots[i])) }
            }
            // Appended slots are above every built one: the level's run stays in slot order.
            for slot in appended ?? [] { visit(Int(slot)) }
            if hits.count > before { levelsWithHits += 1 }
        }
        if levelsWithHits > 1 { hits.sort { $0.slot < $1.slot } }
        guard safe > 0 else { return .empty }
        return StableArea(latitude: latitude, longitude: lon, radius: safe)
    }

    /// A lower bound (metres) of how far the fix is from the nearest threshold of region
    /// `slot` (radius - margin, radius, radius + margin), less the exact geodesic's slack;
    /// 0 for polygons.
    @inline(__always)
    func thresholdDistance(_ slot: Int, latitude: Double, longitude lon: Double, margin m: Double) -> Double {
        let e = entries[slot]
        let r = e.radius
        switch e.kind {
        case .planeCircle:
            let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
            let nearest = min(abs(d - (r + m)), abs(d - r), abs(d - (r - m)))
            return nearest - e.plane.errorBound(d) - Self.geodesicSlack
        case .exactCircle:
            let h = Haversine.distance(latitude, lon, e.latitude, e.longitude)
            let lo = h * (1 - Haversine.relativeBound) - Haversine.absoluteBound
            let hi = h * (1 + Haversine.relativeBound) + Haversine.absoluteBound
            @inline(__always) func gap(_ t: Double) -> Double { t < lo ? lo - t : (t > hi ? t - hi : 0) }
            return min(gap(r + m), gap(r), gap(r - m)) - Self.geodesicSlack
        case .polygon:
            return 0
        case .invalid:
            return .infinity
        }
    }
}
