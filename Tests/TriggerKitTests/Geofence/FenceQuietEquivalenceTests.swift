import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 12: fences with rules skip a circle the device cannot have moved across since it
/// last measured it (``GuardedFences/Quiet``). The shortcut must never change an event or a
/// link: on random circles with rules and walks that hover within a centimetre of every
/// threshold (radius - margin, radius, radius + margin), output and fence state equal
/// measuring every fence at every fix.
@Suite("fence rules: the quiet cache equals measuring every fix")
struct FenceQuietEquivalenceTests {
    struct Circle {
        var latitude: Double
        var longitude: Double
        var radius: Double
    }

    /// Where the circles are: mid-latitudes, near a pole, across the equator, across the
    /// antimeridian.
    struct Place: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var margin: Double
        var latitude = 40.0
        var longitude = -74.0
        var testDescription: String { "seed \(seed), margin \(margin), at (\(latitude), \(longitude))" }
    }

    static func wrapped(_ lon: Double) -> Double { lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon) }

    static func circles(_ rng: inout SeededGenerator, count: Int, at place: Place) -> (requests: String, circles: [Circle]) {
        var lines: [String] = []
        var circles: [Circle] = []
        for k in 0..<count {
            let c = Circle(latitude: place.latitude + rng.uniform(-0.004, 0.004), longitude: wrapped(place.longitude + rng.uniform(-0.004, 0.004)),
                           radius: Double(30 + rng.below(600)) + rng.uniform(0, 1))
            circles.append(c)
            var rules: [String] = []
            if rng.chance(0.6) { rules.append("\"dwell\": {\"\(rng.chance(0.5) ? "inside" : "outside")\": \(20 + rng.below(200))}") }
            if rng.chance(0.4) { rules.append("\"accuracy\": {\"maximum\": \(5 + rng.below(40))}") }
            if rng.chance(0.2) {
                let start = rng.below(3000)
                rules.append("\"window\": {\"intervals\": [{\"start\": \"\(at(start))\", \"end\": \"\(at(start + 500 + rng.below(3000)))\"}]}")
            }
            // Crossings on a third (a path between two fixes outside may pass through).
            if rng.chance(0.3) { rules.append("\"crossings\": true") }
            let repeats = rules.first?.hasPrefix("\"dwell\"") == true || rng.chance(0.7)
            lines.append("{\"identifier\": \"c\(k)\", \"content\": {\"title\": \"c\"}, \"trigger\": {\"type\": \"location\", \"repeats\": \(repeats), "
                         + rules.map { $0 + ", " }.joined() + "\"region\": {\"identifier\": \"r\(k)\", "
                         + "\"center\": {\"latitude\": \(c.latitude), \"longitude\": \(c.longitude)}, \"radius\": \(c.radius)}}}")
        }
        return (lines.joined(separator: "\n"), circles)
    }

    /// The latitude on the circle's meridian (north or south of its centre) at geodesic
    /// distance `metres` from the centre, to well under a millimetre (bisection).
    static func latitude(_ c: Circle, metres: Double, north: Bool) -> Double {
        var lo = 0.0, hi = 0.02
        for _ in 0..<80 {
            let mid = (lo + hi) / 2
            let lat = north ? c.latitude + mid : c.latitude - mid
            if Geodesic.distance(latitude1: c.latitude, longitude1: c.longitude, latitude2: lat, longitude2: c.longitude) < metres {
                lo = mid
            } else {
                hi = mid
            }
        }
        return north ? c.latitude + hi : c.latitude - hi
    }

    /// Devices that each hover around one threshold of one circle (on its meridian), in
    /// steps from a millimetre to a few metres, now and then moving to another threshold or
    /// walking off the meridian; some fixes carry an accuracy.
    static func walks(_ rng: inout SeededGenerator, circles: [Circle], margin: Double, devices: Int, steps: Int) -> [String] {
        struct Walker {
            var circle = 0
            var threshold = 0.0
            var offset = 0.0
            var north = true
            var east = 0.0
        }
        func retarget(_ w: inout Walker, _ rng: inout SeededGenerator) {
            w.circle = rng.below(circles.count)
            let r = circles[w.circle].radius
            w.threshold = [r - margin, r, r + margin][rng.below(3)]
            w.offset = rng.uniform(-3, 3)
            w.north = rng.chance(0.5)
            w.east = 0
        }
        var walkers = (0..<devices).map { _ in Walker() }
        for d in walkers.indices { retarget(&walkers[d], &rng) }
        var lines: [String] = []
        for s in 0..<steps {
            let d = rng.below(devices)
            if rng.chance(0.02) { retarget(&walkers[d], &rng) }
            switch rng.below(10) {
            case 0: walkers[d].offset += rng.uniform(-0.01, 0.01)  // within a centimetre
            case 1: walkers[d].offset = rng.uniform(-0.01, 0.01)  // onto the threshold
            case 2: walkers[d].east += rng.uniform(-0.0002, 0.0002)  // off the meridian
            case 3: walkers[d].offset += rng.uniform(-20, 20)
            default: walkers[d].offset += rng.uniform(-1, 1)
            }
            let v = walkers[d], c = circles[v.circle]
            let lat = latitude(c, metres: max(0, v.threshold + v.offset), north: v.north)
            let acc = rng.chance(0.25) ? ", \"acc\": \(rng.chance(0.5) ? rng.uniform(0, 0.02) : rng.uniform(0, 60))" : ""
            lines.append("{\"device\": \"d\(d)\", \"t\": \"\(at(s * 2))\", \"lat\": \(lat), \"lon\": \(wrapped(c.longitude + v.east))\(acc)}")
        }
        lines.append(clock(steps * 2 + 4000))
        return lines
    }

    @Test(arguments: [
        Place(seed: 1, margin: 0), Place(seed: 2, margin: 0), Place(seed: 3, margin: 5), Place(seed: 4, margin: 25),
        Place(seed: 5, margin: 5, latitude: 80, longitude: 20), Place(seed: 6, margin: 0, latitude: 0.002, longitude: 30),
        Place(seed: 7, margin: 5, latitude: -33, longitude: 179.998),
    ])
    func hoveringAtEveryThresholdGivesTheSameEvents(place: Place) {
        var rng = SeededGenerator(seed: place.seed)
        let (requests, circles) = Self.circles(&rng, count: 40, at: place)
        let lines = Self.walks(&rng, circles: circles, margin: place.margin, devices: 10, steps: 4000)
        var cached = StreamHarness(requests: requests, options: StreamOptions(margin: place.margin))
        var measured = StreamHarness(requests: requests, options: StreamOptions(margin: place.margin))
        measured.evaluator.guarded?.usesQuiet = false
        let a = cached.feed(lines), b = measured.feed(lines)
        #expect(cached.errors.isEmpty, "\(cached.errors.prefix(3))")
        #expect(a.count > 200, "the walks must exercise the fences (\(a.count) events)")
        #expect(a == b)
        #expect(cached.evaluator.fenceSnapshot() == measured.evaluator.fenceSnapshot())
        // The cache is in use (else this test would compare the slow path with itself).
        let skips = cached.evaluator.guarded?.quietSkips ?? 0
        #expect(skips > 10_000, "measurements spared: \(skips)")
        #expect(measured.evaluator.guarded?.quietSkips == 0)
    }

    /// Crossings: a device hovers outside a circle (its bound kept), then crosses a chord
    /// whose ends are both outside radius + margin while its nearest point is within a few
    /// centimetres of the radius, one way or the other: pass-throughs, and near misses.
    @Test(arguments: [0.0, 10.0])
    func chordsPastTheRadiusGiveTheSamePassThroughs(margin: Double) {
        let radius = 200.0
        let request = "{\"identifier\": \"x\", \"content\": {\"title\": \"x\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, "
            + "\"crossings\": true, \"dwell\": {\"outside\": 30}, \"region\": {\"identifier\": \"rx\", "
            + "\"center\": {\"latitude\": 40.0, \"longitude\": -74.0}, \"radius\": \(radius)}}}"
        var rng = SeededGenerator(seed: UInt64(margin) + 21)
        // Metres east and north of the centre (a local approximation: the comparison is of
        // the engine with itself, and the offsets are drawn finely around the radius).
        func line(_ s: Int, _ x: Double, _ y: Double) -> String {
            let lat = 40 + y / 111_034, lon = -74 + x / (111_034 * cos(40 * Double.pi / 180))
            return "{\"device\": \"d\", \"t\": \"\(at(s))\", \"lat\": \(lat), \"lon\": \(lon)}"
        }
        var lines: [String] = []
        var s = 0
        var side = -1.0
        for _ in 0..<300 {
            let y = radius + (rng.chance(0.5) ? rng.uniform(-0.05, 0.05) : rng.uniform(-3, 3))
            let reach = radius + margin + rng.uniform(0.5, 10)
            let x = (reach * reach - y * y).squareRoot()
            // Hover at one end (bounds kept), then cross to the other.
            for _ in 0..<rng.below(6) {
                lines.append(line(s, side * x + rng.uniform(-0.2, 0.2), y))
                s += 1
            }
            side = -side
            lines.append(line(s, side * x, y))
            s += 1
        }
        var cached = StreamHarness(requests: request, options: StreamOptions(margin: margin))
        var measured = StreamHarness(requests: request, options: StreamOptions(margin: margin))
        measured.evaluator.guarded?.usesQuiet = false
        let a = cached.feed(lines), b = measured.feed(lines)
        let passes = a.filter { $0.contains("\"event\":\"enter\"") }.count
        #expect(passes > 50, "pass-throughs: \(passes)")
        #expect(a == b)
        #expect((cached.evaluator.guarded?.quietSkips ?? 0) > 200, "skips: \(cached.evaluator.guarded?.quietSkips ?? 0)")
    }

    /// A snapshot restored over later state: the links go back, and the bounds taken since
    /// must not decide them (restoring forgets them; a bound also applies only to a link on
    /// the side it was taken for; this fails with neither guard).
    @Test func restoringAnEarlierSnapshotForgetsTheBounds() throws {
        var rng = SeededGenerator(seed: 11)
        let place = Place(seed: 11, margin: 5)
        let (requests, circles) = Self.circles(&rng, count: 40, at: place)
        let lines = Self.walks(&rng, circles: circles, margin: place.margin, devices: 6, steps: 3000)
        let first = Array(lines[..<1000]), second = Array(lines[1000..<2000]), third = Array(lines[2000...])
        var outputs: [[String]] = []
        for usesQuiet in [true, false] {
            var h = StreamHarness(requests: requests, options: StreamOptions(margin: place.margin))
            h.evaluator.guarded?.usesQuiet = usesQuiet
            var out = h.feed(first)
            let early = h.evaluator.snapshot()
            out += h.feed(second)
            try h.evaluator.restore(early)
            out += h.feed(third)
            outputs.append(out)
        }
        #expect(outputs[0].count > 100)
        #expect(outputs[0] == outputs[1])
    }

    /// A device that looked at many fences, then at few, keeps a buffer sized for few; and
    /// one device's large buffer is not handed to the next.
    @Test func aDevicesBufferFollowsItsOwnEntries() {
        var q = GuardedFences.Quiet()
        let many = (0..<400).map { GuardedFences.Quiet.Entry(fence: Int32($0), inside: false, due: 1) }
        q.keep(many)
        #expect(q.entries.count == 400)
        q.keep(Array(many.prefix(3)))
        #expect(q.entries.count == 3)
        #expect(q.entries.capacity <= 2 * 3 + 16)
        var other = GuardedFences.Quiet()
        other.keep(Array(many.prefix(1)))
        #expect(other.entries.capacity <= 2 * 1 + 16)
    }

    /// The path restarts (every bound forgotten) after a jump, near the equator and across
    /// it, after its step budget, and when no bound is left.
    @Test func jumpsAndTheEquatorRestartThePath() {
        var q = GuardedFences.Quiet()
        #expect(q.advance(latitude: 40, longitude: -74) == 0)
        q.entries = [.init(fence: 3, inside: false, due: 50)]
        let step = q.advance(latitude: 40.0001, longitude: -74)
        #expect(step > 11.1 && step < 11.2, "a step of 0.0001 degrees north: \(step) m")
        #expect(q.entries.count == 1)
        #expect(q.advance(latitude: 40.1, longitude: -74) == 0, "a jump of 0.1 degrees restarts")
        #expect(q.entries.isEmpty)
        #expect(q.advance(latitude: 40.1001, longitude: -74) == 0, "with no entry left, the path starts again")
        _ = q.advance(latitude: 0.02, longitude: 10)
        q.entries = [.init(fence: 1, inside: true, due: 5)]
        #expect(q.advance(latitude: -0.01, longitude: 10) > 0, "within the room allowed near the equator")
        #expect(q.advance(latitude: 0.2, longitude: 10) == 0, "a step too large restarts")
        var long = GuardedFences.Quiet()
        _ = long.advance(latitude: 50, longitude: 0)
        long.entries = [.init(fence: 0, inside: false, due: 1e9)]
        for k in 1..<Int(Neighbourhood.restartSteps) { _ = long.advance(latitude: 50, longitude: Double(k % 2) * 1e-7) }
        #expect(long.entries.count == 1)
        _ = long.advance(latitude: 50, longitude: 0)
        #expect(long.entries.isEmpty, "the step budget restarts the path")
    }
}
