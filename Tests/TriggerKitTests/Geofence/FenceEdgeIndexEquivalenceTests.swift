import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The edge index of a large polygon fence (``GuardedFences/EdgeIndex``) is a shortcut: the
/// enter and exit points of a path (crossings) and a fix's distance to the boundary must be
/// exactly what the loops over every edge give, on concave rings with holes, near the
/// antimeridian, and on paths grazing vertices and edges within 1 cm.
@Suite("fence rules: the polygon edge index equals the plain loops")
struct FenceEdgeIndexEquivalenceTests {
    typealias Ring = [(x: Double, y: Double)]

    /// A star-shaped ring (concave: radii vary by up to `depth`) of `n` vertices around
    /// (lon, lat), `radius` degrees of latitude; closed, counter-clockwise unless `hole`.
    static func star(_ rng: inout SeededGenerator, lon: Double, lat: Double, radius: Double, n: Int, depth: Double,
                     hole: Bool = false) -> Ring {
        let stretch = 1 / cos(lat * .pi / 180)
        var ring: Ring = (0..<n).map { i in
            let a = 2 * Double.pi * Double(i) / Double(n)
            let r = radius * (1 - depth * rng.unit())
            return (x: lon + r * cos(a) * stretch, y: lat + r * sin(a))
        }
        if hole { ring.reverse() }
        ring.append(ring[0])
        return ring
    }

    /// A polygon (outer ring, sometimes a hole, sometimes a spiky comb-like ring whose long
    /// edges coarsen the grid) and its fence box.
    static func polygon(_ rng: inout SeededGenerator, lon: Double, lat: Double)
        -> (rings: [Ring], box: (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)) {
        let radius = rng.uniform(0.002, 0.05)
        let n = 64 + rng.below(500)
        let spiky = rng.chance(0.25)
        var rings = [star(&rng, lon: lon, lat: lat, radius: radius, n: n, depth: spiky ? 0.9 : rng.uniform(0, 0.3))]
        if !spiky && rng.chance(0.5) {
            rings.append(star(&rng, lon: lon, lat: lat, radius: radius * 0.4, n: 16 + rng.below(200), depth: 0.3, hole: true))
        }
        // Near the antimeridian, stored as a request gives them: longitudes in [-180, 180].
        rings = rings.map { $0.map { (x: $0.x > 180 ? $0.x - 360 : $0.x, y: $0.y) } }
        let xs = rings.joined().map(\.x), ys = rings.joined().map(\.y)
        let pad = 1e-4
        return (rings, (ys.min()! - pad, ys.max()! + pad, xs.min()! - pad, xs.max()! + pad))
    }

    /// A path: across the polygon, or through a point within 1 cm of a vertex or an edge.
    static func path(_ rng: inout SeededGenerator, _ rings: [Ring], lon: Double, lat: Double) -> GeodesicPath? {
        let ring = rings[rng.below(rings.count)]
        let j = 1 + rng.below(ring.count - 1)
        let t = rng.chance(0.4) ? 0 : rng.unit()
        var (px, py) = (ring[j - 1].x + t * (ring[j].x - ring[j - 1].x), ring[j - 1].y + t * (ring[j].y - ring[j - 1].y))
        if rng.chance(0.2) { (px, py) = (lon, lat) }
        let metres = 1 / 111_000.0, stretch = 1 / cos(lat * .pi / 180)
        let off = rng.chance(0.3) ? 0 : rng.uniform(-0.01, 0.01)
        let a = rng.uniform(0, 2 * .pi)
        let (cx, cy) = (px - sin(a) * off * metres * stretch, py + cos(a) * off * metres)
        let half = rng.uniform(10, 1500)
        let x0 = cx - cos(a) * half * metres * stretch, y0 = cy - sin(a) * half * metres
        let x1 = cx + cos(a) * half * metres * stretch, y1 = cy + sin(a) * half * metres
        func wrap(_ x: Double) -> Double { x > 180 ? x - 360 : x }
        return GeodesicPath(latitude0: y0, longitude0: wrap(x0), latitude1: y1,
                            longitude1: wrap(x0) + Geodesic.unwrapDegrees(wrap(x1) - wrap(x0)))
    }

