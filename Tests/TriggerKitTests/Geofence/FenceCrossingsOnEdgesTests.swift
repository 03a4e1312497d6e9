import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A `crossings` polygon with fixes on its edges (within rounding): a helper found the path
/// into an edge fix and the path out of it each reported the fix as a pass-through (the same
/// enter twice, minutes apart), and a path from one edge fix to another through the inside
/// dated its exit at its start (the path's computed end fell nanometres inside, so the last
/// contact was missed).
@Suite("crossings: fixes on a polygon's edges")
struct FenceCrossingsOnEdgesTests {
    static let t0: Int64 = 1_795_770_000_000

    static func request(_ ring: [(x: Double, y: Double)]) -> String {
        let coordinates = (ring + [ring[0]]).map { "[\($0.x), \($0.y)]" }.joined(separator: ", ")
        return "{\"identifier\": \"tri\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, "
            + "\"crossings\": true, \"region\": {\"identifier\": \"tri\", \"notifyOnEntry\": true, \"notifyOnExit\": true, "
            + "\"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[\(coordinates)]]}}}}"
    }

    static func fix(_ minute: Int, _ p: (x: Double, y: Double)) -> String {
        "{\"device\": \"a\", \"t\": \"\(Timestamp.string(millis: t0 + Int64(minute) * 60_000))\", \"lat\": \(p.y), \"lon\": \(p.x)}"
    }

    /// A random triangle of 30-300 m (not a sliver: twice its area in degrees at least a tenth
    /// of the square of its size, else nil), its index, and its centroid.
    static func triangle(_ rng: inout SeededGenerator) -> ([(x: Double, y: Double)], RegionIndex, Double, Double)? {
        let lat = rng.uniform(-60, 60), lon = rng.uniform(-170, 170)
        let size = rng.uniform(30, 300) / 111_000.0
        let r = (0..<3).map { _ in (x: lon + rng.uniform(-size, size) / cos(lat * .pi / 180), y: lat + rng.uniform(-size, size)) }
        guard abs((r[1].x - r[0].x) * (r[2].y - r[0].y) - (r[2].x - r[0].x) * (r[1].y - r[0].y)) > 0.1 * size * size else { return nil }
        let index = RegionIndex(regions: [polygon([[r.map { ($0.x, $0.y) } + [(r[0].x, r[0].y)]]], id: "tri")])
        return (r, index, (r[0].x + r[1].x + r[2].x) / 3, (r[0].y + r[1].y + r[2].y) / 3)
    }

    static func at(_ minute: Int) -> String { Timestamp.string(millis: t0 + Int64(minute) * 60_000) }

    /// Random triangles of 30-300 m: a device comes from far outside to the midpoint of one
    /// edge (as rounded), crosses to the midpoint of another along the midline (inside all
    /// the way), and leaves straight outward. Whichever side rounding puts each edge fix on,
    /// it enters and leaves once each: at the fixes that show it, and, when both edge fixes
    /// are decided outside, as a pass-through from the first to the second.
    @Test(arguments: [1, 2, 3])
    func aPathBetweenTwoEdgeFixesEntersAtOneAndLeavesAtTheOther(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var outsideBoth = 0
        for _ in 0..<60 {
            guard let (ring, index, cx, cy) = Self.triangle(&rng) else { continue }
            let m2 = (x: (ring[0].x + ring[1].x) / 2, y: (ring[0].y + ring[1].y) / 2)
            let m3 = (x: (ring[0].x + ring[2].x) / 2, y: (ring[0].y + ring[2].y) / 2)
            // Outward along the line from the centroid through each edge fix: no interior.
            let far2 = (x: m2.x + 4 * (m2.x - cx), y: m2.y + 4 * (m2.y - cy))
            let far3 = (x: m3.x + 4 * (m3.x - cx), y: m3.y + 4 * (m3.y - cy))
            guard !index.hits(far2.y, far2.x).contains(where: \.contains),
                  !index.hits(far3.y, far3.x).contains(where: \.contains) else { continue }
            let inside2 = index.contains(slot: 0, latitude: m2.y, longitude: m2.x)
            let inside3 = index.contains(slot: 0, latitude: m3.y, longitude: m3.x)
            var h = StreamHarness(requests: Self.request(ring))
            let out = h.feedBrief([Self.fix(0, far2), Self.fix(1, m2), Self.fix(2, m3), Self.fix(3, far3)])
            // A fix inside: a plain enter or exit at the fix that shows it. Both edge fixes
            // outside: a pass-through from the first to the second.
            let expected = switch (inside2, inside3) {
            case (true, true): [1, 3]
            case (true, false): [1, 2]
            case (false, true): [2, 3]
            case (false, false): [1, 2]
            }
            if !inside2 && !inside3 { outsideBoth += 1 }
            #expect(out == ["tri enter a \(Self.at(expected[0]))", "tri exit a \(Self.at(expected[1]))"], "\(ring): \(out)")
        }
        #expect(outsideBoth >= 5, "edge fixes both decided outside: \(outsideBoth)")
    }

    /// An edge fix decided outside, reached from outside and left outward: no pass-through,
    /// neither on the way in nor on the way out (each reported one, with the same eventId).
    @Test func anEdgeFixBetweenTwoOutsidePathsIsNoPassThrough() {
        var rng = SeededGenerator(seed: 9)
        var tried = 0
        while tried < 30 {
            guard let (ring, index, cx, cy) = Self.triangle(&rng) else { continue }
            let m = (x: (ring[1].x + ring[2].x) / 2, y: (ring[1].y + ring[2].y) / 2)
            guard !index.contains(slot: 0, latitude: m.y, longitude: m.x) else { continue }
            tried += 1
            // Outward from the centroid, then along the edge's outward side and away.
            let out1 = (x: m.x + 3 * (m.x - cx), y: m.y + 3 * (m.y - cy))
            let out2 = (x: m.x + 2 * (m.x - cx) + 0.3 * (ring[2].x - ring[1].x), y: m.y + 2 * (m.y - cy) + 0.3 * (ring[2].y - ring[1].y))
            var h = StreamHarness(requests: Self.request(ring))
            let out = h.feedBrief([Self.fix(0, out1), Self.fix(1, m), Self.fix(2, out2)])
            #expect(out.isEmpty, "\(ring): \(out)")
        }
    }
}
