import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The neighbourhood shortcut (fixed decisions kept, open regions tested) against the slow
/// path, `query` at every point: dense circles of every size, star polygons, margins, and
/// points placed within 1 cm of circle thresholds and polygon edges.
@Suite struct NeighbourhoodTests {
    typealias Rng = SeededGenerator

    static let centre = (lat: 40.7, lon: -74.0)

    /// Circles of 5 m to 3 km (dense: a point is in several) and star-shaped polygons, all
    /// within about 3 km of the centre.
    static func regions(_ g: inout Rng) -> [Region] {
        var out: [Region] = []
        for i in 0..<300 {
            let lat = centre.lat + (g.unit() - 0.5) * 0.05, lon = centre.lon + (g.unit() - 0.5) * 0.06
            out.append(circle(lat, lon, 5 + 3_000 * g.unit() * g.unit(), id: "c\(i)"))
        }
        for i in 0..<40 {
            let ring = PlanarRingsTests.ring(&g, cx: centre.lon + (g.unit() - 0.5) * 0.06, cy: centre.lat + (g.unit() - 0.5) * 0.05,
                                             radius: 0.001 + 0.01 * g.unit(), vertices: 5 + g.int(40))
            out.append(polygon([[ring.map { ($0.x, $0.y) }]], id: "p\(i)"))
        }
        return out
    }

    /// A point at geodesic distance `d` (to about 1e-4 mm) from (lat, lon) in direction `a`.
    static func point(from lat: Double, _ lon: Double, distance d: Double, bearing a: Double) -> (lat: Double, lon: Double) {
        var lo = 0.0, hi = 2 * d / 80_000 + 1e-9
        func at(_ s: Double) -> (lat: Double, lon: Double) { (lat + s * cos(a), lon + s * sin(a) * 1.32) }
        for _ in 0..<100 {
            let mid = (lo + hi) / 2
            let p = at(mid)
            if Geodesic.distance(latitude1: lat, longitude1: lon, latitude2: p.lat, longitude2: p.lon) < d { lo = mid } else { hi = mid }
        }
        return at((lo + hi) / 2)
    }

    /// Points near a centre: uniform in the area's disc, and on circle thresholds (radius,
    /// radius ± margin) and polygon edges, each ± up to 1 cm.
    static func probes(_ g: inout Rng, around c: (lat: Double, lon: Double), radius: Double, regions: [Region], margin: Double) -> [(lat: Double, lon: Double)] {
        var out: [(lat: Double, lon: Double)] = []
        for _ in 0..<20 {
            out.append(point(from: c.lat, c.lon, distance: radius * g.unit().squareRoot(), bearing: 2 * .pi * g.unit()))
        }
        for _ in 0..<12 {
            let region = regions[g.int(regions.count)]
            switch region {
            case .circular(let r):
                let threshold = [r.radius, r.radius - margin, r.radius + margin][g.int(3)]
                guard threshold > 0.02 else { continue }
                out.append(point(from: r.center.latitude, r.center.longitude, distance: threshold + (g.unit() - 0.5) * 0.02, bearing: 2 * .pi * g.unit()))
            case .polygon(let p):
                let ring = p.polygons[0][0]
                let k = g.int(ring.count - 1), f = g.unit()
                let a = ring[k], b = ring[k + 1]
                // On the edge, then up to 1 cm (about 9e-8 degrees) either side.
                let jitterLat: Double = (g.unit() - 0.5) * 1.8e-7, jitterLon: Double = (g.unit() - 0.5) * 1.8e-7
                let lat: Double = a.latitude + f * (b.latitude - a.latitude) + jitterLat
                let lon: Double = a.longitude + f * (b.longitude - a.longitude) + jitterLon
                out.append((lat, lon))
            }
        }
        return out
    }

