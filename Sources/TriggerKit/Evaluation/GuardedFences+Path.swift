import Foundation

// Crossings between sparse fixes: does the geodesic from the previous fix to this one pass
// through a fence, and where along it does it enter and leave?

extension GuardedFences {
    /// Chords a polygon path is cut into, at most this long (metres): a 10 m chord strays
    /// from the geodesic by under 0.01 mm.
    static let chordLength = 10.0
    /// Precision of the boundary points along a circle's path, metres.
    static let pathPrecision = 1e-4

    /// The enter and exit dates of the path from `p` to the fix at `t`, both outside fence
    /// `f`, when the path passes through it (the boundary counts as inside): dates
    /// interpolated by distance along the path, rounded to the millisecond. nil when it
    /// does not, or the fixes are more than ``GeodesicPath/maximumLength`` apart. `boundary`:
    /// a circle's distance to its boundary at this fix if already measured (else -1).
    func passThrough(_ f: Int, from p: LastFix, toLatitude latitude: Double, longitude: Double, t: Int64,
                     lengthBound: Double, boundary: Double = -1, path cached: inout GeodesicPath??) -> (Int64, Int64)? {
        let fence = fences[f]
        // A path of length L through the fence has b0 + b1 <= L, where b0 and b1 are the
        // ends' distances to it: with an upper bound of L (`lengthBound`, haversine's bracket)
        // and lower bounds of b0 and b1 most paths are rejected in a few nanoseconds.
        guard lengthBound >= 0, lengthBound <= GeodesicPath.maximumLength * 1.01 else { return nil }
        let (meets, endsClear) = mayMeet(f, from: p, toLatitude: latitude, longitude: longitude, within: lengthBound, boundary: boundary)
        guard meets else { return nil }
        // Then the boxes: the path's (longitudes unwrapped from the start), widened for the
        // geodesic's bulge.
        let lon1 = p.longitude + Geodesic.unwrapDegrees(longitude - p.longitude)
        let pad = 1e-4 + 0.01 * max(abs(latitude - p.latitude), abs(lon1 - p.longitude))
        let loLat = min(p.latitude, latitude) - pad, hiLat = max(p.latitude, latitude) + pad
        guard hiLat >= fence.minLatitude, loLat <= fence.maxLatitude else { return nil }
        let loLon = min(p.longitude, lon1) - pad, hiLon = max(p.longitude, lon1) + pad
        let shifts = [0.0, 360, -360].filter { hiLon + $0 >= fence.minLongitude && loLon + $0 <= fence.maxLongitude }
        guard !shifts.isEmpty else { return nil }
        if cached == nil { cached = .some(GeodesicPath(latitude0: p.latitude, longitude0: p.longitude, latitude1: latitude, longitude1: lon1)) }
        guard let path = cached ?? nil, path.length > 0, path.length <= GeodesicPath.maximumLength else { return nil }
        let span = Double(t - p.t)
        // Boundary points to a quarter of the path's length per millisecond (a slow device's
        // date still rounds right), and never coarser than 0.1 mm.
        let precision = max(1e-9, min(Self.pathPrecision, path.length / max(1, span) / 4))
        let range = fence.radius >= 0 ? circleRange(fence, path, precision: precision)
            : polygonRange(f, path, shifts: shifts, endsClear: endsClear)
        guard let (sIn, sOut) = range else { return nil }
        func date(_ s: Double) -> Int64 { p.t + Int64((span * (s / path.length)).rounded(.toNearestOrAwayFromZero)) }
        return (date(sIn), date(sOut))
    }

