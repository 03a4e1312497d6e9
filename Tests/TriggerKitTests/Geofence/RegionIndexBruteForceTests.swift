import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("RegionIndex equals brute force")
struct RegionIndexBruteForceTests {
    /// The answer by definition: every region, exact geodesic, GEOS-free polygon check skipped
    /// (only circles here; polygons are covered by their own tests).
    static func bruteForce(_ circles: [(lat: Double, lon: Double, r: Double)], _ lat: Double, _ lon: Double, margin: Double) -> [RegionHit] {
        var out: [RegionHit] = []
        for (i, c) in circles.enumerated() {
            let d = Geodesic.distance(latitude1: c.lat, longitude1: c.lon, latitude2: lat, longitude2: lon)
            if d <= c.r + margin { out.append(RegionHit(slot: Int32(i), inner: d <= c.r - margin, contains: d <= c.r)) }
        }
        return out
    }

    static func check(circles: [(lat: Double, lon: Double, r: Double)], points: [(Double, Double)], margins: [Double]) -> Int {
        let index = RegionIndex(regions: circles.map { circle($0.lat, $0.lon, $0.r) }, maximumMargin: margins.max() ?? 0)
        #expect(index.invalid.isEmpty)
        var nonEmpty = 0
        var hits: [RegionHit] = []
        for (lat, lon) in points {
            for m in margins {
                index.query(latitude: lat, longitude: lon, margin: m, into: &hits)
                let expected = bruteForce(circles, lat, lon, margin: m)
                #expect(hits == expected, "(\(lat), \(lon)) margin \(m)")
                if !hits.isEmpty { nonEmpty += 1 }
            }
        }
        return nonEmpty
    }

    @Test("world: radii 10 m .. 1000 km, centres anywhere incl. poles and the antimeridian")
    func world() {
        var rng = SeededGenerator(seed: 42)
        var circles: [(lat: Double, lon: Double, r: Double)] = []
        for i in 0..<400 {
            let lat = i % 10 == 0 ? Double.random(in: 80...90, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
                                  : Double.random(in: -90...90, using: &rng)
            let lon = i % 10 == 1 ? 180 - Double.random(in: 0...2, using: &rng) : Double.random(in: -180...180, using: &rng)
            circles.append((lat, lon, pow(10, Double.random(in: 1...6, using: &rng))))
        }
        var points: [(Double, Double)] = []
        for _ in 0..<1500 {
            // Half near a centre (within ~2 radii), half anywhere.
            if Bool.random(using: &rng) {
                let c = circles[Int.random(in: 0..<circles.count, using: &rng)]
                let deg = c.r / 111_000 * 2
                let lat = min(90, max(-90, c.lat + Double.random(in: -deg...deg, using: &rng)))
                let lonDeg = min(180, deg / max(0.01, cos(lat * .pi / 180)))
                points.append((lat, Geodesic.unwrapDegrees(c.lon + Double.random(in: -lonDeg...lonDeg, using: &rng))))
            } else {
                points.append((Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng)))
            }
        }
        let nonEmpty = Self.check(circles: circles, points: points, margins: [0, 25])
        #expect(nonEmpty > 500)
    }

    @Test("metro: 2000 circles of 50-500 m around New York, points on their boundaries")
    func metro() {
        var rng = SeededGenerator(seed: 7)
        let circles = (0..<2000).map { _ in
            (lat: 40.7 + Double.random(in: -0.3...0.3, using: &rng), lon: -74.0 + Double.random(in: -0.4...0.4, using: &rng),
             r: Double.random(in: 50...500, using: &rng))
        }
        var points: [(Double, Double)] = []
        for _ in 0..<1500 {
            let c = circles[Int.random(in: 0..<circles.count, using: &rng)]
            // Points within a few mm of the boundary exercise the exact fallback.
            let bearing = Double.random(in: 0..<(2 * .pi), using: &rng)
            let d = c.r + Double.random(in: -0.01...0.01, using: &rng)
            points.append((c.lat + d * cos(bearing) / 111_000, c.lon + d * sin(bearing) / (111_000 * cos(c.lat * .pi / 180))))
        }
        let nonEmpty = Self.check(circles: circles, points: points, margins: [0, 5])
        #expect(nonEmpty > 1000)
    }
}
