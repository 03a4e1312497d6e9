// Queries: which regions contain a fix.

@_spi(Engine) extension RegionIndex {
    /// Replaces `hits` with every region within `radius + margin` of the fix (polygons: that
    /// cover it), sorted by slot, each telling whether the fix is also within
    /// `radius - margin` (``RegionHit/inner``) and within `radius` (``RegionHit/contains``).
    ///
    /// Decisions agree with the exact WGS84 geodesic within 1 cm. A fix with a latitude
    /// outside [-90, 90] or a non-finite coordinate matches nothing; longitudes are wrapped.
    /// A negative margin counts as 0; a margin above ``maximumMargin`` (set when building)
    /// counts as ``maximumMargin``.
    ///
    /// - Complexity: O(levels + candidates): one hash probe per non-empty grid level, then an
    ///   O(1) test per candidate circle (a few ns; ~0.2 µs when within the flat plane's error
    ///   bound of a threshold) and an O(log v) GEOS test per candidate polygon. No allocation
    ///   once `hits` has capacity. Measured ~40-150 ns (Benchmarks/GeoBench).
    public func query(latitude: Double, longitude: Double, margin: Double, into hits: inout [RegionHit]) {
        hits.removeAll(keepingCapacity: true)
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude) else { return }
        let lon = Geodesic.unwrapDegrees(longitude)
        let m = margin >= 0 ? min(margin, maximumMargin) : 0
        var points = FixPoints(latitude: latitude, longitude: lon)
        defer { release(&points) }
        var levelsWithHits = 0
        var mask = summary.mask(latitude: latitude, longitude: lon)
        while mask != 0 {
            let level = mask.trailingZeroBitCount
            mask &= mask - 1
            let scale = Self.levelScales[level]
            let ix = Self.cellIndex(lon + 180, scale: scale) & ((1 << level) - 1)
            let iy = Self.cellIndex(latitude + 90, scale: scale)
            let key = Self.cellKey(level: level, ix: ix, iy: iy)
            let run = grid.lookup(key)
            let appended = overlaySlots(key)
            if run.isEmpty && appended == nil { continue }
            let before = hits.count
            grid.slots.withUnsafeBufferPointer { slots in
                for i in run {
                    if let hit = test(Int(slots[i]), latitude: latitude, longitude: lon, margin: m, points: &points) {
                        hits.append(hit)
                    }
                }
            }
            // Appended slots are above every built one: the level's run stays in slot order.
            for slot in appended ?? [] {
                if let hit = test(Int(slot), latitude: latitude, longitude: lon, margin: m, points: &points) {
                    hits.append(hit)
                }
            }
            if hits.count > before { levelsWithHits += 1 }
        }
        // Each cell's run is in slot order; only runs from different levels need merging.
        if levelsWithHits > 1 { hits.sort { $0.slot < $1.slot } }
    }

    /// Whether region `slot` contains the fix (distance <= radius; polygons: covers).
    /// False for invalid or out-of-range slots.
    ///
    /// - Complexity: O(1) for circles, O(log v) for a polygon of v vertices.
    public func contains(slot: Int32, latitude: Double, longitude: Double) -> Bool {
        guard slot >= 0, Int(slot) < count, latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude) else { return false }
        var points = FixPoints(latitude: latitude, longitude: Geodesic.unwrapDegrees(longitude))
        defer { release(&points) }
        return test(Int(slot), latitude: latitude, longitude: points.longitude, margin: 0, points: &points)?.contains ?? false
    }

    /// For a circle, a lower bound of |geodesic distance - radius| in metres: the fix can
    /// move this far without changing plain containment (an evaluator may skip such fixes).
    /// nil for polygons and invalid slots.
    ///
    /// - Complexity: O(1).
    public func distanceToBoundary(slot: Int32, latitude: Double, longitude: Double) -> Double? {
        boundarySide(slot: slot, latitude: latitude, longitude: longitude)?.distance
    }

    /// ``distanceToBoundary(slot:latitude:longitude:)`` and, from the same measurement, which
    /// side of it the fix is on: when `distance` > 0, `inside` is what
    /// ``contains(slot:latitude:longitude:)`` answers (the flat plane's distance is then
    /// farther from the radius than its error bound; an exact circle measures the geodesic
    /// both ask). nil for polygons and invalid slots.
    func boundarySide(slot: Int32, latitude: Double, longitude: Double) -> (distance: Double, inside: Bool)? {
        guard let (d, err, r) = centreMeasure(slot: slot, latitude: latitude, longitude: longitude) else { return nil }
        return (max(0, abs(d - r) - err), d <= r)
    }

    /// A circle's distance from its centre to a point (longitude wrapped or not) as the
    /// tests decide by it: the flat plane's, with its error bound, or the geodesic (error 0);
    /// and the radius. nil for polygons, invalid slots and non-finite points.
    @inline(__always)
    func centreMeasure(slot: Int32, latitude: Double, longitude: Double) -> (distance: Double, error: Double, radius: Double)? {
        guard slot >= 0, Int(slot) < count, latitude.isFinite, longitude.isFinite else { return nil }
        let e = entries[Int(slot)]
        let lon = Geodesic.unwrapDegrees(longitude)
        switch e.kind {
        case .planeCircle:
            let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
            return (d, e.plane.errorBound(d), e.radius)
        case .exactCircle:
            return (Geodesic.distance(latitude1: e.latitude, longitude1: e.longitude, latitude2: latitude, longitude2: lon), 0, e.radius)
        case .polygon, .invalid:
            return nil
        }
    }

    static let levelScales: [Double] = (0...maximumLevel).map { Double(1 << $0) / 360 }

    /// The test of one candidate; nil when the fix is beyond `radius + margin` (polygons: not
    /// covered).
    @inline(__always)
    func test(_ slot: Int, latitude: Double, longitude lon: Double, margin m: Double,
              points: inout FixPoints) -> RegionHit? {
        let e = entries[slot]
        let r = e.radius, outer = r + m
        switch e.kind {
        case .planeCircle:
            let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
            let err = e.plane.errorBound(d)
            if d - err > outer { return nil }
            // Only a threshold within the error bound needs the exact geodesic (rare: the
            // band is < 6 mm wide).
            if abs(d - outer) > err && abs(d - r) > err && abs(d - (r - m)) > err {
                return RegionHit(slot: Int32(slot), inner: d <= r - m, contains: d <= r)
            }
            return exactHit(slot, e, latitude, lon, m)
        case .exactCircle:
            let h = Haversine.distance(latitude, lon, e.latitude, e.longitude)
            let lo = h * (1 - Haversine.relativeBound) - Haversine.absoluteBound
            if lo > outer { return nil }
            let hi = h * (1 + Haversine.relativeBound) + Haversine.absoluteBound
            if hi <= r - m { return RegionHit(slot: Int32(slot), inner: true, contains: true) }
            return exactHit(slot, e, latitude, lon, m)
        case .polygon:
            return polygonCovers(Int(e.polygon), points: &points) ? RegionHit(slot: Int32(slot), inner: true, contains: true) : nil
        case .invalid:
            return nil
        }
    }

    func exactHit(_ slot: Int, _ e: Entry, _ latitude: Double, _ lon: Double, _ m: Double) -> RegionHit? {
        let d = Geodesic.distance(latitude1: e.latitude, longitude1: e.longitude, latitude2: latitude, longitude2: lon)
        if d > e.radius + m { return nil }
        return RegionHit(slot: Int32(slot), inner: d <= e.radius - m, contains: d <= e.radius)
    }

    /// Whether polygon `i` covers the fix. Reads the entry's plain fields one by one (its rings
    /// are a plain value): borrowing the array or copying the entry would count references on
    /// objects both of `run`'s threads share, a contended atomic per test.
    func polygonCovers(_ i: Int, points: inout FixPoints) -> Bool {
        guard context != nil, points.latitude >= polygons[i].minY, points.latitude <= polygons[i].maxY else { return false }
        let shifted = polygons[i].shifted, minX = polygons[i].minX, maxX = polygons[i].maxX
        // The fix's longitude in the polygon's frame, plus the other name of the antimeridian
        // (a fix at -180 is at 180 too). (Not `Which.allCases`: iterating that shared array
        // counts references too.)
        for which in FixPoints.Which.plain.rawValue...FixPoints.Which.antimeridian.rawValue {
            let which = FixPoints.Which(rawValue: which)!
            guard let x = points.x(which, shifted: shifted), x >= minX, x <= maxX else { continue }
            switch polygons[i].rings.covers(x: x, y: points.latitude) {
            case .covered: return true
            case .outside: continue
            case .uncertain: break  // within rounding of an edge: GEOS's exact predicate decides
            }
            geosLock.lock()
            defer { geosLock.unlock() }
            do {
                if try points.covers(try preparedPolygon(i), which, x: x) { return true }
            } catch {
                markGEOSFailure()
            }
        }
        return false
    }
}

