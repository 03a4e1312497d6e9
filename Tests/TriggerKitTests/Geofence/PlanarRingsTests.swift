import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The native point-in-polygon test against GEOS's prepared `covers` (the slow path it
/// replaces): random star-shaped polygons of 8-64 vertices, some with a hole, and points
/// anywhere, on vertices, on edges, and within 1 cm (1e-7 degrees) of edges on either side.
/// Every certain answer must be GEOS's; uncertain ones (left to GEOS) must be rare.
@Suite struct PlanarRingsTests {
    typealias Rng = SeededGenerator

    /// A star-shaped ring around (cx, cy): angles increasing, radii random (concave in places).
    static func ring(_ g: inout Rng, cx: Double, cy: Double, radius: Double, vertices: Int) -> [(x: Double, y: Double)] {
        var r: [(x: Double, y: Double)] = []
        for k in 0..<vertices {
            let a = 2 * Double.pi * (Double(k) + 0.5 * g.unit()) / Double(vertices)
            let d = radius * (0.5 + 0.5 * g.unit())
            r.append((cx + d * cos(a), cy + d * sin(a)))
        }
        r.append(r[0])
        return r
    }

    @Test(arguments: 0..<4)
    func nativeAnswersAreGEOSs(seed: Int) throws {
        var g = Rng(s: UInt64(seed + 1) &* 7919)
        let context = try GEOSContext()
        var checked = 0, uncertain = 0, covered = 0
        var differences: [String] = []
        for _ in 0..<60 {
            let cx = -74 + g.unit(), cy = 40.5 + g.unit() * 0.4
            let radius = 0.0005 + g.unit() * 0.02
            var polygon = [Self.ring(&g, cx: cx, cy: cy, radius: radius, vertices: 8 + g.int(57))]
            if g.int(3) == 0 {
                // A hole well inside the shell (its radius below the shell's smallest).
                polygon.append(Self.ring(&g, cx: cx, cy: cy, radius: radius * 0.3, vertices: 6 + g.int(10)).reversed())
            }
            let storage = PlanarRings.Storage([polygon])
            let rings = storage.rings
            let prepared = try GEOSPreparedGeometry(try context.multiPolygon([polygon]), warmAt: (cx, cy))
            var points: [(Double, Double)] = []
            for _ in 0..<200 {
                points.append((cx + (g.unit() * 2 - 1) * radius * 1.2, cy + (g.unit() * 2 - 1) * radius * 1.2))
            }
            for ring in polygon {
                for k in 0..<(ring.count - 1) {
                    let (a, b) = (ring[k], ring[k + 1])
                    points.append((a.x, a.y))
                    let t = g.unit()
                    let (px, py) = (a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
                    points.append((px, py))
                    // 1 cm (about 1e-7 degrees) either side of the edge, along its normal.
                    let len = max(1e-12, ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot())
                    let (nx, ny) = (-(b.y - a.y) / len, (b.x - a.x) / len)
                    points.append((px + nx * 1e-7, py + ny * 1e-7))
                    points.append((px - nx * 1e-7, py - ny * 1e-7))
                    points.append((a.x, py))  // on the vertex's vertical: ray-crossing tie cases
                }
            }
            for (x, y) in points {
                var p = GEOSLazyPoint(x: x, y: y)
                defer { p.release(context) }
                let want = try prepared.covers(&p)
                switch rings.covers(x: x, y: y) {
                case .uncertain: uncertain += 1
                case .covered:
                    checked += 1; covered += 1
                    if !want { differences.append("(\(x), \(y)): native covered, GEOS not") }
                case .outside:
                    checked += 1
                    if want { differences.append("(\(x), \(y)): native outside, GEOS covers") }
                }
            }
            withExtendedLifetime(storage) {}  // `rings` points into it
        }
        for d in differences.prefix(10) { print("difference:", d) }
        #expect(differences.isEmpty, "\(differences.count) of \(checked) certain answers differ from GEOS")
        #expect(covered > checked / 10, "too few covered points to mean anything: \(covered) of \(checked)")
        #expect(uncertain * 20 < checked, "\(uncertain) uncertain of \(checked + uncertain)")
    }

    /// A comb of 2,000 north-south teeth, a star of long spikes and strips side by side:
    /// every long edge was listed in each of about edges / 2 bands, O(edges²) memory (7 GB
    /// for a 64,000-vertex comb, and past 2^31 entries an overflow trap; a helper's find).
    /// Their listing holds at most ``PlanarRings/bandEntriesPerEdge`` entries per edge, and
    /// the answers are still GEOS's; an ordinary polygon keeps a band per two edges.
    @Test func longNorthSouthEdgesAreListedInBoundedMemory() throws {
        let context = try GEOSContext()
        var g = Rng(s: 4242)
        let teeth = 2_000, pitch = 1e-4, tooth = 0.5e-4, top = 0.1, base = 0.001
        var comb: [(x: Double, y: Double)] = [(0, 0), (Double(teeth - 1) * pitch + tooth, 0)]
        for i in stride(from: teeth - 1, through: 0, by: -1) {
            let l = Double(i) * pitch, r = l + tooth
            comb += [(r, top), (l, top)]
            if i > 0 { comb += [(l, base), (Double(i - 1) * pitch + tooth, base)] }
        }
        comb.append((0, 0))
        var star: [(x: Double, y: Double)] = []
        for k in 0..<4_000 {
            let a = 2 * Double.pi * Double(k) / 4_000
            let d = k % 2 == 0 ? 0.1 : 0.005
            star.append((0.05 + d * cos(a), 0.05 + d * sin(a)))
        }
        star.append(star[0])
        let strips: [[[(x: Double, y: Double)]]] = (0..<1_000).map { i in
            let l = Double(i) * 2e-4
            return [[(l, 0), (l + 1e-4, 0), (l + 1e-4, 0.1), (l, 0.1), (l, 0)]]
        }
        for polygons in [[[comb]], [[star]], strips] {
            let storage = PlanarRings.Storage(polygons)
            let rings = storage.rings
            #expect(rings.bandEdges.count <= PlanarRings.bandEntriesPerEdge * rings.edgeCount,
                    "\(rings.bandEdges.count) entries for \(rings.edgeCount) edges")
            #expect(rings.bandStarts.count > 2, "still banded")
            let prepared = try GEOSPreparedGeometry(try context.multiPolygon(polygons), warmAt: (0.05, 0.05))
            var checked = 0
            for _ in 0..<2_000 {
                let (x, y) = (g.unit() * 0.21 - 0.005, g.unit() * 0.21 - 0.055)
                var p = GEOSLazyPoint(x: x, y: y)
                defer { p.release(context) }
                let want = try prepared.covers(&p)
                switch rings.covers(x: x, y: y) {
                case .uncertain: continue
                case .covered: #expect(want, "(\(x), \(y)): native covered, GEOS not")
                case .outside: #expect(!want, "(\(x), \(y)): native outside, GEOS covers")
                }
                checked += 1
            }
            #expect(checked > 1_900)
            withExtendedLifetime(storage) {}
        }
        // A round polygon (edges spanning a band or two each): one band per two edges, as
        // before. (A ring zig-zagging in and out, as ``ring(_:cx:cy:radius:vertices:)``'s,
        // listed dozens per edge: it gets fewer bands, each holding about as many edges.)
        let round: [(x: Double, y: Double)] = (0...1_000).map { k in
            let a = 2 * Double.pi * Double(k % 1_000) / 1_000
            return (0.01 * cos(a), 0.01 * sin(a))
        }
        let ordinary = PlanarRings.Storage([[round]])
        #expect(ordinary.rings.bandStarts.count - 1 == ordinary.rings.edgeCount / 2)
        #expect(ordinary.rings.bandEdges.count <= 3 * ordinary.rings.edgeCount)
    }