    /// Whether a path no longer than `length` between two points outside fence `f` could
    /// meet it: false when the ends' distances to it add up to more than the length (for a
    /// circle, lower bounds from the index's fast plane; for a polygon, the local-plane edge
    /// distance, trusted to 1 % and 1 cm). And for a polygon, whether both ends are more
    /// than ``clearEnd`` from its boundary (``polygonRange(rings:index:box:_:shifts:covers:)``
    /// then needs no containment test).
    private func mayMeet(_ f: Int, from p: LastFix, toLatitude latitude: Double, longitude: Double, within length: Double,
                         boundary: Double) -> (meets: Bool, endsClear: Bool) {
        if fences[f].radius >= 0 {
            guard let b0 = regions.distanceToBoundary(slot: Int32(f), latitude: p.latitude, longitude: p.longitude),
                  let b1 = boundary >= 0 ? boundary : regions.distanceToBoundary(slot: Int32(f), latitude: latitude, longitude: longitude)
            else { return (true, true) }
            return (b0 + b1 <= length, true)
        }
        // Either end beyond (length + 0.01) / 0.99 decides it: the searches may stop there.
        let limit = Self.searchLimit((length + 0.01) / 0.99)
        let b0 = boundaryDistance(f, latitude: p.latitude, longitude: Geodesic.unwrapDegrees(p.longitude), within: limit)
        guard b0 <= limit else { return (false, true) }
        let b1 = boundaryDistance(f, latitude: latitude, longitude: longitude, within: limit)
        return ((b0 + b1) * 0.99 - 0.01 <= length, min(b0, b1) > Self.clearEnd)
    }

    /// A fix farther than this from a polygon's boundary (metres, local plane) is clear of
    /// it: no contact of a path can be the fix itself.
    static let clearEnd = 1e-3

    /// A circle: a point of the path inside it (golden-section search for the closest
    /// approach, stopping at the first point inside, or once no point can be: distance along
    /// a geodesic this short is unimodal), then the boundary on each side
    /// (``boundary(_:_:_:_:precision:_:)``).
    private func circleRange(_ fence: Fence, _ path: GeodesicPath, precision: Double) -> (Double, Double)? {
        Self.circleRange(radius: fence.radius, length: path.length, precision: precision) { s in
            let q = path.point(at: s)
            return Geodesic.distance(latitude1: fence.latitude, longitude1: fence.longitude, latitude2: q.latitude, longitude2: q.longitude)
        }
    }

    /// ``circleRange(_:_:precision:)`` for `g`, the distance from the centre at `s` metres
    /// along a path of `length` whose ends are outside radius `r`: where it enters and leaves,
    /// each to within `precision` on its inside, or nil when no point is within `r`. (Static:
    /// a test counts the evaluations of `g`, each a point along the geodesic and a distance.)
    static func circleRange(radius r: Double, length: Double, precision: Double, _ g: (Double) -> Double) -> (Double, Double)? {
        let phi = (5.0.squareRoot() - 1) / 2
        var a = 0.0, b = length
        var c = b - phi * (b - a), d = a + phi * (b - a)
        var gc = g(c), gd = g(d)
        var inside: (s: Double, g: Double)? = gc <= r ? (c, gc) : (gd <= r ? (d, gd) : nil)
        while inside == nil && b - a > precision {
            // A miss, once certain: the closest approach is in [a, b], and `g` changes by at
            // most the distance travelled (the path is a geodesic walked at unit speed), so no
            // point there is nearer than `max(gc, gd) - (b - a)` (1 µm spared for rounding).
            // The search went on to `precision` for every miss: most paths that pass `mayMeet`.
            if Swift.max(gc, gd) - (b - a) > r + 1e-6 { return nil }
            if gc <= gd {
                b = d; d = c; gd = gc
                c = b - phi * (b - a); gc = g(c)
                if gc <= r { inside = (c, gc) }
            } else {
                a = c; c = d; gc = gd
                d = a + phi * (b - a); gd = g(d)
                if gd <= r { inside = (d, gd) }
            }
        }
        if inside == nil {
            let m = (a + b) / 2, gm = g(m)
            guard gm <= r else { return nil }
            inside = (m, gm)
        }
        guard let (m, gm) = inside else { return nil }
        func f(_ s: Double) -> Double { g(s) - r }
        return (boundary(0, f(0), m, gm - r, precision: precision, f), boundary(length, f(length), m, gm - r, precision: precision, f))
    }

