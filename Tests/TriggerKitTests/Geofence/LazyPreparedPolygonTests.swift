import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The index makes a polygon's GEOS prepared geometry only when a fix lies within rounding of
/// one of its edges (``RegionIndex/preparedPolygon(_:)``), from the rings it keeps. Its answers
/// there must be those of a prepared geometry made from the region as given: polygons with
/// holes, a multipolygon, one across the antimeridian; fixes on edges (where the native test
/// is uncertain), on vertices and beside edges; each asked twice (the second time from the
/// geometry made the first).
@Suite struct LazyPreparedPolygonTests {
    @Test func answersWithinRoundingOfAnEdgeAreGEOSs() throws {
        var g = SeededGenerator(s: 4242)
        var regions: [[[[(x: Double, y: Double)]]]] = []
        for k in 0..<12 {
            let cx = -74 + g.unit(), cy = 40.5 + g.unit() * 0.4, radius = 0.001 + g.unit() * 0.02
            var polygon = [PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: radius, vertices: 8 + g.int(40))]
            if k % 3 == 0 {
                polygon.append(PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: radius * 0.3, vertices: 6 + g.int(8)).reversed())
            }
            var parts = [polygon]
            if k % 4 == 1 {  // a multipolygon: a second polygon beside the first
                parts.append([PlanarRingsTests.ring(&g, cx: cx + 3 * radius, cy: cy, radius: radius * 0.5, vertices: 9)])
            }
            regions.append(parts)
        }
        // Across the antimeridian (GeoJSON longitudes -180...180; the index shifts them).
        regions.append([[[(179.95, -16.1), (-179.93, -16.07), (-179.97, -15.91), (179.91, -15.96), (179.95, -16.1)]]])
        let index = RegionIndex(regions: regions.map { parts in
            polygon(parts.map { $0.map { $0.map { ($0.x, $0.y) } } })
        })
        #expect(index.invalid.isEmpty)
        #expect(index.preparedPolygonCount == 0, "nothing is prepared before a test needs it")
        let context = try GEOSContext()
        var checked = 0, differences: [String] = []
        for (slot, parts) in regions.enumerated() {
            // GEOS's plane: longitudes below 0 shifted by 360 for the polygon across the antimeridian.
            let shifted = parts.contains { $0.contains { $0.contains { $0.x > 179 } } }
            let geos = parts.map { $0.map { $0.map { (x: shifted && $0.x < 0 ? $0.x + 360 : $0.x, y: $0.y) } } }
            let prepared = try GEOSPreparedGeometry(try context.multiPolygon(geos), warmAt: geos[0][0][0])
            for ring in geos.joined() {
                for k in 0..<(ring.count - 1) {
                    let t = g.unit()
                    let (a, b) = (ring[k], ring[k + 1])
                    let (x, y) = (a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
                    for (px, py) in [(x, y), (a.x, a.y), (x + 1e-9, y), (x, y - 1e-9)] {
                        var p = GEOSLazyPoint(x: px, y: py)
                        defer { p.release(context) }
                        let want = try prepared.covers(&p)
                        let lon = px > 180 ? px - 360 : px
                        for _ in 0..<2 {
                            let got = index.hits(py, lon).contains { Int($0.slot) == slot && $0.contains }
                            checked += 1
                            if got != want { differences.append("slot \(slot) at (\(px), \(py)): index \(got), GEOS \(want)") }
                        }
                    }
                }
            }
        }
        for d in differences.prefix(10) { print("difference:", d) }
        #expect(differences.count == 0, "\(differences.count) of \(checked) answers differ from GEOS")
        #expect(index.preparedPolygonCount > regions.count / 2, "the tests within rounding of an edge reached GEOS")
        #expect(index.geosFailures == 0)
    }
}
