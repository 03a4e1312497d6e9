import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Circles: containment on WGS84")
struct CircleContainmentTests {
    struct BoundaryRow { var lat, lon, radius, plat, plon, distance: Double }

    static func boundaryRows() throws -> [BoundaryRow] {
        try Fixture.text("geodesic/boundary.csv").split(separator: "\n").compactMap { line in
            if line.hasPrefix("#") || line.hasPrefix("lat") { return nil }
            let v = line.split(separator: ",").compactMap { Double($0) }
            guard v.count == 6 else { throw FixtureError(line: String(line)) }
            return BoundaryRow(lat: v[0], lon: v[1], radius: v[2], plat: v[3], plon: v[4], distance: v[5])
        }
    }

    @Test("points 2 cm inside / outside circles of 10 m .. 1000 km, incl. poles and antimeridian")
    func boundaryPlusMinus2cm() throws {
        let rows = try Self.boundaryRows()
        #expect(rows.count == 480)
        let index = RegionIndex(regions: rows.map { circle($0.lat, $0.lon, $0.radius) }, maximumMargin: 10)
        #expect(index.invalid.isEmpty)
        for (i, r) in rows.enumerated() {
            let inside = r.distance <= r.radius
            #expect(index.contains(slot: Int32(i), latitude: r.plat, longitude: r.plon) == inside, "\(r)")
            for margin in [0.0, 0.05, 10] {
                let hit = index.hits(r.plat, r.plon, margin: margin).first { $0.slot == Int32(i) }
                let expected = r.distance <= r.radius + margin
                #expect((hit != nil) == expected, "margin \(margin): \(r)")
                if let hit {
                    #expect(hit.contains == inside, "\(r)")
                    #expect(hit.inner == (r.distance <= r.radius - margin), "margin \(margin): \(r)")
                }
            }
        }
    }

    @Test("a circle across the antimeridian is found from both sides")
    func antimeridianCircle() {
        let index = RegionIndex(regions: [circle(0, 179.9995, 200), circle(-10, -180, 5000)])
        // 179.9995 + 0.001 deg east = -179.9995; at 0 deg latitude 0.001 deg is 111 m.
        #expect(index.hits(0, -179.9995).map(\.slot) == [0])
        #expect(index.hits(0, 179.999).map(\.slot) == [0])
        #expect(index.hits(0, -179.997).isEmpty)  // 389 m from the centre
        #expect(index.hits(-10, 179.99).map(\.slot) == [1])
        #expect(index.hits(-10, -179.99).map(\.slot) == [1])
        #expect(index.hits(-10, 180).map(\.slot) == [1])
        #expect(index.hits(-10, 540 - 0.01).map(\.slot) == [1])  // longitudes are wrapped
    }

    @Test("polar circles: around the pole, and near it across all longitudes")
    func polarCircles() {
        let index = RegionIndex(regions: [circle(89.99, 0, 5_000), circle(-90, 0, 100_000), circle(88, 170, 2_000)])
        // The point "behind" the pole at 89.99, 180 is ~2.2 km from (89.99, 0).
        #expect(index.hits(89.99, 180).map(\.slot) == [0])
        #expect(index.hits(90, 0).map(\.slot) == [0])
        #expect(index.hits(89.99, -90).map(\.slot) == [0])
        #expect(index.hits(89.9, 180).isEmpty)
        #expect(index.hits(-89.5, 123).map(\.slot) == [1])
        #expect(index.hits(-89.5, -45).map(\.slot) == [1])
        #expect(index.hits(-89, 0).isEmpty)  // ~111.7 km from the pole
        #expect(index.hits(88, -170).isEmpty)
        #expect(index.hits(88, 170.05).map(\.slot) == [2])  // ~194 m east
    }