/// The GEOS points of one fix, each created only if a polygon candidate needs it.
struct FixPoints {
    enum Which: Int { case plain, shifted, antimeridian }
    let latitude: Double
    let longitude: Double
    // Three stored optionals, not an array: an array would allocate on every query.
    private var plain: GEOSLazyPoint?
    private var shifted: GEOSLazyPoint?
    private var antimeridian: GEOSLazyPoint?

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The x to test for a polygon in the given frame, or nil if that variant does not apply.
    func x(_ which: Which, shifted: Bool) -> Double? {
        switch which {
        case .plain: return longitude
        case .shifted: return shifted && longitude < 0 ? longitude + 360 : nil
        case .antimeridian: return abs(longitude) == 180 ? -longitude : nil
        }
    }

    /// Whether `prepared` covers the variant `which` of the fix (at `x`, this fix's latitude).
    mutating func covers(_ prepared: GEOSPreparedGeometry, _ which: Which, x: Double) throws(GEOSError) -> Bool {
        switch which {
        case .plain: return try Self.covers(prepared, &plain, x, latitude)
        case .shifted: return try Self.covers(prepared, &shifted, x, latitude)
        case .antimeridian: return try Self.covers(prepared, &antimeridian, x, latitude)
        }
    }

    private static func covers(_ prepared: GEOSPreparedGeometry, _ slot: inout GEOSLazyPoint?, _ x: Double,
                               _ y: Double) throws(GEOSError) -> Bool {
        var point = slot ?? GEOSLazyPoint(x: x, y: y)
        defer { slot = point }
        return try prepared.covers(&point)
    }

    /// Whether this fix made a GEOS point (to be freed by ``release(_:)``).
    var holdsGEOS: Bool { plain != nil || shifted != nil || antimeridian != nil }

    /// Frees the GEOS points this fix made, if any (most fixes make none: only a polygon test
    /// within rounding of an edge does). Checks before touching the context.
    @inline(__always)
    mutating func release(_ ctx: GEOSContext?) {
        guard plain != nil || shifted != nil || antimeridian != nil, let ctx else { return }
        plain?.release(ctx)
        shifted?.release(ctx)
        antimeridian?.release(ctx)
    }
}