    /// Even-odd containment of a point in `rings` (planar; both ranges compared take it).
    static func evenOdd(_ rings: [[(x: Double, y: Double)]], x: Double, y: Double) -> Bool {
        var inside = false
        for ring in rings {
            for j in 1..<max(1, ring.count) {
                let (p, q) = (ring[j - 1], ring[j])
                if (p.y > y) != (q.y > y), x < p.x + (y - p.y) * (q.x - p.x) / (q.y - p.y) { inside.toggle() }
            }
        }
        return inside
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomPolygonsAndPathsMeetTheSameEdges(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var contacts = 0, misses = 0, distances = 0, clearPaths = 0
        for _ in 0..<6 {
            let lat = rng.uniform(-60, 60), lon = rng.chance(0.4) ? rng.uniform(179.95, 180) : rng.uniform(-20, 20)
            let (rings, box) = Self.polygon(&rng, lon: lon, lat: lat)
            let index = GuardedFences.EdgeIndex(rings: rings)
            #expect(index.columns * index.rows > 1)
            for _ in 0..<40 {
                guard let path = Self.path(&rng, rings, lon: lon, lat: lat) else { continue }
                let shifts = [0.0, 360, -360]
                // Ends clear of the boundary (contacts alone), and an end on it (stretches
                // decided by a containment test).
                let covers = { (y: Double, x: Double) in Self.evenOdd(rings, x: Geodesic.unwrapDegrees(x), y: y) }
                let careful = GuardedFences.polygonRange(rings: rings, index: nil, box: box, path, shifts: shifts, covers: covers)
                let carefulIndexed = GuardedFences.polygonRange(rings: rings, index: index, box: box, path, shifts: shifts, covers: covers)
                #expect(careful?.0 == carefulIndexed?.0 && careful?.1 == carefulIndexed?.1,
                        "\(String(describing: careful)) != \(String(describing: carefulIndexed))")
                let plain = GuardedFences.polygonRange(rings: rings, index: nil, box: box, path, shifts: shifts, covers: nil)
                let indexed = GuardedFences.polygonRange(rings: rings, index: index, box: box, path, shifts: shifts, covers: nil)
                #expect(plain?.0 == indexed?.0 && plain?.1 == indexed?.1, "\(String(describing: plain)) != \(String(describing: indexed))")
                // Both ends outside and clear of the boundary: the stretches' test agrees
                // with the contacts alone (which is why it is skipped there).
                let ends = [(path.latitude0, path.longitude0), (path.latitude1, path.longitude1)]
                if ends.allSatisfy({ !covers($0.0, $0.1) && GuardedFences.boundaryDistance(
                    rings: rings, index: nil, latitude: $0.0, longitude: Geodesic.unwrapDegrees($0.1)) > 0.01 }) {
                    #expect(careful?.0 == plain?.0 && careful?.1 == plain?.1, "\(String(describing: careful)) != \(String(describing: plain))")
                    clearPaths += 1
                }
                if plain == nil { misses += 1 } else { contacts += 1 }
                // Fixes at the path's ends and middle, and far away (the other side of the
                // antimeridian, hundreds of km).
                for q in [path.point(at: 0), path.point(at: path.length / 2),
                          (latitude: lat + rng.uniform(-3, 3), longitude: Geodesic.unwrapDegrees(lon + rng.uniform(-5, 5)))] {
                    let lonQ = Geodesic.unwrapDegrees(q.longitude)
                    let a = GuardedFences.boundaryDistance(rings: rings, index: nil, latitude: q.latitude, longitude: lonQ)
                    let b = GuardedFences.boundaryDistance(rings: rings, index: index, latitude: q.latitude, longitude: lonQ)
                    #expect(a == b, "boundary distance \(a) != \(b) at \(q)")
                    distances += 1
                }
            }
        }
        #expect(contacts > 40 && misses > 5, "paths must both meet and miss (\(contacts), \(misses))")
        #expect(clearPaths > 40, "paths with both ends clear: \(clearPaths)")
        #expect(distances > 300)
    }

    /// A search with a limit (an accuracy rule or a crossing check asks only whether the
    /// boundary is within some distance) gives the exact distance at or below the limit, and
    /// a value above it otherwise, never a smaller one; and it stops early: from the middle
    /// of a large round hole (a 100,000-vertex fence took ~2 ms a fix reading most of the
    /// hole's edges), it reads a handful of cells' edges instead of thousands.
    @Test(arguments: [7, 8])
    func aLimitedSearchIsExactWithinItsLimit(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var within = 0, beyond = 0
        for _ in 0..<6 {
            let lat = rng.uniform(-60, 60), lon = rng.uniform(-20, 20)
            let (rings, box) = Self.polygon(&rng, lon: lon, lat: lat)
            let index = GuardedFences.EdgeIndex(rings: rings)
            for _ in 0..<200 {
                let q = (latitude: rng.uniform(box.minLatitude - 0.01, box.maxLatitude + 0.01),
                         longitude: rng.uniform(box.minLongitude - 0.01, box.maxLongitude + 0.01))
                let exact = GuardedFences.boundaryDistance(rings: rings, index: nil, latitude: q.latitude, longitude: q.longitude)
                let limit = rng.chance(0.5) ? exact * rng.uniform(0.5, 1.5) : rng.uniform(0, 500)
                let d = GuardedFences.boundaryDistance(rings: rings, index: index, latitude: q.latitude, longitude: q.longitude,
                                                       within: limit)
                if exact <= limit {
                    #expect(d == exact, "\(d) != \(exact) within \(limit) at \(q)")
                    within += 1
                } else {
                    #expect(d > limit && d >= exact, "\(d) for \(exact) beyond \(limit) at \(q)")
                    beyond += 1
                }
            }
        }
        #expect(within > 200 && beyond > 200, "limits both above and below the distance (\(within), \(beyond))")

        // A ring of 40,000 vertices around a round hole of 20,000, ~1.1 km in radius: from its
        // centre every hole edge is ~1.1 km away.
        let outer = Self.star(&rng, lon: 10, lat: 45, radius: 0.05, n: 40_000, depth: 0)
        let hole = Self.star(&rng, lon: 10, lat: 45, radius: 0.01, n: 20_000, depth: 0, hole: true)
        let index = GuardedFences.EdgeIndex(rings: [outer, hole])
        let plane = LocalPlane(latitude: 45)
        var read = 0
        func distance(_ px: Double, _ py: Double, _ qx: Double, _ qy: Double) -> Double {
            read += 1
            return GuardedFences.edgeDistance(px, py, qx, qy, latitude: 45, longitude: 10, plane: plane)
        }
        let exact = index.nearestDistance(latitude: 45, longitude: 10, plane: plane, distance)
        let exactReads = read
        read = 0
        let limited = index.nearestDistance(latitude: 45, longitude: 10, plane: plane, within: 101, distance)
        #expect(exact.map { $0 > 1_000 && $0 < 1_200 } == true, "\(String(describing: exact))")
        #expect(exactReads > 10_000, "the exact search reads most of the hole (\(exactReads))")
        #expect(limited.map { $0 > 101 } == true && read < 100, "\(String(describing: limited)) after \(read) edges")
    }

