// A polygon over a tile: only the few edges that reach the tile matter to a device inside it.
//
// A device's fixes are decided through its tile for as long as they stay in the tile's box
// (``Neighbourhood/holds(latitude:longitude:)``); the first fix outside takes another tile. So
// for an open polygon a leaf tile keeps the edges that may meet its box (at most
// ``TileEdges/maximumEdges``), and whether the polygon covers the tile's centre. Inside the box:
// - covers: the segment from the centre to the fix lies in the box (a box is convex), so it can
//   cross only those edges; each proper crossing toggles inside and outside (Jordan: each ring
//   separates the plane, and a valid polygon's interior is where the rings' count is odd, the
//   rule ``PlanarRings/covers(x:y:)`` counts by). The centre's answer and the parity of the
//   crossings give the fix's answer.
// - slack: a path of fixes that stay in the box and whose steps add up to less than the
//   distance to the nearest of those edges touches no edge at all (the others do not meet the
//   box), so it stays on one side.
// Every orientation is decided with Shewchuk's filter (``PlanarRings/orientationBound``): where
// a sign is not certain (the fix on or within rounding of an edge, the segment through a vertex
// or along an edge) the polygon is decided as before, over all its edges with GEOS behind.
// Elsewhere the signs are exact, so the crossings and the answer are. Polygons tested on both
// sides of the antimeridian, and tiles at it, keep the whole test.

/// The open polygons' edges near a leaf tile (``Tile/edges``), shared by the tile and the
/// devices in it: per open region k, `shapes[k]` holds where its edges begin in `segments` (the
/// low 31 bits; they end where region k + 1's begin, and `shapes` has one more element for the
/// end) and, in bit 31, whether the polygon covers the tile's centre. No edges: the region is
/// decided whole (a circle, or a polygon without a shortcut here). The edges' coordinates are
/// copied into the tile: a fix reads them from the one object of the tile its device is in,
/// not from the polygons' own arrays spread over the heap (which missed the cache on most
/// reads). A tile without any is given none (nil): circles pay nothing for polygons.
///
/// Memory: 4 bytes per open region and 40 per edge.
final class NearEdges: Sendable {
    let shapes: [UInt32]
    let segments: [TileSegment]
    /// The tile's centre (``TileFrame``).
    let centreLatitude: Double
    let centreLongitude: Double

    init(shapes: [UInt32], segments: [TileSegment], centreLatitude: Double, centreLongitude: Double) {
        self.shapes = shapes
        self.segments = segments
        self.centreLatitude = centreLatitude
        self.centreLongitude = centreLongitude
    }

    /// What it counts against a tile cache's or the evaluator's budget (8-byte slots).
    var slots: Int { (shapes.count + 1) / 2 + segments.count * 5 }

    /// Open region `k`'s decision and slack at a fix (x, y) in the tile, in a tile whose
    /// longitude scale bound is `kLon`; nil when it has no edges here or a sign is not certain
    /// (decide it whole).
    @inline(__always)
    func decide(_ k: Int, x: Double, y: Double, kLon: Double) -> (code: UInt8, slack: Double)? {
        let (range, covered) = list(k)
        guard !range.isEmpty else { return nil }
        return segments.withUnsafeBufferPointer {
            RegionIndex.localDecision(UnsafeBufferPointer(rebasing: $0[range]), centreCovered: covered,
                                      x: x, y: y, cx: centreLongitude, cy: centreLatitude, kLon: kLon)
        }
    }

    /// Open region `k`'s edges and whether it covers the centre; nil when it has none.
    func edges(_ k: Int) -> (covered: Bool, segments: ArraySlice<TileSegment>)? {
        let (range, covered) = list(k)
        return range.isEmpty ? nil : (covered, segments[range])
    }

    /// Where open region `k`'s edges are in ``segments``, and its centre bit.
    @inline(__always)
    private func list(_ k: Int) -> (range: Range<Int>, covered: Bool) {
        let mask = ~TileEdges.centreCovered
        return (Int(shapes[k] & mask)..<Int(shapes[k + 1] & mask), shapes[k] & TileEdges.centreCovered != 0)
    }