    @Test("invalid circles are reported by slot and never match")
    func invalidCircles() {
        let index = RegionIndex(regions: [circle(0, 0, 0), circle(95, 0, 10), circle(0, 0, 2e6), circle(0, 0, 10)])
        #expect(index.invalid.map(\.slot) == [0, 1, 2])
        #expect(index.hits(0, 0).map(\.slot) == [3])
        #expect(index.invalid[0].reason.contains("radius"))
    }

    @Test("distanceToBoundary is a lower bound of |distance - radius|")
    func distanceToBoundary() {
        let index = RegionIndex(regions: [circle(40.7, -74, 150), circle(40.7, -74, 50_000)])
        for (lat, lon) in [(40.7, -74.0), (40.701, -74.0), (40.75, -74.1), (41.2, -74.0)] {
            for slot: Int32 in [0, 1] {
                let r = slot == 0 ? 150.0 : 50_000
                let exact = abs(Geodesic.distance(latitude1: 40.7, longitude1: -74, latitude2: lat, longitude2: lon) - r)
                let bound = index.distanceToBoundary(slot: slot, latitude: lat, longitude: lon) ?? -1
                #expect(bound >= 0 && bound <= exact + 1e-9 && bound >= exact - max(0.01, 1e-4 * exact), "\(slot) \(lat) \(lon): \(bound) vs \(exact)")
            }
        }
    }

    /// The side that comes with the boundary distance (what the fences with rules decide by,
    /// one measurement for both) is containment's answer whenever the distance is positive:
    /// plane circles and exact ones (over 3 km, near a pole), points far, near and within
    /// millimetres of the boundary.
    @Test func theSideWithTheDistanceIsContainment() {
        var rng = SeededGenerator(seed: 77)
        var regions: [Region] = []
        for _ in 0..<60 {
            let lat = rng.chance(0.15) ? rng.uniform(85.5, 89.5) : rng.uniform(-70, 70)
            regions.append(circle(lat, rng.uniform(-180, 180), rng.chance(0.3) ? rng.uniform(3_100, 80_000) : rng.uniform(20, 2_900)))
        }
        let index = RegionIndex(regions: regions)
        var positive = 0, near = 0
        for k in 0..<20_000 {
            let slot = Int32(k % regions.count)
            guard case .circular(let c) = regions[Int(slot)] else { continue }
            // A point on a ray from the centre (degrees, roughly metric), at a random fraction
            // of the way or, one time in four, where the ray crosses the boundary, found by
            // bisection on the geodesic distance and nudged by up to a millimetre.
            let theta = rng.uniform(0, 2 * Double.pi)
            let kLat = 111_320.0, kLon = 111_320 * max(0.02, cos(c.center.latitude * .pi / 180))
            func point(_ t: Double) -> (Double, Double) {
                (min(90, max(-90, c.center.latitude + t * c.radius * cos(theta) / kLat)), c.center.longitude + t * c.radius * sin(theta) / kLon)
            }
            var t = rng.uniform(0.2, 1.8)
            if k % 4 == 0 {
                var lo = 0.0, hi = 4.0
                for _ in 0..<60 {
                    let mid = (lo + hi) / 2, (a, o) = point(mid)
                    if Geodesic.distance(latitude1: c.center.latitude, longitude1: c.center.longitude, latitude2: a, longitude2: o) < c.radius { lo = mid } else { hi = mid }
                }
                t = lo + rng.uniform(-1e-3, 1e-3) / c.radius
            }
            let (lat, lon) = point(t)
            guard let (b, inside) = index.boundarySide(slot: slot, latitude: lat, longitude: lon) else {
                Issue.record("no side for circle \(slot)")
                continue
            }
            #expect(b == index.distanceToBoundary(slot: slot, latitude: lat, longitude: lon))
            if b > 0 {
                positive += 1
                if b < 0.01 { near += 1 }
                #expect(inside == index.contains(slot: slot, latitude: lat, longitude: lon), "circle \(slot) at (\(lat), \(lon)): \(b) m")
            }
        }
        #expect(positive > 10_000 && near > 100, "\(positive) positive, \(near) within 1 cm")
    }
}