    /// The index alone: every edge whose box meets a query box (small as a chord, or large,
    /// across cell boundaries, partly outside the rings' box) is among the edges it hands out.
    @Test(arguments: [5, 6])
    func everyEdgeABoxMeetsIsHandedOut(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<4 {
            let lat = rng.uniform(-60, 60), lon = rng.chance(0.4) ? rng.uniform(179.95, 180) : rng.uniform(-20, 20)
            let (rings, box) = Self.polygon(&rng, lon: lon, lat: lat)
            let index = GuardedFences.EdgeIndex(rings: rings)
            let edges = rings.flatMap { r in (1..<r.count).map { (r[$0 - 1], r[$0]) } }
            for _ in 0..<300 {
                let w = rng.chance(0.8) ? rng.uniform(0, 2e-4) : rng.uniform(0, 0.05)
                let h = rng.chance(0.8) ? rng.uniform(0, 2e-4) : rng.uniform(0, 0.05)
                let x0 = rng.uniform(box.minLongitude - w, box.maxLongitude), y0 = rng.uniform(box.minLatitude - h, box.maxLatitude)
                var handed = Set<[Double]>()
                index.forEachEdge(x0, x0 + w, y0, y0 + h) { handed.insert([$0, $1, $2, $3]) }
                for (p, q) in edges where max(p.x, q.x) >= x0 && min(p.x, q.x) <= x0 + w && max(p.y, q.y) >= y0 && min(p.y, q.y) <= y0 + h {
                    #expect(handed.contains([p.x, p.y, q.x, q.y]), "edge \(p)-\(q) not handed out for box \(x0), \(y0), \(w) x \(h)")
                }
            }
        }
    }

    /// A 20,000-vertex fence with crossings and accuracy (which read the index) gives the
    /// events the plain loops give, fix for fix.
    @Test func aLargeFenceGivesTheEventsOfThePlainLoops() {
        var rng = SeededGenerator(seed: 20_000)
        let ring = Self.star(&rng, lon: -74, lat: 40, radius: 0.01, n: 20_000, depth: 0.05)
        let coordinates = ring.map { "[\($0.x), \($0.y)]" }.joined(separator: ", ")
        let request = "{\"identifier\": \"big\", \"content\": {\"title\": \"x\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, "
            + "\"crossings\": true, \"accuracy\": {\"maximum\": 200}, \"region\": {\"identifier\": \"r\", "
            + "\"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[\(coordinates)]]}}}}"
        var lines: [String] = []
        for s in 0..<16 {
            // Sparse fixes on alternate sides (paths through it, beside it, grazing it), and
            // some inside and near the boundary, where the accuracy rule measures distance.
            let side = s % 2 == 0 ? -1.0 : 1.0
            let lat = 40 + (s % 4 < 2 ? rng.uniform(-0.012, 0.012) : rng.uniform(-0.002, 0.002))
            let lon = s % 5 == 4 ? -74 + rng.uniform(-0.013, 0.013) : -74 + side * rng.uniform(0.0135, 0.02)
            lines.append("{\"device\": \"d\", \"t\": \"\(at(s * 60))\", \"lat\": \(lat), \"lon\": \(lon), \"acc\": \(rng.uniform(1, 150))}")
        }
        var indexed = StreamHarness(requests: request)
        var plain = StreamHarness(requests: request)
        #expect(indexed.evaluator.guarded?.edgeIndexes.count == 1)
        plain.evaluator.guarded?.edgeIndexes = [:]
        let a = indexed.feed(lines), b = plain.feed(lines)
        #expect(a.filter { $0.contains("\"enter\"") }.count >= 3, "the paths must pass through the fence: \(a)")
        #expect(a == b)
    }
}
