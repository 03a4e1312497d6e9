/// A polygon region's rings as flat planar coordinates (longitude, latitude in the polygon's
/// frame), for a native point-in-polygon test that needs no GEOS call per fix.
///
/// The test is GEOS's own (`RayCrossingCounter`, which `IndexedPointInAreaLocator` and
/// prepared `covers` use): count the edges of every ring that a ray from the point towards +x
/// crosses, with a point on an edge or vertex counting as covered; an odd count is inside.
/// The one floating-point decision, the side of an edge the point is on, is made with
/// Shewchuk's orientation filter (J. R. Shewchuk, "Adaptive Precision Floating-Point
/// Arithmetic and Fast Robust Geometric Predicates", 1997: `orient2d`'s first-stage bound
/// (3 + 16 eps) eps): where the rounded determinant is within that bound of zero the sign is
/// not certain and the answer is ``Covering/uncertain``, for GEOS's exact predicate to decide.
/// Elsewhere the answer is exactly GEOS's. Points that close to an edge are within about
/// 1e-14 degrees of it (a nanometre).
///
/// Edges are indexed by horizontal bands of the polygon's latitude range: a point is tested
/// only against the edges whose latitude span covers its own (the only ones the rule can
/// count or find it on), a few per band instead of every edge.
///
/// A plain value of pointers and numbers (no reference to count: the tests run on both of
/// `run`'s threads at once, and reference counting on shared polygons cost them a third of
/// their time). The memory it points into is a ``Storage``, which whoever keeps the rings keeps
/// alongside them (``RegionIndex``'s polygon entries do).
struct PlanarRings: @unchecked Sendable {
    // @unchecked: read-only pointers into a ``Storage`` written once, before any reader.
    let xs: UnsafeBufferPointer<Double>
    let ys: UnsafeBufferPointer<Double>
    /// End (exclusive) of each closed ring in `xs` / `ys`.
    let ringEnds: UnsafeBufferPointer<Int32>
    /// Band b holds the edges (k, k + 1) listed at `bandEdges[bandStarts[b] ..< bandStarts[b + 1]]`.
    let bandStarts: UnsafeBufferPointer<Int32>
    let bandEdges: UnsafeBufferPointer<Int32>
    let minY: Double
    let bandScale: Double

    enum Covering { case covered, outside, uncertain }

    /// The rings' pointers into a ``Storage`` (only a storage makes one: it keeps the memory).
    init(xs: UnsafeBufferPointer<Double>, ys: UnsafeBufferPointer<Double>, ringEnds: UnsafeBufferPointer<Int32>,
         bandStarts: UnsafeBufferPointer<Int32>, bandEdges: UnsafeBufferPointer<Int32>, minY: Double, bandScale: Double) {
        (self.xs, self.ys, self.ringEnds, self.bandStarts, self.bandEdges) = (xs, ys, ringEnds, bandStarts, bandEdges)
        (self.minY, self.bandScale) = (minY, bandScale)
    }

    /// The band of latitude `y` (the same monotone function the edges were listed with).
    @inline(__always)
    func band(_ y: Double) -> Int {
        Self.band(y, minY: minY, scale: bandScale, bands: bandStarts.count - 1)
    }

    /// The band function: floor((y - minY) * scale) clamped to 0...bands - 1, monotone in y.
    /// Clamped as a double first: a point far from a very thin polygon's latitudes gives a
    /// product beyond Int's range (1e302), which must not trap.
    @inline(__always)
    static func band(_ y: Double, minY: Double, scale: Double, bands: Int) -> Int {
        let v = ((y - minY) * scale).rounded(.down)
        guard v > 0 else { return 0 }  // (and NaN)
        return v >= Double(bands - 1) ? bands - 1 : Int(v)
    }

    /// Shewchuk's `ccwerrboundA`: (3 + 16 eps) eps with eps = 2^-53.
    static let orientationBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53