    /// The boundary between `o` (outside: `f` > 0 there, `fo`) and `i` (inside: `f` <= 0,
    /// `fi`) to within `precision`: the inside end of the last bracket (`o` itself when `f`
    /// is not positive there). Regula falsi with the Illinois rule (an end kept twice has its
    /// value halved), each estimate kept `precision / 2` inside the bracket so that it closes,
    /// and a bisection after two steps that did not halve it: 5-10 evaluations of a smooth
    /// crossing where bisection took 27 over 10 km (a path through 40 circles cost 2.2 ms; a
    /// helper's find); at worst a bisection every third step.
    static func boundary(_ o0: Double, _ fo0: Double, _ i0: Double, _ fi0: Double, precision: Double,
                         _ f: (Double) -> Double) -> Double {
        // (A NaN counts as outside, as everywhere here; `fi0` is <= 0 by the caller's search.)
        assert(!(fi0 > 0) && precision > 0)
        guard !(fo0 <= 0) else { return o0 }
        var o = o0, fo = fo0, i = i0, fi = fi0
        var keptOutside: Bool?
        var slow = 0
        while Swift.abs(i - o) > precision {
            let width = Swift.abs(i - o)
            let lo = Swift.min(o, i), hi = Swift.max(o, i), tol = precision / 2
            var m = (o + i) / 2
            if slow < 2 {
                // (fo > 0 >= fi: the denominator is positive.)
                let secant = i - fi * (o - i) / (fo - fi)
                if secant.isFinite { m = secant }
            } else {
                slow = 0
            }
            m = Swift.min(Swift.max(m, lo + tol), hi - tol)
            let fm = f(m)
            if fm <= 0 {
                (i, fi) = (m, fm)
                if keptOutside == true { fo /= 2 }
                keptOutside = true
            } else {
                (o, fo) = (m, fm)
                if keptOutside == false { fi /= 2 }
                keptOutside = false
            }
            slow = Swift.abs(i - o) > width / 2 ? slow + 1 : 0
        }
        return i
    }

    /// A polygon (planar in longitude/latitude, as its containment is): the path cut into
    /// chords of at most ``chordLength``, each intersected with the edges; it enters at the
    /// first contact and leaves at the last (both ends are outside, so any contact with the
    /// closed polygon is an edge contact). With an end on the boundary (within ``clearEnd``,
    /// not `endsClear`), the fixes' own test (``RegionIndex/contains(slot:latitude:longitude:)``)
    /// decides the stretches between contacts.
    private func polygonRange(_ f: Int, _ path: GeodesicPath, shifts: [Double], endsClear: Bool) -> (Double, Double)? {
        let fence = fences[f]
        let regions = regions
        return Self.polygonRange(rings: rings[Int32(f)] ?? [], index: edgeIndexes[Int32(f)],
                                 box: (fence.minLatitude, fence.maxLatitude, fence.minLongitude, fence.maxLongitude),
                                 path, shifts: shifts, covers: endsClear ? nil : { latitude, longitude in
            regions.contains(slot: Int32(f), latitude: latitude, longitude: Geodesic.unwrapDegrees(longitude))
        })
    }

    /// Contacts closer than this to a fix (metres along the path) are the fix itself, which
    /// is outside: a fix on an edge (within rounding) touches the paths into and out of it,
    /// and counting that touch made each of them a pass-through (the same enter twice).
    static let endContact = 1e-6