    /// What must hold, for a tile of `open` regions (checked on every tile stored in debug
    /// builds): one start per open region and the end, ascending from 0 to the edges' count;
    /// every edge on a certain side of the centre.
    func checkInvariants(open: Int) {
        let mask = ~TileEdges.centreCovered
        precondition(shapes.count == open + 1 && shapes[0] & mask == 0 && Int(shapes[open]) == segments.count,
                     "near edges: starts out of range")
        for k in 0..<open { precondition(shapes[k] & mask <= shapes[k + 1] & mask, "near edges: starts out of order") }
        precondition(segments.allSatisfy { $0.centreSide == 1 || $0.centreSide == -1 }, "near edges: an edge's side unknown")
    }
}

/// How a polygon is decided from its edges near a tile (``NearEdges``).
enum TileEdges {
    /// A polygon with more edges in a tile than this is decided whole there. 64 measured 5 %
    /// faster than 24 on metro polygons of 8-64 vertices (a polygon smaller than its tile keeps
    /// all of its edges), and the same on polygons of 4-200 vertices (`Benchmarks/RESULTS.md`).
    static let maximumEdges = 64
    /// Bit 31 of a ``NearEdges/shapes`` element: the polygon covers the tile's centre.
    static let centreCovered: UInt32 = 1 << 31

    /// The sign of the orientation of c relative to a -> b: +1 counter-clockwise (c left of the
    /// line), -1 clockwise, 0 where the rounded determinant is within Shewchuk's bound of zero
    /// (the sign is not certain; exactly collinear points give 0 too).
    @inline(__always)
    static func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
        let left = (ax - cx) * (by - cy)
        let right = (ay - cy) * (bx - cx)
        let det = left - right
        if abs(det) <= PlanarRings.orientationBound * (abs(left) + abs(right)) { return 0 }
        return det > 0 ? 1 : -1
    }
}

/// One edge of a polygon near a tile (``NearEdges``): its ends, and the side of its line the
/// tile's centre is on (certain: a tile whose centre is within rounding of an edge's line
/// decides that polygon whole). 40 bytes.
struct TileSegment: Sendable, Equatable {
    var ax, ay, bx, by: Double
    /// The orientation of the centre relative to a -> b (``TileEdges/orientation(_:_:_:_:_:_:)``), never 0.
    var centreSide: Int8
}

extension RegionIndex {
    /// `t` with its open polygons' edges near it (``NearEdges``); `t` unchanged when none has a
    /// shortcut.
    func withNearEdges(_ t: Tile) -> Tile {
        guard !polygons.isEmpty, !t.open.isEmpty else { return t }
        let level = t.level, ix = Int(t.key & 0x3FF_FFFF), iy = Int((t.key >> 26) & 0x3FF_FFFF)
        let f = TileFrame(level: level, ix: ix, iy: iy)
        var points = FixPoints(latitude: f.latitude, longitude: f.longitude)
        defer { release(&points) }
        var shapes: [UInt32] = [], segments: [TileSegment] = []
        for slot in t.open {
            let start = UInt32(segments.count)
            if let covered = localEdges(Int(slot), over: f, points: &points, into: &segments) {
                shapes.append(start | (covered ? TileEdges.centreCovered : 0))
            } else {
                shapes.append(start)
            }
        }
        guard !segments.isEmpty else { return t }
        shapes.append(UInt32(segments.count))
        var shaped = t
        shaped.edges = NearEdges(shapes: shapes, segments: segments, centreLatitude: f.latitude, centreLongitude: f.longitude)
        return shaped
    }

