import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The tile shortcut (fixed decisions kept over a cell, open regions tested when the device may
/// have reached them) against the slow path, `query` at every point: dense circles of every
/// size, star polygons, margins, and points placed within 1 cm of circle thresholds, on polygon
/// edges and on cell edges.
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

    /// A device's path through the regions: walking and driving steps (1 cm to 300 m), jumps,
    /// points within 1 cm of a threshold of one of its tile's open regions on the side facing
    /// it, points on polygon edges, and points on the edges of grid cells (tiles).
    static func walk(_ g: inout Rng, steps: Int, regions: [Region], margin: Double,
                     around c: (lat: Double, lon: Double) = centre, spread: Double = 1,
                     visit: (_ lat: Double, _ lon: Double) -> Void) {
        var p = c
        for _ in 0..<steps {
            switch g.int(10) {
            case 0:
                p = (c.lat + (g.unit() - 0.5) * 0.05 * spread, c.lon + (g.unit() - 0.5) * 0.06 * spread)
            case 1, 2:
                // Towards a threshold of a nearby circle, or onto a polygon edge.
                let near = probes(&g, around: p, radius: 300, regions: regions, margin: margin).suffix(12)
                if let q = near.randomElement(using: &g),
                   Geodesic.distance(latitude1: p.lat, longitude1: p.lon, latitude2: q.lat, longitude2: q.lon) < 3_000 {
                    p = q
                }
            case 3:
                // Onto a cell edge of a tile level (the same rounding the index uses), ± 1 ulp.
                let level = [16, 18, 20][g.int(3)]
                let cell = 360 / Double(1 << level)
                var lat = ((p.lat + 90) / cell).rounded() * cell - 90
                if g.chance(0.5) { lat = g.chance(0.5) ? lat.nextUp : lat.nextDown }
                var lon = ((p.lon + 180) / cell).rounded() * cell - 180
                if g.chance(0.5) { lon = g.chance(0.5) ? lon.nextUp : lon.nextDown }
                p = (g.chance(0.5) ? lat : p.lat, g.chance(0.5) ? lon : p.lon)
            default:
                let d = [0.01, 1, 10, 30, 300][g.int(5)] * g.unit()
                p = point(from: p.lat, p.lon, distance: d, bearing: 2 * .pi * g.unit())
            }
            visit(p.lat, p.lon)
        }
    }

    /// The per-device path (a fix in its tile tests only the open regions whose slack it has
    /// used up, a fix elsewhere takes the tile there) against `query` at every point.
    @Test(arguments: [0.0, 5.0, 40.0])
    func everyFixOfAWalkGetsTheQuerysHits(margin: Double) {
        var g = Rng(s: 4242 &+ UInt64(margin))
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: margin)
        var cache = TileCache(budget: 1 << 20)
        var n = Neighbourhood(), fast: [RegionHit] = [], slow: [RegionHit] = []
        var changes: [RegionHit] = [], patched: [RegionHit] = []
        var advanced = 0, entered = 0, open = 0, fixed = 0, changed = 0
        for device in 0..<8 {
            n = Neighbourhood()
            Self.walk(&g, steps: 1_500, regions: regions, margin: margin) { lat, lon in
                if n.holds(latitude: lat, longitude: lon) {
                    // The changes it lists, applied to the last fix's hits, give this fix's.
                    changes.removeAll()
                    let c = n.advance(with: index, latitude: lat, longitude: lon, margin: margin, changes: &changes)
                    if c { changed += 1 }
                    #expect(c == !changes.isEmpty)
                    changes.withUnsafeBufferPointer { ch in fast.withUnsafeBufferPointer { RegionHit.apply(ch, to: $0, into: &patched) } }
                    index.query(latitude: lat, longitude: lon, margin: margin, into: &slow)
                    #expect(patched == slow, "changes of device \(device) at \(lat), \(lon)")
                    advanced += 1
                } else {
                    let tile = cache.tile(latitude: lat, longitude: lon, index: index, margin: margin)
                    n.enter(tile!, with: index, latitude: lat, longitude: lon, margin: margin)
                    entered += 1
                    open += n.open.count
                    fixed += n.fixed.count
                }
                n.hits(into: &fast)
                index.query(latitude: lat, longitude: lon, margin: margin, into: &slow)
                #expect(fast == slow, "device \(device) at \(lat), \(lon)")
            }
        }
        // The walks must exercise both paths, both kinds of region and changing decisions.
        #expect(advanced > 6_000 && entered > 1_000, "advanced \(advanced), entered \(entered)")
        #expect(open > 2_000 && fixed > 1_000 && changed > 500, "open \(open), fixed \(fixed), changed \(changed)")
    }

    /// The same with a cache bound of a few slots (emptied again and again): devices keep
    /// their tiles' arrays, answers do not change.
    @Test func aTinyCacheChangesNoAnswer() {
        var g = Rng(s: 99)
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 10)
        var cache = TileCache(budget: 8)
        var n = Neighbourhood(), fast: [RegionHit] = [], slow: [RegionHit] = [], changes: [RegionHit] = []
        Self.walk(&g, steps: 3_000, regions: regions, margin: 10) { lat, lon in
            if n.holds(latitude: lat, longitude: lon) {
                _ = n.advance(with: index, latitude: lat, longitude: lon, margin: 10, changes: &changes)
            } else {
                n.enter(cache.tile(latitude: lat, longitude: lon, index: index, margin: 10)!, with: index,
                        latitude: lat, longitude: lon, margin: 10)
            }
            n.hits(into: &fast)
            index.query(latitude: lat, longitude: lon, margin: 10, into: &slow)
            #expect(fast == slow, "at \(lat), \(lon)")
        }
        #expect(cache.clears > 100)
    }

    /// Every region a tile keeps as fixed really is constant: no point of its cell (corners
    /// and edges included) is on its other side (a weaker bound would let the walks pass only
    /// by luck).
    @Test func aFixedRegionNeverChangesWithinItsTile() {
        var g = Rng(s: 77)
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var cache = TileCache(budget: 1 << 20)
        var checked = 0
        for _ in 0..<300 {
            let c = (lat: Self.centre.lat + (g.unit() - 0.5) * 0.05, lon: Self.centre.lon + (g.unit() - 0.5) * 0.06)
            let t = cache.tile(latitude: c.lat, longitude: c.lon, index: index, margin: 0)!
            let f = TileFrame(level: t.level, ix: Int(t.key & 0x3FF_FFFF), iy: Int((t.key >> 26) & 0x3FF_FFFF))
            let h = f.halfExtent - RegionIndex.tilePad
            for hit in t.fixed {
                for _ in 0..<6 {
                    let (u, v) = g.chance(0.5) ? (Double(g.int(2)) * 2 - 1, g.unit() * 2 - 1) : (g.unit() * 2 - 1, g.unit() * 2 - 1)
                    let p = (lat: f.latitude + h * u, lon: f.longitude + h * v)
                    #expect(index.contains(slot: hit.slot, latitude: p.lat, longitude: p.lon) == hit.contains)
                    checked += 1
                }
            }
        }
        #expect(checked > 3_000)
    }

    /// A decision holds within its slack: points just inside the slack from a fix, towards and
    /// away from the circle's centre (where the nearest threshold lies), decide the same.
    @Test(arguments: [0.0, 25.0])
    func aDecisionHoldsWithinItsSlack(margin: Double) {
        var g = Rng(s: 31 &+ UInt64(margin))
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: margin)
        var points = FixPoints(latitude: 0, longitude: 0)
        var checked = 0
        for _ in 0..<3_000 {
            let slot = g.int(300)
            guard case .circular(let r) = regions[slot] else { continue }
            let threshold = [r.radius, r.radius - margin, r.radius + margin][g.int(3)]
            guard threshold > 1 else { continue }
            // A fix 1 mm to 50 m from a threshold.
            let offset = (g.chance(0.5) ? 1.0 : -1.0) * 0.001 * pow(50_000, g.unit())
            let bearing = 2 * .pi * g.unit()
            let p = Self.point(from: r.center.latitude, r.center.longitude, distance: max(0, threshold + offset), bearing: bearing)
            let (code, slack) = index.decision(slot, latitude: p.lat, longitude: p.lon, margin: margin, points: &points)
            guard slack > 0.01 else { continue }
            for towards in [true, false] {
                let d = Geodesic.distance(latitude1: r.center.latitude, longitude1: r.center.longitude, latitude2: p.lat, longitude2: p.lon)
                let q = Self.point(from: r.center.latitude, r.center.longitude, distance: max(0, d + (towards ? -1 : 1) * slack * 0.999_9),
                                   bearing: bearing)
                #expect(index.decision(slot, latitude: q.lat, longitude: q.lon, margin: margin, points: &points).code == code)
                checked += 1
            }
        }
        #expect(checked > 2_000)
    }
}

