import Foundation
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// The geofence shortcuts (tiles and slack, stable-fix skips, the reading thread's lookahead,
/// memory bounds that drop neighbourhoods) against the plain path (every fix queried and
/// stepped), where the geometry is least like a city's: across the antimeridian, at the tiles'
/// latitude limit (80 degrees), near a pole, at the equator and prime meridian; circles from
/// 3 m to 30 km, polygons (some read across the antimeridian), devices from standing still
/// to 400 m/s with jumps, some with fence rules. Output, errors and saved state must be the
/// same.
@Suite("Geofence shortcuts at extreme places")
struct ExtremePlacesEquivalenceTests {
    typealias Random = SeededGenerator

    static let places: [(name: String, lat: Double, lon: Double)] = [
        ("antimeridian", 12, 179.997), ("tile limit", 79.995, 20), ("far north", 86, -150),
        ("null island", 0.0005, -0.0005), ("south antimeridian", -45, -179.999), ("south pole", -89.97, 0),
    ]

    /// A point `north` and `east` metres from (lat, lon) on a local flat approximation, with
    /// latitude reflected over a pole and longitude wrapped into [-180, 180].
    static func offset(_ lat: Double, _ lon: Double, north: Double, east: Double) -> (lat: Double, lon: Double) {
        var la = lat + north / 111_320
        var lo = lon + east / (111_320 * max(1e-4, cos(lat * .pi / 180)))
        if la > 90 { la = 180 - la; lo += 180 }
        if la < -90 { la = -180 - la; lo += 180 }
        lo = (lo + 180).truncatingRemainder(dividingBy: 360)
        if lo < 0 { lo += 360 }
        return (min(90, max(-90, la)), lo - 180)
    }

    /// Request lines around the place; only those valid on their own are kept (a polygon
    /// around a pole, for one, is refused).
    static func requests(_ rng: inout Random, place: (lat: Double, lon: Double), rules: Bool)
        -> (text: String, circles: [Circle], edges: [Edge]) {
        var lines: [String] = [], circles: [Circle] = [], rings: [[(lat: Double, lon: Double)]] = []
        for i in 0..<30 {
            let c = offset(place.lat, place.lon, north: rng.uniform(-2_000, 2_000), east: rng.uniform(-2_000, 2_000))
            let radius = 3 * pow(10_000, rng.unit())
            var rule = ""
            if rules && rng.chance(0.35) {
                rule = ["\"dwell\": {\"inside\": \(5 + rng.below(40))}, ", "\"crossings\": true, ", "\"accuracy\": {\"maximum\": 40}, "][rng.below(3)]
            }
            let repeats = rule.hasPrefix("\"dwell\"") || rng.chance(0.7)
            circles.append(Circle(lat: c.lat, lon: c.lon, radius: radius))
            lines.append("{\"identifier\": \"c\(i)\", \"content\": {\"title\": \"c\"}, \"trigger\": {\"type\": \"location\", "
                + "\"repeats\": \(repeats), " + rule + "\"region\": {\"identifier\": \"r\(i)\", "
                + "\"center\": {\"latitude\": \(c.lat), \"longitude\": \(c.lon)}, \"radius\": \(radius)}}}")
        }
        for i in 0..<4 {
            let c = (north: rng.uniform(-1_500, 1_500), east: rng.uniform(-1_500, 1_500))
            let size = rng.uniform(20, 3_000), n = 5 + rng.below(6)
            var ring: [String] = [], points: [(lat: Double, lon: Double)] = []
            for k in 0..<n {
                let a = 2 * Double.pi * Double(k) / Double(n), d = size * rng.uniform(0.5, 1)
                let p = offset(place.lat, place.lon, north: c.north + d * cos(a), east: c.east + d * sin(a))
                ring.append("[\(p.lon), \(p.lat)]")
                points.append(p)
            }
            ring.append(ring[0])
            rings.append(points + [points[0]])
            lines.append("{\"identifier\": \"p\(i)\", \"content\": {\"title\": \"p\"}, \"trigger\": {\"type\": \"location\", "
                + "\"repeats\": true, \"region\": {\"identifier\": \"q\(i)\", \"geometry\": {\"type\": \"Polygon\", "
                + "\"coordinates\": [[\(ring.joined(separator: ", "))]]}}}}")
        }
        func valid(_ line: String) -> Bool { RequestsFile.parse(line, file: "t", options: ValidationOptions()).errorCount == 0 }
        // The edges of valid polygons that do not cross the antimeridian: straight in degrees.
        var edges: [Edge] = []
        for (i, ring) in rings.enumerated() where valid(lines[circles.count + i]) {
            for (a, b) in zip(ring, ring.dropFirst()) where abs(a.lon - b.lon) < 180 { edges.append(Edge(a: a, b: b)) }
        }
        return (lines.filter(valid).joined(separator: "\n"), circles, edges)
    }

    struct Edge {
        let a: (lat: Double, lon: Double), b: (lat: Double, lon: Double)
    }

    struct Circle {
        let lat: Double, lon: Double, radius: Double
    }

