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
}