    /// Appends region `slot`'s edges near the frame (see ``NearEdges``) to `segments` and says
    /// whether it covers the centre; nil (nothing appended) when it is decided whole.
    private func localEdges(_ slot: Int, over f: TileFrame, points: inout FixPoints, into segments: inout [TileSegment]) -> Bool? {
        guard entries[slot].kind == .polygon else { return nil }
        let i = Int(entries[slot].polygon)
        let cx = f.longitude, cy = f.latitude, d = f.halfExtent
        guard !polygons[i].shifted, abs(cx) + d < 180, f.kLon > 0 else { return nil }
        let rings = polygons[i].rings
        guard let edges = rings.edges(nearX: cx, y: cy, dx: d, dy: d, upTo: TileEdges.maximumEdges), !edges.isEmpty else { return nil }
        var found: [TileSegment] = []
        for k in edges {
            let k = Int(k)
            let (ax, ay, bx, by) = (rings.xs[k], rings.ys[k], rings.xs[k + 1], rings.ys[k + 1])
            let side = TileEdges.orientation(ax, ay, bx, by, cx, cy)
            // The centre within rounding of an edge's line: the parity could not be trusted.
            guard side != 0 else { return nil }
            found.append(TileSegment(ax: ax, ay: ay, bx: bx, by: by, centreSide: Int8(side)))
        }
        segments += found
        return polygonCovers(i, points: &points)
    }

    /// A polygon's decision and slack at a fix in the tile (``NearEdges``), from its edges near
    /// the tile and whether it covers the tile's centre (`cx`, `cy`); nil where a sign is not
    /// certain (decide it whole).
    ///
    /// - Complexity: O(edges): at most ``TileEdges/maximumEdges``.
    @inline(__always)
    static func localDecision(_ edges: UnsafeBufferPointer<TileSegment>, centreCovered: Bool, x: Double, y: Double,
                              cx: Double, cy: Double, kLon: Double) -> (code: UInt8, slack: Double)? {
        var inside = centreCovered
        var best = Double.infinity
        for e in edges {
            let side = TileEdges.orientation(e.ax, e.ay, e.bx, e.by, x, y)
            if side == 0 { return nil }
            if side != Int(e.centreSide) {
                // The fix and the centre on opposite sides of the edge's line: the segment
                // between them crosses the edge if its ends are on opposite sides of that one.
                let sa = TileEdges.orientation(cx, cy, x, y, e.ax, e.ay), sb = TileEdges.orientation(cx, cy, x, y, e.bx, e.by)
                if sa == 0 || sb == 0 { return nil }
                if sa != sb { inside.toggle() }
            }
            best = min(best, PlanarRings.squaredDistance(x: x, y: y, xScale: kLon, yScale: kLatMax, e.ax, e.ay, e.bx, e.by))
        }
        return (inside ? 3 : 0, polygonSlack(best.squareRoot()))
    }
}

extension PlanarRings {
    /// The edges (k: points k, k + 1) that may meet the box (x ± dx, y ± dy)
    /// (``edge(_:_:_:_:mayMeetX:y:dx:dy:)``), ascending, each once, without edges of length zero
    /// (a point of two other edges); nil as soon as there are more than `limit`.
    ///
    /// An edge is listed in every band it spans, so it may be met more than once: the list is
    /// sorted and its repeats dropped. (Taking each edge only in the first band read that lists
    /// it, which needs no sorting, measured 1.04-1.06x slower: the band of its lower end costs
    /// a call to `floor` per edge.)
    func edges(nearX x: Double, y: Double, dx: Double, dy: Double, upTo limit: Int) -> [Int32]? {
        var found: [Int32] = []
        for i in Int(bandStarts[band(y - dy)])..<Int(bandStarts[band(y + dy) + 1]) {
            let k = Int(bandEdges[i])
            let x1 = xs[k], y1 = ys[k], x2 = xs[k + 1], y2 = ys[k + 1]
            if x1 == x2 && y1 == y2 { continue }
            guard Self.edge(x1, y1, x2, y2, mayMeetX: x, y: y, dx: dx, dy: dy) else { continue }
            found.append(Int32(k))
            if found.count > limit {
                RegionIndex.sortUnique(&found) { $0 }
                if found.count > limit { return nil }
            }
        }
        RegionIndex.sortUnique(&found) { $0 }
        return found
    }
}