/// Near 80 degrees cells are narrow in metres and longitude scales change fast.
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

    /// A polygon's slack holds too: points closer than it (in the step norm) to a fix near
    /// an edge, in every direction, are on the fix's side.
    @Test func aPolygonsDecisionHoldsWithinItsSlack() {
        var g = SeededGenerator(s: 57)
        let regions = NeighbourhoodTests.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var slot0 = 0
        // The fix's own points (a polygon test reads its coordinates from them).
        func decide(_ lat: Double, _ lon: Double, kLon: Double = 0) -> (code: UInt8, slack: Double) {
            var points = FixPoints(latitude: lat, longitude: lon)
            defer { points.release(index.context) }
            return index.decision(slot0, latitude: lat, longitude: lon, margin: 0, kLon: kLon, points: &points)
        }
        var checked = 0
        for _ in 0..<4_000 {
            let slot = 300 + g.int(40)
            guard case .polygon(let p) = regions[slot] else { continue }
            let ring = p.polygons[0][0]
            let k = g.int(ring.count - 1), f = 0.2 + 0.6 * g.unit()
            let lat0 = ring[k].latitude + f * (ring[k + 1].latitude - ring[k].latitude)
            let lon0 = ring[k].longitude + f * (ring[k + 1].longitude - ring[k].longitude)
            let kLon = RegionIndex.kLatMax * cos((abs(lat0) - 0.01) * Geodesic.degree)
            // A fix up to 50 m off the edge along its normal (in the step norm's metres), so
            // that the way to the edge is known.
            let ex = (ring[k + 1].longitude - ring[k].longitude) * kLon, ey = (ring[k + 1].latitude - ring[k].latitude) * RegionIndex.kLatMax
            let len = (ex * ex + ey * ey).squareRoot()
            guard len > 0 else { continue }
            let (nx, ny) = (-ey / len, ex / len), off = g.uniform(-50, 50)
            let lat = lat0 + off * ny / RegionIndex.kLatMax, lon = lon0 + off * nx / kLon
            slot0 = slot
            let (code, slack) = decide(lat, lon, kLon: kLon)
            guard slack > 0.01 else { continue }
            // Straight towards the edge, then in random directions.
            let towards = atan2(-(off > 0 ? 1.0 : -1.0) * nx, -(off > 0 ? 1.0 : -1.0) * ny)
            for probe in 0..<4 {
                let a = probe == 0 ? towards : 2 * Double.pi * g.unit(), r = slack * (probe == 0 ? 0.999_9 : 0.9 + 0.099_9 * g.unit())
                let q = (lat: lat + r * cos(a) / RegionIndex.kLatMax, lon: lon + r * sin(a) / kLon)
                #expect(decide(q.lat, q.lon).code == code)
                checked += 1
            }
        }
        #expect(checked > 3_000)
    }

    /// The index-level check at 78-80 N (tiles end at 80): a walk's every fix gets `query`'s hits.
    @Test func everyFixOfAWalkGetsTheQuerysHitsAt78North() {
        var g = SeededGenerator(s: 78)
        let centre = (lat: 79.0, lon: 568.5 * 360 / 1024 - 180)
        var regions: [Region] = []
        for i in 0..<60 {
            regions.append(circle(centre.lat + (g.unit() - 0.5) * 2, centre.lon + (g.unit() - 0.5) * 0.4, 20 + 2_000 * g.unit(), id: "c\(i)"))
        }
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var cache = TileCache(budget: 1 << 20)
        var n = Neighbourhood(), fast: [RegionHit] = [], slow: [RegionHit] = [], changes: [RegionHit] = []
        var advanced = 0
        NeighbourhoodTests.walk(&g, steps: 4_000, regions: regions, margin: 0, around: centre, spread: 40) { lat, lon in
            if n.holds(latitude: lat, longitude: lon) {
                _ = n.advance(with: index, latitude: lat, longitude: lon, margin: 0, changes: &changes)
                advanced += 1
            } else if let t = cache.tile(latitude: lat, longitude: lon, index: index, margin: 0) {
                n.enter(t, with: index, latitude: lat, longitude: lon, margin: 0)
            } else {
                n.clear(latitude: lat, longitude: lon)
                return
            }
            n.hits(into: &fast)
            index.query(latitude: lat, longitude: lon, margin: 0, into: &slow)
            #expect(fast == slow, "at \(lat), \(lon)")
        }
        #expect(advanced > 1_000)
    }
}