    /// The nearest-edge distance (a polygon's slack) read band by band from the point's own
    /// outwards, stopping early, equals reading every edge: to the last bit, for points
    /// inside, outside, beyond the polygon's latitude range, on vertices and edges and within
    /// 1e-9 degrees of them, for star polygons with holes, two shells far apart, and a step
    /// shape (horizontal edges, vertices on band boundaries). And the band search (not the
    /// fallback that reads every edge) stops early for most points: else the test would not
    /// be testing the stop.
    @Test(arguments: 0..<4)
    func bandedNearestEdgeIsTheFullScan(seed: Int) {
        var g = Rng(s: UInt64(seed + 11) &* 104_729)
        var compared = 0, stoppedEarly = 0, differences: [String] = []
        for shape in 0..<60 {
            let cx = -74 + g.unit(), cy = 40.5 + g.unit() * 0.4
            let radius = 0.0005 + g.unit() * 0.02
            var polygons: [[[(x: Double, y: Double)]]]
            switch shape % 3 {
            case 0:
                var p = [Self.ring(&g, cx: cx, cy: cy, radius: radius, vertices: 8 + g.int(57))]
                if g.int(2) == 0 { p.append(Self.ring(&g, cx: cx, cy: cy, radius: radius * 0.3, vertices: 6 + g.int(10)).reversed()) }
                polygons = [p]
            case 1:
                // Two shells, one far above the other: the nearest edge of a point between
                // them is many bands away.
                polygons = [[Self.ring(&g, cx: cx, cy: cy, radius: radius, vertices: 8 + g.int(30))],
                            [Self.ring(&g, cx: cx + radius, cy: cy + 10 * radius, radius: radius, vertices: 8 + g.int(30))]]
            default:
                // A step shape: horizontal edges, band boundaries on vertices.
                let w = radius, h = radius * (0.2 + g.unit())
                polygons = [[[(cx, cy), (cx + w, cy), (cx + w, cy + h), (cx + w / 2, cy + h), (cx + w / 2, cy + 2 * h),
                              (cx, cy + 2 * h), (cx, cy)]]]
            }
            let storage = PlanarRings.Storage(polygons)
            let rings = storage.rings
            var points: [(Double, Double)] = []
            for _ in 0..<150 {
                points.append((cx + (g.unit() * 4 - 2) * radius, cy + (g.unit() * 24 - 6) * radius))
            }
            for polygon in polygons {
                for ring in polygon {
                    for k in 0..<(ring.count - 1) {
                        let (a, b) = (ring[k], ring[k + 1])
                        let t = g.unit()
                        let (px, py) = (a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
                        points += [(a.x, a.y), (px, py), (px + 1e-9, py - 1e-9), (px, py + 1e-9), (a.x + 3 * radius, a.y)]
                    }
                }
            }
            for (x, y) in points {
                let kLon = LocalPlane(latitude: y).kLon * (1 + g.unit())
                let (banded, read) = rings.nearestEdge(x: x, y: y, xScale: kLon, yScale: RegionIndex.kLatMax)
                if read > 0 && read < rings.bandStarts.count - 1 { stoppedEarly += 1 }
                let scanned = rings.distanceToEdgesByScan(x: x, y: y, xScale: kLon, yScale: RegionIndex.kLatMax)
                compared += 1
                if banded != scanned { differences.append("(\(x), \(y)): banded \(banded), every edge \(scanned)") }
            }
            withExtendedLifetime(storage) {}  // `rings` points into it
        }
        for d in differences.prefix(10) { print("difference:", d) }
        #expect(differences.isEmpty, "\(differences.count) of \(compared) distances differ")
        #expect(compared > 10_000)
        #expect(stoppedEarly * 2 > compared, "stopped early for \(stoppedEarly) of \(compared) points")
    }

    /// A valid polygon whose latitudes span a subnormal width (5e-324 degrees) made the band
    /// scale infinite, and `run` trapped on loading it although `check` accepted it (`make
    /// fuzz`, seed 4, case 29349). A point far from a very thin polygon's latitudes must not
    /// trap either (the band product beyond Int's range).
    @Test func aPolygonThinnerThanAnyBandLoadsAndDecides() {
        #expect(PlanarRings.band(40, minY: 0, scale: 5e300, bands: 5) == 4)
        #expect(PlanarRings.band(-40, minY: 0, scale: 5e300, bands: 5) == 0)
        #expect(PlanarRings.band(.nan, minY: 0, scale: 1, bands: 5) == 0)
        #expect(PlanarRings.band(2.5, minY: 0, scale: 1, bands: 5) == 2)
        // Longitudes spanning over 180 degrees: read across the antimeridian (-74 is 286), so
        // the ring runs along the equator from 165 to 286 and back up to 5e-324 at 170. (The
        // fuzzer's ring had its apex at 100: 186 degrees wide even across the antimeridian,
        // which is refused now, by name.)
        var h = StreamHarness(requests: #"{"identifier": "p", "content": {"title": "x"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "p", "geometry": {"type": "Polygon", "coordinates": [[[170.0, 5e-324], [-74.0, 0.0], [165.0, 0.0], [170.0, 5e-324]]]}}}}"#)
        let out = h.feedBrief([
            #"{"device": "d", "t": "2026-11-27T09:00:00Z", "lat": 40.7484, "lon": -73.9857}"#,
            #"{"device": "d", "t": "2026-11-27T09:00:01Z", "lat": 0, "lon": -160}"#,  // on the edge: covered
            #"{"device": "d", "t": "2026-11-27T09:00:02Z", "lat": 1e-300, "lon": -160}"#,
            #"{"device": "d", "t": "2026-11-27T09:00:03Z", "lat": 0, "lon": 170}"#,
            #"{"device": "d", "t": "2026-11-27T09:00:04Z", "lat": -1e-300, "lon": 170}"#,
        ])
        #expect(out == ["p enter d 2026-11-27T09:00:01Z", "p exit d 2026-11-27T09:00:02Z",
                        "p enter d 2026-11-27T09:00:03Z", "p exit d 2026-11-27T09:00:04Z"])
    }
}