    @Test(arguments: [0.0, 5.0, 40.0])
    func everyPointOfTheAreaGetsTheQuerysHits(margin: Double) {
        var g = Rng(s: 4242 &+ UInt64(margin))
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: margin)
        var n = Neighbourhood(), built: [RegionHit] = [], slow: [RegionHit] = [], fast: [RegionHit] = [], codes: [UInt8] = []
        var inside = 0, open = 0, fixed = 0
        for _ in 0..<400 {
            let c = (lat: Self.centre.lat + (g.unit() - 0.5) * 0.05, lon: Self.centre.lon + (g.unit() - 0.5) * 0.06)
            index.buildNeighbourhood(latitude: c.lat, longitude: c.lon, radius: 10 + 2_000 * g.unit() * g.unit(),
                                     margin: margin, into: &n, hits: &built)
            index.query(latitude: c.lat, longitude: c.lon, margin: margin, into: &slow)
            #expect(built == slow, "centre \(c)")
            open += n.open.count
            fixed += n.fixed.count
            for p in Self.probes(&g, around: c, radius: n.area.radius * 1.2, regions: regions, margin: margin)
            where n.area.contains(latitude: p.lat, longitude: p.lon) {
                index.openDecisions(n, latitude: p.lat, longitude: p.lon, margin: margin, into: &codes)
                index.neighbourhoodHits(n, codes: codes, into: &fast)
                index.query(latitude: p.lat, longitude: p.lon, margin: margin, into: &slow)
                #expect(fast == slow, "centre \(c), point \(p)")
                inside += 1
            }
        }
        // The probes must exercise both kinds and many points near thresholds.
        #expect(inside > 4_000)
        #expect(open > 400 && fixed > 400)
    }

    /// Every region kept as fixed really is constant: no point of the area is on its other side
    /// (a weaker bound would let `everyPointOfTheAreaGetsTheQuerysHits` pass only by luck).
    @Test func aFixedRegionNeverChangesWithinTheArea() {
        var g = Rng(s: 77)
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var n = Neighbourhood(), hits: [RegionHit] = []
        var checked = 0
        for _ in 0..<200 {
            let c = (lat: Self.centre.lat + (g.unit() - 0.5) * 0.05, lon: Self.centre.lon + (g.unit() - 0.5) * 0.06)
            index.buildNeighbourhood(latitude: c.lat, longitude: c.lon, radius: 50 + 1_000 * g.unit(), margin: 0, into: &n, hits: &hits)
            for f in n.fixed {
                for _ in 0..<5 {
                    let p = Self.point(from: c.lat, c.lon, distance: n.area.radius * g.unit().squareRoot() * 0.999, bearing: 2 * .pi * g.unit())
                    guard n.area.contains(latitude: p.lat, longitude: p.lon) else { continue }
                    #expect(index.contains(slot: f.slot, latitude: p.lat, longitude: p.lon))
                    checked += 1
                }
            }
        }
        #expect(checked > 1_000)
    }
}

/// Near 78 degrees a 5 km disc is wider (in longitude) than a summary cell: the levels that may
/// hold a region must come from every summary cell the disc meets, not only from its corners.
@Suite struct HighLatitudeNeighbourhoodTests {
    /// A device walking into a 100 m circle at 78 N from 1.9 km away, all in the circle's
    /// summary cell (centred on its longitude): it must enter.
    @Test func aDeviceWalkingIntoACircleAt78NorthEnters() {
        let lon = 568.5 * 360 / 1024 - 180  // the centre of a level-10 summary cell
        let requests = #"{"identifier": "hut", "content": {"title": "hut"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "hut", "center": {"latitude": 78.0, "longitude": \#(lon)}, "radius": 100}}}"#
        var h = StreamHarness(requests: requests, options: StreamOptions(now: Timestamp.date(millis: 1_795_770_000_000)))
        var lines: [String] = []
        for s in 0...100 {
            let t = Timestamp.string(millis: 1_795_770_000_000 + Int64(s) * 1000)
            lines.append(#"{"device": "d", "t": "\#(t)", "lat": 78.0, "lon": \#(lon + 0.08 * Double(100 - s) / 100)}"#)
        }
        let out = h.feed(lines)
        #expect(out.count == 1 && out.first?.contains(#""event":"enter""#) == true, "\(out)")
    }

    /// The index-level check at 78 N: every probe in the neighbourhood gets `query`'s hits.
    @Test func everyPointOfTheAreaGetsTheQuerysHitsAt78North() {
        var g = SeededGenerator(s: 78)
        let centre = (lat: 78.0, lon: 568.5 * 360 / 1024 - 180)
        var regions: [Region] = []
        for i in 0..<20 {
            regions.append(circle(centre.lat + (g.unit() - 0.5) * 0.05, centre.lon + (g.unit() - 0.5) * 0.4, 20 + 400 * g.unit(), id: "c\(i)"))
        }
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var n = Neighbourhood(), built: [RegionHit] = [], slow: [RegionHit] = [], fast: [RegionHit] = [], codes: [UInt8] = []
        var inside = 0
        for _ in 0..<300 {
            let c = (lat: centre.lat + (g.unit() - 0.5) * 0.06, lon: centre.lon + (g.unit() - 0.5) * 0.5)
            index.buildNeighbourhood(latitude: c.lat, longitude: c.lon, radius: 100 + 5_000 * g.unit(), margin: 0, into: &n, hits: &built)
            index.query(latitude: c.lat, longitude: c.lon, margin: 0, into: &slow)
            #expect(built == slow)
            for _ in 0..<20 {
                let p = NeighbourhoodTests.point(from: c.lat, c.lon, distance: n.area.radius * g.unit().squareRoot(), bearing: 2 * .pi * g.unit())
                guard n.area.contains(latitude: p.lat, longitude: p.lon) else { continue }
                index.openDecisions(n, latitude: p.lat, longitude: p.lon, margin: 0, into: &codes)
                index.neighbourhoodHits(n, codes: codes, into: &fast)
                index.query(latitude: p.lat, longitude: p.lon, margin: 0, into: &slow)
                #expect(fast == slow, "centre \(c), point \(p), radius \(n.area.radius)")
                inside += 1
            }
        }
        #expect(inside > 2_000)
    }
}