    /// How far along bearing `b` from a circle's centre (on ``offset(_:_:north:east:)``'s
    /// line) its boundary lies: bisected on the geodesic distance, to 1e-9 m.
    static func boundary(of c: Circle, bearing b: Double) -> Double {
        var lo = 0.0, hi = c.radius * 1.1 + 10
        for _ in 0..<200 where hi - lo > 1e-9 {
            let mid = (lo + hi) / 2
            let p = offset(c.lat, c.lon, north: mid * cos(b), east: mid * sin(b))
            if Geodesic.distance(latitude1: c.lat, longitude1: c.lon, latitude2: p.lat, longitude2: p.lon) < c.radius { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// Devices standing, walking, driving, flying and jumping around the place; the last one
    /// creeps across circle boundaries and polygon edges in steps of 2 mm to 40 cm (40 steps
    /// or 30 cm either side of the boundary, and back), then jumps to another.
    static func lines(_ rng: inout Random, place: (lat: Double, lon: Double), circles: [Circle], edges: [Edge],
                      devices: Int, seconds: Int) -> [String] {
        var pos = (0..<devices).map { _ in offset(place.lat, place.lon, north: rng.uniform(-1_500, 1_500), east: rng.uniform(-1_500, 1_500)) }
        var heading = (0..<devices).map { _ in rng.uniform(0, 2 * .pi) }
        var out: [String] = []
        // A walk along a line through (lat, lon) in `bearing`, crossing a boundary at `edge`
        // metres: a circle's (along a radius) or a polygon edge's (through its midpoint, across it).
        var creep = (lat: 0.0, lon: 0.0, bearing: 0.0, edge: 0.0, s: 0.0, step: 0.0, width: 0.0, turns: 2)
        for s in 0..<seconds {
            if creep.turns >= 2 {
                let step = 0.002 * pow(200, rng.unit()), width = max(0.3, 40 * step)
                if !edges.isEmpty && rng.chance(0.4) {
                    let e = edges[rng.below(edges.count)]
                    let mid = (lat: (e.a.lat + e.b.lat) / 2, lon: (e.a.lon + e.b.lon) / 2)
                    let k = 111_320 * max(1e-4, cos(mid.lat * .pi / 180))
                    let along = atan2((e.b.lon - e.a.lon) * k, (e.b.lat - e.a.lat) * 111_320)
                    creep = (mid.lat, mid.lon, along + .pi / 2, 0, -width, step, width, 0)
                } else {
                    let c = circles[rng.below(circles.count)], b = rng.uniform(0, 2 * .pi)
                    let edge = boundary(of: c, bearing: b)
                    creep = (c.lat, c.lon, b, edge, max(0, edge - width), step, width, 0)
                }
            }
            creep.s += creep.step
            if abs(creep.s - creep.edge) > creep.width { creep.step = -creep.step; creep.turns += 1 }
            let p = offset(creep.lat, creep.lon, north: creep.s * cos(creep.bearing), east: creep.s * sin(creep.bearing))
            out.append("{\"device\": \"creeper\", \"t\": \"\(at(s))\", \"lat\": \(p.lat), \"lon\": \(p.lon)}")
            for d in 0..<devices where rng.chance(0.8) {
                let speed = [0, 1.5, 15, 90, 400][(d + s / 100) % 5]
                heading[d] += rng.uniform(-0.5, 0.5)
                if rng.chance(0.01) {
                    pos[d] = offset(place.lat, place.lon, north: rng.uniform(-2_500, 2_500), east: rng.uniform(-2_500, 2_500))
                } else {
                    pos[d] = offset(pos[d].lat, pos[d].lon, north: speed * cos(heading[d]), east: speed * sin(heading[d]))
                }
                var line = "{\"device\": \"d\(d)\", \"t\": \"\(at(s))\", \"lat\": \(pos[d].lat), \"lon\": \(pos[d].lon)"
                if rng.chance(0.05) { line += ", \"acc\": 80" } else if rng.chance(0.5) { line += ", \"acc\": 5" }
                out.append(line + "}")
            }
        }
        return out
    }

    @Test(arguments: 0..<places.count, 0..<3)
    func theShortcutsDecideAsThePlainPath(place p: Int, seed: Int) {
        let place = Self.places[p]
        var rng = Random(state: UInt64(p * 31 + seed) &* 7919 &+ 101)
        let (requests, circles, edges) = Self.requests(&rng, place: (place.lat, place.lon), rules: seed >= 1)
        let lines = Self.lines(&rng, place: (place.lat, place.lon), circles: circles, edges: edges, devices: 4, seconds: 1500)
        let options = StreamOptions(margin: [0, 10, 0][seed], dwell: p % 2 == 0 ? 0 : 4, initialFire: p % 3 == 0,
                                    now: Timestamp.date(millis: 1_795_770_000_000))
        typealias Run = LookaheadEquivalenceTests
        let plain = Run.run(requests: requests, lines: lines, options: options, ahead: false, skipping: false)
        #expect(!plain.output.isEmpty, "\(place.name): the traces must cross some region")
        let fast = Run.run(requests: requests, lines: lines, options: options, ahead: true, varyingShare: true)
        let bounded = Run.run(requests: requests, lines: lines, options: options, ahead: true, lookaheadBudget: 64,
                              evaluatorBudget: 6)
        #expect(fast.decided > 0)
        for (name, other) in [("shortcuts", fast), ("shortcuts under memory bounds", bounded)] {
            let a = plain.output.split(separator: "\n"), b = other.output.split(separator: "\n")
            #expect(a.count == b.count, "\(place.name), \(name): \(b.count) lines, plain \(a.count)")
            let first = zip(a, b).first { $0 != $1 }
            #expect(first == nil, "\(place.name), \(name): first difference \(String(describing: first))")
            #expect(other.errors == plain.errors)
            #expect(other.state == plain.state, "\(place.name), \(name): saved state differs")
        }
    }
}