    /// ``polygonRange(_:_:shifts:endsClear:)`` for `rings` in fence box `box`: with `index`,
    /// each chord reads the edges of the cells its box meets; without, every edge. The same
    /// contacts either way (``EdgeIndex``), so the same range. The chords end at the fixes as
    /// given (the path's own end point is nanometres off, and for a fix on an edge that
    /// decided which side it was on).
    ///
    /// `covers` (a point's containment, latitude and longitude), for a path with an end on
    /// the boundary: between two consecutive contacts the path is wholly inside or wholly
    /// outside, so the midpoint of each stretch decides it, and the path enters at the start
    /// of the first stretch inside or at an earlier contact (a touch counts), and leaves at
    /// the end of the last one or at a later contact. A contact within ``endContact`` of a
    /// fix is the fix itself, which is outside.
    static func polygonRange(rings: [[(x: Double, y: Double)]], index: EdgeIndex?,
                             box: (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double),
                             _ path: GeodesicPath, shifts: [Double], covers: ((Double, Double) -> Bool)?) -> (Double, Double)? {
        let n = max(1, Int((path.length / Self.chordLength).rounded(.up)))
        let step = path.length / Double(n)
        var first = Double.infinity, last = -Double.infinity
        var contacts: [Double] = []
        var a = (latitude: path.latitude0, longitude: path.longitude0)
        for k in 1...n {
            let b = k == n ? (latitude: path.latitude1, longitude: path.longitude1) : path.point(at: Double(k) * step)
            for shift in shifts {
                let ax = a.longitude + shift, bx = b.longitude + shift
                let x0 = min(ax, bx), x1 = max(ax, bx), y0 = min(a.latitude, b.latitude), y1 = max(a.latitude, b.latitude)
                guard x1 >= box.minLongitude, x0 <= box.maxLongitude, y1 >= box.minLatitude, y0 <= box.maxLatitude
                else { continue }
                func meet(_ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double) {
                    guard let u = chordContact(ax, a.latitude, bx, b.latitude, x0, x1, y0, y1, cx, cy, dx, dy) else { return }
                    let s = min(path.length, (Double(k - 1) + u) * step)
                    first = min(first, s)
                    last = max(last, s)
                    if covers != nil { contacts.append(s) }
                }
                if let index {
                    // Tens of edges, not all of them: chords x vertices was ~1 s a fix at 100,000.
                    index.forEachEdge(x0, x1, y0, y1, meet)
                } else {
                    for ring in rings {
                        for j in 1..<max(1, ring.count) { meet(ring[j - 1].x, ring[j - 1].y, ring[j].x, ring[j].y) }
                    }
                }
            }
            a = b
        }
        guard let covers else { return first <= last ? (first, last) : nil }
        contacts.sort()
        let length = path.length, near = Self.endContact
        // Contacts off the fixes are points of the path on the boundary.
        let touches = contacts.filter { $0 > near && $0 < length - near }
        // The stretches between contacts (the fixes included; one stretch, the whole path,
        // when no contact was found: a path from one edge fix to another can miss both by
        // rounding), those longer than `near`, tested at their midpoints.
        let cuts = [0] + contacts + [length]
        func inside(_ i: Int) -> Bool {
            guard cuts[i + 1] - cuts[i] > near else { return false }
            let m = path.point(at: (cuts[i] + cuts[i + 1]) / 2)
            return covers(m.latitude, m.longitude)
        }
        first = touches.first ?? .infinity
        last = touches.last ?? -.infinity
        if let i = cuts.indices.dropLast().first(where: inside) {
            first = min(first, cuts[i])
            if let j = cuts.indices.dropLast().last(where: inside) { last = max(last, cuts[j + 1]) }
        }
        return first <= last ? (first, last) : nil
    }

    /// ``intersection`` of chord A-B (its box `x0...x1` x `y0...y1`) and edge C-D, for edges
    /// whose box meets the chord's only: segments that touch always have meeting boxes, and
    /// skipping the others makes the plain loop and ``EdgeIndex`` test the same set (a nearly
    /// collinear pair whose boxes are apart could otherwise round to a contact).
    @inline(__always)
    static func chordContact(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                             _ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double,
                             _ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double) -> Double? {
        guard max(cx, dx) >= x0, min(cx, dx) <= x1, max(cy, dy) >= y0, min(cy, dy) <= y1 else { return nil }
        return intersection(ax, ay, bx, by, cx, cy, dx, dy)
    }

    /// Where segment A-B meets segment C-D, as the parameter along A-B in [0, 1] (the
    /// smallest one for collinear overlapping segments); nil when they do not meet.
    static func intersection(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                             _ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double) -> Double? {
        let rx = bx - ax, ry = by - ay, sx = dx - cx, sy = dy - cy
        let denom = rx * sy - ry * sx
        let qx = cx - ax, qy = cy - ay
        if denom == 0 {
            guard qx * ry - qy * rx == 0 else { return nil }  // parallel, apart
            let rr = rx * rx + ry * ry
            guard rr > 0 else { return nil }
            let u0 = (qx * rx + qy * ry) / rr, u1 = ((dx - ax) * rx + (dy - ay) * ry) / rr
            let lo = max(0, min(u0, u1)), hi = min(1, max(u0, u1))
            return lo <= hi ? lo : nil
        }
        let u = (qx * sy - qy * sx) / denom
        let v = (qx * ry - qy * rx) / denom
        return u >= 0 && u <= 1 && v >= 0 && v <= 1 ? u : nil
    }
}