    /// Whether the point (x, y) is covered (interior or boundary). O(edges in its band).
    func covers(x: Double, y: Double) -> Covering {
        guard y >= minY else { return .outside }
        let b = band(y)
        return withEdges(bands: b, b) { xs, ys, edges, range in
            var crossings = 0
            for i in range {
                let k = Int(edges[i])
                let x1 = xs[k], y1 = ys[k], x2 = xs[k + 1], y2 = ys[k + 1]
                if x1 < x && x2 < x { continue }
                if x == x2 && y == y2 { return .covered }
                if y1 == y && y2 == y {
                    if x >= Swift.min(x1, x2) && x <= Swift.max(x1, x2) { return .covered }
                    continue
                }
                if (y1 > y && y2 <= y) || (y2 > y && y1 <= y) {
                    let left = (x1 - x) * (y2 - y)
                    let right = (y1 - y) * (x2 - x)
                    let det = left - right
                    if abs(det) <= Self.orientationBound * (abs(left) + abs(right)) { return .uncertain }
                    // det > 0: the point is left of p1 -> p2 (counter-clockwise).
                    let upward = y2 > y1
                    if (det > 0) == upward { crossings += 1 }
                }
            }
            return crossings & 1 == 1 ? .covered : .outside
        }
    }

    /// Whether some edge may meet the box (x ± dx, y ± dy): if none does, every point of the
    /// box is on the same side of the boundary as (x, y). O(edges in the box's bands).
    func hasEdge(nearX x: Double, y: Double, dx: Double, dy: Double) -> Bool {
        withEdges(bands: band(y - dy), band(y + dy)) { xs, ys, edges, range in
            for i in range {
                let k = Int(edges[i])
                if Self.edge(xs[k], ys[k], xs[k + 1], ys[k + 1], mayMeetX: x, y: y, dx: dx, dy: dy) { return true }
            }
            return false
        }
    }

    /// Whether the segment (x1, y1)-(x2, y2) may meet the box (x ± dx, y ± dy): false only when
    /// their boxes are apart, or when all four corners of the box are certainly (Shewchuk's
    /// filter, ``orientationBound``) on one side of the segment's line. A long diagonal edge's
    /// box meets many cells its line passes by.
    @inline(__always)
    static func edge(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, mayMeetX x: Double, y: Double,
                     dx: Double, dy: Double) -> Bool {
        let left = x - dx, right = x + dx, bottom = y - dy, top = y + dy
        if Swift.max(x1, x2) < left || Swift.min(x1, x2) > right { return false }
        if Swift.max(y1, y2) < bottom || Swift.min(y1, y2) > top { return false }
        let s = TileEdges.orientation(x1, y1, x2, y2, left, bottom)
        guard s != 0 else { return true }
        return TileEdges.orientation(x1, y1, x2, y2, right, bottom) != s || TileEdges.orientation(x1, y1, x2, y2, left, top) != s
            || TileEdges.orientation(x1, y1, x2, y2, right, top) != s
    }

    /// Number of edges (closed rings: a ring of n points has n - 1).
    var edgeCount: Int { xs.count - ringEnds.count }

    /// The distance from (x, y) to the nearest edge, in the norm
    /// sqrt((xScale dx)² + (yScale dy)²) (a fix's step norm: metres per degree).
    ///
    /// Reads the latitude bands outwards from the point's own, nearest first, and stops when
    /// the next band is farther (in y alone, times `yScale`) than the nearest edge found: an
    /// edge first met in a band is listed only in that band and farther ones, so no point of
    /// it is nearer in y. The result is the one ``distanceToEdgesByScan(x:y:xScale:yScale:)``
    /// gives (the same arithmetic per edge, and the minimum over every edge that can be
    /// nearest). O(edges in the bands within that distance); O(edges) at worst.
    @inline(__always)
    func distanceToEdges(x: Double, y: Double, xScale: Double, yScale: Double) -> Double {
        nearestEdge(x: x, y: y, xScale: xScale, yScale: yScale).distance
    }

