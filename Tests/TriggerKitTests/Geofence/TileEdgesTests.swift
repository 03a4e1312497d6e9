import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A polygon decided in a tile from the few edges near the tile (``TileEdges``) against the
/// polygon decided whole (banded ray crossing, GEOS behind it): star polygons, polygons with
/// holes, two-part multipolygons and rings with repeated points, at points anywhere in tiles,
/// on and within 1 cm of edges, on vertices, where the segment from the tile's centre passes
/// through a vertex, and on the tile's own edges.
@Suite struct TileEdgesTests {
    typealias Rng = SeededGenerator

    static let centre = (lat: 40.7, lon: -74.0)

    /// Polygons of 30 m to 2 km around the centre (some with a hole, some in two parts, some
    /// with a point repeated), and a few circles.
    static func regions(_ g: inout Rng) -> [Region] {
        var out: [Region] = []
        for i in 0..<60 {
            let cx = centre.lon + (g.unit() - 0.5) * 0.04, cy = centre.lat + (g.unit() - 0.5) * 0.03
            let radius = 0.0003 + 0.02 * g.unit() * g.unit()
            var ring = PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: radius, vertices: 5 + g.int(60)).map { ($0.x, $0.y) }
            if i % 7 == 3 {
                // A point repeated (an edge of length zero).
                let k = 1 + g.int(ring.count - 2)
                ring.insert(ring[k], at: k)
            }
            var parts = [[ring]]
            if i % 5 == 1 {
                let hole = PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: radius * 0.3, vertices: 4 + g.int(12))
                parts[0].append(hole.reversed().map { ($0.x, $0.y) })
            }
            if i % 5 == 2 {
                // A second part beside the first (their boxes apart).
                let far = PlanarRingsTests.ring(&g, cx: cx + 3 * radius, cy: cy, radius: radius * 0.5, vertices: 5 + g.int(20))
                parts.append([far.map { ($0.x, $0.y) }])
            }
            out.append(polygon(parts, id: "p\(i)"))
        }
        for i in 0..<20 {
            out.append(circle(centre.lat + (g.unit() - 0.5) * 0.03, centre.lon + (g.unit() - 0.5) * 0.04, 50 + 1_500 * g.unit(), id: "c\(i)"))
        }
        return out
    }

    /// The tiles of random points near the centre, each with its frame.
    static func tiles(_ g: inout Rng, index: RegionIndex, count: Int) -> [(Tile, TileFrame)] {
        var cache = TileCache(budget: 1 << 22)
        var out: [(Tile, TileFrame)] = []
        for _ in 0..<count {
            let lat = centre.lat + (g.unit() - 0.5) * 0.04, lon = centre.lon + (g.unit() - 0.5) * 0.05
            guard let t = cache.tile(latitude: lat, longitude: lon, index: index, margin: 0) else { continue }
            out.append((t, TileFrame(level: t.level, ix: Int(t.key & 0x3FF_FFFF), iy: Int((t.key >> 26) & 0x3FF_FFFF))))
        }
        return out
    }

    /// Open region k's edges near tile `t` and whether it covers the centre; nil when it is
    /// decided whole.
    static func edges(_ t: Tile, _ k: Int) -> (covered: Bool, segments: [TileSegment])? {
        guard let e = t.edges?.edges(k) else { return nil }
        return (e.covered, Array(e.segments))
    }

    /// The decision from a tile's edges at (x, y).
    static func local(_ e: (covered: Bool, segments: [TileSegment]), _ f: TileFrame, _ x: Double, _ y: Double) -> (code: UInt8, slack: Double)? {
        e.segments.withUnsafeBufferPointer {
            RegionIndex.localDecision($0, centreCovered: e.covered, x: x, y: y, cx: f.longitude, cy: f.latitude, kLon: f.kLon)
        }
    }

    /// Points of a tile's box for one of its polygons: uniform, on and 1 cm either side of its
    /// edges near the tile, on their vertices, beyond a vertex as seen from the centre (the
    /// segment from the centre passes through it), the centre itself, and the box's edges.
    static func probes(_ g: inout Rng, frame f: TileFrame, segments: [TileSegment]) -> [(x: Double, y: Double)] {
        let h = f.halfExtent - RegionIndex.tilePad
        func inBox(_ p: (x: Double, y: Double)) -> Bool { abs(p.x - f.longitude) <= h && abs(p.y - f.latitude) <= h }
        var out: [(x: Double, y: Double)] = [(f.longitude, f.latitude)]
        for _ in 0..<12 {
            out.append((f.longitude + h * (2 * g.unit() - 1), f.latitude + h * (2 * g.unit() - 1)))
        }
        for _ in 0..<4 {
            let u = Double(g.int(2)) * 2 - 1, v = 2 * g.unit() - 1
            out.append(g.chance(0.5) ? (f.longitude + h * u, f.latitude + h * v) : (f.longitude + h * v, f.latitude + h * u))
        }
        for e in segments {
            let t = g.unit()
            let (px, py) = (e.ax + t * (e.bx - e.ax), e.ay + t * (e.by - e.ay))
            let len = ((e.bx - e.ax) * (e.bx - e.ax) + (e.by - e.ay) * (e.by - e.ay)).squareRoot()
            let (nx, ny) = (-(e.by - e.ay) / len * 1e-7, (e.bx - e.ax) / len * 1e-7)
            out += [(px, py), (px + nx, py + ny), (px - nx, py - ny), (e.ax, e.ay), (e.bx, e.by)]
            // Beyond a vertex from the centre: the segment from the centre runs through it.
            for (vx, vy) in [(e.ax, e.ay), (e.bx, e.by)] {
                let s = 1 + g.unit() * 0.5
                out.append((f.longitude + s * (vx - f.longitude), f.latitude + s * (vy - f.latitude)))
            }
        }
        return out.filter(inBox)
    }

    /// Wherever the tile's edges give an answer it is the whole test's; where they cannot (a
    /// sign within rounding) they say so, and that is rare.
    @Test(arguments: 0..<3)
    func theEdgesNearATileDecideAsTheWholePolygon(seed: Int) {
        var g = Rng(s: 2_719 &+ UInt64(seed))
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var local = 0, deferred = 0, listed = 0, inside = 0
        for (t, f) in Self.tiles(&g, index: index, count: 400) {
            guard let near = t.edges else { continue }
            #expect(near.centreLatitude == f.latitude && near.centreLongitude == f.longitude)
            for (k, slot) in t.open.enumerated() {
                guard let e = Self.edges(t, k) else { continue }
                listed += 1
                // The tile's own entry point answers as the function does.
                let p = (x: f.longitude + 0.3 * (f.halfExtent - RegionIndex.tilePad), y: f.latitude)
                #expect(near.decide(k, x: p.x, y: p.y, kLon: f.kLon).map { [Double($0.code), $0.slack] }
                        == Self.local(e, f, p.x, p.y).map { [Double($0.code), $0.slack] })
                #expect(e.segments.allSatisfy { $0.centreSide == TileEdges.orientation($0.ax, $0.ay, $0.bx, $0.by, f.longitude, f.latitude) })
                #expect(e.covered == index.contains(slot: slot, latitude: f.latitude, longitude: f.longitude))
                for p in Self.probes(&g, frame: f, segments: e.segments) {
                    let whole = index.contains(slot: slot, latitude: p.y, longitude: p.x)
                    guard let answer = Self.local(e, f, p.x, p.y) else {
                        deferred += 1
                        continue
                    }
                    local += 1
                    if whole { inside += 1 }
                    #expect((answer.code == 3) == whole, "polygon \(slot) at \(p.x), \(p.y) in tile \(t.key)")
                    #expect(answer.code == 0 || answer.code == 3)
                }
            }
        }
        #expect(listed > 300 && local > 10_000 && inside > 1_000, "listed \(listed), local \(local), inside \(inside)")
        // Points on edges and vertices are deferred by design; they are a minority of probes.
        #expect(deferred > 0 && deferred * 3 < local, "deferred \(deferred) of \(local + deferred)")
    }

    /// A tile-edge decision holds within its slack: any point of the box closer than the slack
    /// (in the step norm) is on the same side, whichever way it lies.
    @Test func aTileEdgeDecisionHoldsWithinItsSlack() {
        var g = Rng(s: 8_081)
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var checked = 0
        for (t, f) in Self.tiles(&g, index: index, count: 300) where t.edges != nil {
            let h = f.halfExtent - RegionIndex.tilePad
            for (k, slot) in t.open.enumerated() {
                guard let e = Self.edges(t, k) else { continue }
                for _ in 0..<20 {
                    let p = (x: f.longitude + h * (2 * g.unit() - 1), y: f.latitude + h * (2 * g.unit() - 1))
                    guard let (code, slack) = Self.local(e, f, p.x, p.y).map({ ($0.code, $0.slack) }), slack > 0 else { continue }
                    for _ in 0..<4 {
                        // 99.99 % of the slack in the step norm, in a random direction.
                        let a = 2 * Double.pi * g.unit(), s = slack * 0.999_9
                        let q = (x: p.x + s * cos(a) / f.kLon, y: p.y + s * sin(a) / RegionIndex.kLatMax)
                        guard abs(q.x - f.longitude) <= h, abs(q.y - f.latitude) <= h else { continue }
                        #expect(index.contains(slot: slot, latitude: q.y, longitude: q.x) == (code == 3),
                                "polygon \(slot): \(p) -> \(q), slack \(slack)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 3_000, "checked \(checked)")
    }

    /// The segment-box test never misses a segment that meets the box (points along it in the
    /// box), and it is sharper than the boxes alone: long diagonals passing a box are told apart.
    @Test func anEdgeThatMeetsTheBoxIsNeverMissed() {
        var g = Rng(s: 313)
        var met = 0, passedBy = 0
        for _ in 0..<20_000 {
            let (x, y, d) = (g.unit(), g.unit(), 0.001 + 0.1 * g.unit())
            var (x1, y1, x2, y2) = (x + (g.unit() - 0.5) * 0.6, y + (g.unit() - 0.5) * 0.6, x + (g.unit() - 0.5) * 0.6, y + (g.unit() - 0.5) * 0.6)
            if g.chance(0.2) {
                // An end on the box's edge or corner exactly.
                (x1, y1) = g.chance(0.5) ? (x + d, y + (2 * g.unit() - 1) * d) : (x - d, y - d)
            }
            if g.chance(0.1) { (x2, y2) = (x1, y2) }  // vertical
            var meets = false
            for s in 0...2_000 {
                let t = Double(s) / 2_000
                let (px, py) = (x1 + t * (x2 - x1), y1 + t * (y2 - y1))
                if abs(px - x) <= d && abs(py - y) <= d { meets = true; break }
            }
            let may = PlanarRings.edge(x1, y1, x2, y2, mayMeetX: x, y: y, dx: d, dy: d)
            if meets {
                met += 1
                #expect(may, "segment (\(x1), \(y1))-(\(x2), \(y2)) meets box (\(x), \(y)) ± \(d)")
            }
            let boxesMeet = !(max(x1, x2) < x - d || min(x1, x2) > x + d || max(y1, y2) < y - d || min(y1, y2) > y + d)
            if boxesMeet && !may { passedBy += 1 }
        }
        #expect(met > 2_000 && passedBy > 1_000, "met \(met), passed by \(passedBy)")
    }

    /// A run through the polygons decides as the tiles' whole tests do: the same events with
    /// tile edges as the index's plain query gives (devices jumping between far places, which
    /// the tiles do not serve, against devices walking).
    @Test func tilesWithEdgesGiveTheQuerysHitsAlongAWalk() {
        var g = Rng(s: 6_007)
        let regions = Self.regions(&g)
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var cache = TileCache(budget: 1 << 20)
        var n = Neighbourhood(), fast: [RegionHit] = [], slow: [RegionHit] = [], changes: [RegionHit] = []
        var shaped = 0, steps = 0
        for _ in 0..<6 {
            n = Neighbourhood()
            var p = (lat: Self.centre.lat + (g.unit() - 0.5) * 0.03, lon: Self.centre.lon + (g.unit() - 0.5) * 0.04)
            for _ in 0..<2_000 {
                // Walking and driving steps of 1 cm to 40 m.
                let d = [1e-7, 1e-5, 1e-4, 3e-4][g.int(4)] * g.unit(), a = 2 * Double.pi * g.unit()
                p = (p.lat + d * sin(a), p.lon + d * cos(a) * 1.32)
                if n.holds(latitude: p.lat, longitude: p.lon) {
                    _ = n.advance(with: index, latitude: p.lat, longitude: p.lon, margin: 0, changes: &changes)
                } else {
                    let t = cache.tile(latitude: p.lat, longitude: p.lon, index: index, margin: 0)!
                    if t.edges != nil { shaped += 1 }
                    n.enter(t, with: index, latitude: p.lat, longitude: p.lon, margin: 0)
                }
                n.hits(into: &fast)
                index.query(latitude: p.lat, longitude: p.lon, margin: 0, into: &slow)
                #expect(fast == slow, "at \(p.lat), \(p.lon)")
                steps += 1
            }
        }
        #expect(shaped > 50, "tiles with edges entered: \(shaped)")
    }
}

extension TileEdgesTests {
    /// Tiles of circles alone carry no edges (nil, not an empty object): circles pay nothing for
    /// the polygons' shortcut. And a polygon's tiles do once it is open in them.
    @Test func onlyTilesWithOpenPolygonsCarryEdges() {
        var g = Rng(s: 404)
        let circles = (0..<200).map { i in
            circle(Self.centre.lat + (g.unit() - 0.5) * 0.03, Self.centre.lon + (g.unit() - 0.5) * 0.04, 50 + 1_500 * g.unit(), id: "c\(i)")
        }
        let plain = RegionIndex(regions: circles, maximumMargin: 0)
        let tiles = Self.tiles(&g, index: plain, count: 300)
        #expect(tiles.contains { !$0.0.open.isEmpty })
        #expect(tiles.allSatisfy { $0.0.edges == nil })
        let mixed = RegionIndex(regions: circles + Self.regions(&g), maximumMargin: 0)
        #expect(Self.tiles(&g, index: mixed, count: 300).contains { $0.0.edges != nil })
    }
}

extension TileEdgesTests {
    /// A polygon with more edges near a tile than ``TileEdges/maximumEdges`` keeps none there
    /// and is decided whole, correctly; one with fewer keeps them.
    @Test func aPolygonWithTooManyEdgesNearATileIsDecidedWhole() {
        var g = Rng(s: 515)
        let (cx, cy) = (Self.centre.lon, Self.centre.lat)
        // About 150 m across: inside one tile with all its edges.
        let many = PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: 0.001, vertices: TileEdges.maximumEdges + 40)
        let few = PlanarRingsTests.ring(&g, cx: cx + 0.0005, cy: cy, radius: 0.001, vertices: 12)
        let regions = [polygon([[many.map { ($0.x, $0.y) }]], id: "many"), polygon([[few.map { ($0.x, $0.y) }]], id: "few")]
        let index = RegionIndex(regions: regions, maximumMargin: 0)
        var cache = TileCache(budget: 1 << 20)
        let t = cache.tile(latitude: cy, longitude: cx, index: index, margin: 0)!
        let k = { (slot: Int32) in t.open.firstIndex(of: slot) }
        #expect(k(0) != nil && k(1) != nil, "both open in the tile: \(t.open)")
        if let m = k(0), let f = k(1) {
            #expect(t.edges?.edges(m) == nil)
            #expect(t.edges?.edges(f)?.segments.count == 12)
        }
        var n = Neighbourhood(), hits: [RegionHit] = [], changes: [RegionHit] = []
        n.enter(t, with: index, latitude: cy, longitude: cx, margin: 0)
        for _ in 0..<2_000 {
            let p = (lat: cy + (g.unit() - 0.5) * 0.002, lon: cx + (g.unit() - 0.5) * 0.002)
            guard n.holds(latitude: p.lat, longitude: p.lon) else { continue }
            _ = n.advance(with: index, latitude: p.lat, longitude: p.lon, margin: 0, changes: &changes)
            n.hits(into: &hits)
            #expect(hits == index.hits(p.lat, p.lon), "at \(p)")
        }
    }
}

extension TileEdgesTests {
    /// The banded scan for the edges near a box finds each edge that may meet it exactly once
    /// (an edge spans several bands), the same set as reading every edge, or nil past the limit.
    @Test func theEdgesNearABoxAreEveryEdgeThatMayMeetItOnce() {
        var g = Rng(s: 9_091)
        var compared = 0, refused = 0
        for _ in 0..<300 {
            let (cx, cy) = (-74 + g.unit(), 40.5 + g.unit() * 0.4)
            let radius = 0.0005 + g.unit() * 0.02
            var polygon = [PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: radius, vertices: 4 + g.int(120))]
            if g.chance(0.3) { polygon.append(PlanarRingsTests.ring(&g, cx: cx, cy: cy, radius: radius * 0.3, vertices: 5).reversed()) }
            let storage = PlanarRings.Storage([polygon])
            let rings = storage.rings
            for _ in 0..<10 {
                let d = radius * (0.01 + g.unit())
                let (x, y) = (cx + (g.unit() - 0.5) * 3 * radius, cy + (g.unit() - 0.5) * 3 * radius)
                var expected: [Int32] = []
                var start = 0
                for end in rings.ringEnds {
                    for k in start..<(Int(end) - 1)
                    where !(rings.xs[k] == rings.xs[k + 1] && rings.ys[k] == rings.ys[k + 1])
                        && PlanarRings.edge(rings.xs[k], rings.ys[k], rings.xs[k + 1], rings.ys[k + 1], mayMeetX: x, y: y, dx: d, dy: d) {
                        expected.append(Int32(k))
                    }
                    start = Int(end)
                }
                let limit = [4, 16, 64][g.int(3)]
                let found = rings.edges(nearX: x, y: y, dx: d, dy: d, upTo: limit)
                if expected.count > limit {
                    #expect(found == nil)
                    refused += 1
                } else {
                    #expect(found.map { $0.sorted() } == expected, "box (\(x), \(y)) ± \(d)")
                    compared += 1
                }
            }
        }
        #expect(compared > 1_000 && refused > 100, "compared \(compared), refused \(refused)")
    }
}
