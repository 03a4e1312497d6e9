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
        guard lengthBound >= 0, lengthBound <= GeodesicPath.maximumLength * 1.01,
              mayMeet(f, from: p, toLatitude: latitude, longitude: longitude, within: lengthBound, boundary: boundary) else { return nil }
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
        let range = fence.radius >= 0 ? circleRange(fence, path, precision: precision) : polygonRange(f, path, shifts: shifts)
        guard let (sIn, sOut) = range else { return nil }
        func date(_ s: Double) -> Int64 { p.t + Int64((span * (s / path.length)).rounded(.toNearestOrAwayFromZero)) }
        return (date(sIn), date(sOut))
    }

    /// Whether a path no longer than `length` between two points outside fence `f` could
    /// meet it: false when the ends' distances to it add up to more than the length (for a
    /// circle, lower bounds from the index's fast plane; for a polygon, the local-plane edge
    /// distance, trusted to 1 % and 1 cm).
    private func mayMeet(_ f: Int, from p: LastFix, toLatitude latitude: Double, longitude: Double, within length: Double,
                         boundary: Double) -> Bool {
        if fences[f].radius >= 0 {
            guard let b0 = regions.distanceToBoundary(slot: Int32(f), latitude: p.latitude, longitude: p.longitude),
                  let b1 = boundary >= 0 ? boundary : regions.distanceToBoundary(slot: Int32(f), latitude: latitude, longitude: longitude)
            else { return true }
            return b0 + b1 <= length
        }
        // Either end beyond (length + 0.01) / 0.99 decides it: the searches may stop there.
        let limit = Self.searchLimit((length + 0.01) / 0.99)
        let b0 = boundaryDistance(f, latitude: p.latitude, longitude: Geodesic.unwrapDegrees(p.longitude), within: limit)
        guard b0 <= limit else { return false }
        let b1 = boundaryDistance(f, latitude: latitude, longitude: longitude, within: limit)
        return (b0 + b1) * 0.99 - 0.01 <= length
    }

    /// A circle: the closest approach (golden-section search: distance along a geodesic
    /// this short is unimodal), then the boundary on each side by bisection.
    private func circleRange(_ fence: Fence, _ path: GeodesicPath, precision: Double) -> (Double, Double)? {
        func g(_ s: Double) -> Double {
            let q = path.point(at: s)
            return Geodesic.distance(latitude1: fence.latitude, longitude1: fence.longitude, latitude2: q.latitude, longitude2: q.longitude)
        }
        let phi = (5.0.squareRoot() - 1) / 2
        var a = 0.0, b = path.length
        var c = b - phi * (b - a), d = a + phi * (b - a)
        var gc = g(c), gd = g(d)
        while b - a > precision {
            if gc <= gd {
                b = d; d = c; gd = gc
                c = b - phi * (b - a); gc = g(c)
            } else {
                a = c; c = d; gc = gd
                d = a + phi * (b - a); gd = g(d)
            }
        }
        let sMin = (a + b) / 2
        guard g(sMin) <= fence.radius else { return nil }
        // First s with g <= r on [0, sMin], last on [sMin, L]; both ends are outside.
        var lo = 0.0, hi = sMin
        while hi - lo > precision {
            let m = (lo + hi) / 2
            if g(m) <= fence.radius { hi = m } else { lo = m }
        }
        let sIn = hi
        lo = sMin
        hi = path.length
        while hi - lo > precision {
            let m = (lo + hi) / 2
            if g(m) <= fence.radius { lo = m } else { hi = m }
        }
        return (sIn, lo)
    }

    /// A polygon (planar in longitude/latitude, as its containment is): the path cut into
    /// chords of at most ``chordLength``; the first and last points where a chord meets an
    /// edge are where it enters and leaves (both ends are outside, so any contact with the
    /// closed polygon is an edge contact).
    private func polygonRange(_ f: Int, _ path: GeodesicPath, shifts: [Double]) -> (Double, Double)? {
        let fence = fences[f]
        return Self.polygonRange(rings: rings[Int32(f)] ?? [], index: edgeIndexes[Int32(f)],
                                 box: (fence.minLatitude, fence.maxLatitude, fence.minLongitude, fence.maxLongitude),
                                 path, shifts: shifts)
    }

    /// ``polygonRange(_:_:shifts:)`` for `rings` in fence box `box`: with `index`, each chord
    /// reads the edges of the cells its box meets; without, every edge. The same contacts
    /// either way (``EdgeIndex``), so the same first and last.
    static func polygonRange(rings: [[(x: Double, y: Double)]], index: EdgeIndex?,
                             box: (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double),
                             _ path: GeodesicPath, shifts: [Double]) -> (Double, Double)? {
        let n = max(1, Int((path.length / Self.chordLength).rounded(.up)))
        let step = path.length / Double(n)
        var first = Double.infinity, last = -Double.infinity
        var a = path.point(at: 0)
        for k in 1...n {
            let b = path.point(at: Double(k) * step)
            for shift in shifts {
                let ax = a.longitude + shift, bx = b.longitude + shift
                let x0 = min(ax, bx), x1 = max(ax, bx), y0 = min(a.latitude, b.latitude), y1 = max(a.latitude, b.latitude)
                guard x1 >= box.minLongitude, x0 <= box.maxLongitude, y1 >= box.minLatitude, y0 <= box.maxLatitude
                else { continue }
                func meet(_ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double) {
                    guard let u = chordContact(ax, a.latitude, bx, b.latitude, x0, x1, y0, y1, cx, cy, dx, dy) else { return }
                    let s = (Double(k - 1) + u) * step
                    first = min(first, s)
                    last = max(last, s)
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