    /// ``distanceToEdges(x:y:xScale:yScale:)``, and how many bands it read (of
    /// `bandStarts.count - 1`; 0 when it read every edge without them: one band, or a scale it
    /// cannot bound by).
    func nearestEdge(x: Double, y: Double, xScale: Double, yScale: Double) -> (distance: Double, bandsRead: Int) {
        let bands = bandStarts.count - 1
        guard bands > 1, bandScale > 0, bandScale.isFinite, y.isFinite, yScale > 0 else {
            return (distanceToEdgesByScan(x: x, y: y, xScale: xScale, yScale: yScale), 0)
        }
        let b = band(y)
        var best = Double.infinity
        var down = b - 1, up = b + 1
        scan(band: b, x: x, y: y, xScale: xScale, yScale: yScale, best: &best)
        while down >= 0 || up < bands {
            // The y gap to the band below (its upper end) and to the band above (its lower
            // end), in degrees, less 1e-9 (0.1 mm: far beyond the band function's rounding).
            let gapDown = down >= 0 ? y - bandStart(down + 1) - 1e-9 : .infinity
            let gapUp = up < bands ? bandStart(up) - y - 1e-9 : .infinity
            let gap = Swift.min(gapDown, gapUp)
            if gap > 0 {
                let g = gap * yScale
                if g * g >= best { break }
            }
            if gapDown <= gapUp {
                scan(band: down, x: x, y: y, xScale: xScale, yScale: yScale, best: &best)
                down -= 1
            } else {
                scan(band: up, x: x, y: y, xScale: xScale, yScale: yScale, best: &best)
                up += 1
            }
        }
        return (best.squareRoot(), up - down - 1)
    }

    /// Where band `j` begins in y (up to rounding: the inverse of ``band(_:)``).
    @inline(__always)
    private func bandStart(_ j: Int) -> Double { minY + Double(j) / bandScale }

    /// The squared distances to the edges listed in band `b`, into `best`.
    @inline(__always)
    private func scan(band b: Int, x: Double, y: Double, xScale: Double, yScale: Double, best: inout Double) {
        for i in Int(bandStarts[b])..<Int(bandStarts[b + 1]) {
            let k = Int(bandEdges[i])
            best = Swift.min(best, Self.squaredDistance(x: x, y: y, xScale: xScale, yScale: yScale,
                                                        xs[k], ys[k], xs[k + 1], ys[k + 1]))
        }
    }

    /// ``distanceToEdges(x:y:xScale:yScale:)`` by reading every edge once (the reference the
    /// banded search is tested against).
    func distanceToEdgesByScan(x: Double, y: Double, xScale: Double, yScale: Double) -> Double {
        var best = Double.infinity
        var start = 0
        for end in ringEnds {
            var k = start
            while k < Int(end) - 1 {
                best = Swift.min(best, Self.squaredDistance(x: x, y: y, xScale: xScale, yScale: yScale,
                                                            xs[k], ys[k], xs[k + 1], ys[k + 1]))
                k += 1
            }
            start = Int(end)
        }
        return best.squareRoot()
    }

    /// The squared distance from (x, y) to the segment (x1, y1)-(x2, y2), scaled.
    @inline(__always)
    static func squaredDistance(x: Double, y: Double, xScale: Double, yScale: Double,
                                _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        // The segment A-B relative to the point, scaled; the nearest point of it.
        let ax = (x1 - x) * xScale, ay = (y1 - y) * yScale
        let bx = (x2 - x) * xScale, by = (y2 - y) * yScale
        let ex = bx - ax, ey = by - ay
        let len2 = ex * ex + ey * ey
        let t = len2 > 0 ? Swift.min(1, Swift.max(0, -(ax * ex + ay * ey) / len2)) : 0
        let px = ax + t * ex, py = ay + t * ey
        return px * px + py * py
    }

    /// The coordinates, the band index and the range of `bandEdges` for bands `lo...hi`
    /// (an edge spanning several bands is listed in each).
    @inline(__always)
    private func withEdges<R>(bands lo: Int, _ hi: Int,
                              _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>, UnsafeBufferPointer<Int32>, Range<Int>) -> R) -> R {
        body(xs, ys, bandEdges, Int(bandStarts[lo])..<Int(bandStarts[hi + 1]))
    }
}
