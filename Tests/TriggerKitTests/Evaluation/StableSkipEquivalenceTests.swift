import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The neighbourhood shortcut (a fix inside its device's neighbourhood tests only the open
/// regions, and skips the region step when they decide as before) must not change anything:
/// the same output bytes and the same saved state as querying and stepping every fix.
@Suite("Stream evaluator: the neighbourhood shortcut changes nothing")
struct StableSkipEquivalenceTests {
    /// SplitMix64: a fixed, portable sequence per seed.
    typealias Random = SeededGenerator

    static let centre = (lat: 40.0, lon: -74.0)

    /// Circles around the centre (some device-scoped, one-shot, entry- or exit-only, added
    /// mid-stream), one large circle (decided by the haversine bracket) and one polygon.
    /// With `rules`, about a third of the circles also get fence rules (dwell, accuracy,
    /// crossings), followed on their own path beside the plain ones.
    static func requests(_ rng: inout Random, devices: Int, rules: Bool = false) -> String {
        var lines: [String] = []
        for i in 0..<40 {
            let lat = centre.lat + rng.uniform(-0.006, 0.006), lon = centre.lon + rng.uniform(-0.008, 0.008)
            let radius = rng.uniform(15, 400)
            var s = "{\"identifier\": \"c\(i)\", \"content\": {\"title\": \"c\(i)\"}, "
            if rng.chance(0.25) { s += "\"device\": \"d\(rng.below(devices))\", " }
            if rng.chance(0.3) { s += "\"addedAt\": \"\(at(rng.below(1200)))\", " }
            var rule = ""
            if rules && rng.chance(0.35) {
                rule = ["\"dwell\": {\"inside\": \(10 + rng.below(60))}, ", "\"crossings\": true, ", "\"accuracy\": {\"maximum\": 40}, ",
                        "\"dwell\": {\"outside\": 30}, \"crossings\": true, "][rng.below(4)]
            }
            // A one-shot with a dwell is refused: dwells repeat.
            let repeats = rule.hasPrefix("\"dwell\"") || rng.chance(0.6)
            s += "\"trigger\": {\"type\": \"location\", \"repeats\": \(repeats), " + rule + "\"region\": {\"identifier\": \"r\(i)\", "
            s += "\"center\": {\"latitude\": \(lat), \"longitude\": \(lon)}, \"radius\": \(radius), "
            s += "\"notifyOnEntry\": \(rng.chance(0.85)), \"notifyOnExit\": \(rng.chance(0.85))}}}"
            lines.append(s)
        }
        lines.append("{\"identifier\": \"big\", \"content\": {\"title\": \"b\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, \"region\": {\"identifier\": \"big\", \"center\": {\"latitude\": 40.03, \"longitude\": -74.0}, \"radius\": 3330}}}")
        lines.append(#"{"identifier": "poly", "content": {"title": "p"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "poly", "geometry": {"type": "Polygon", "coordinates": [[[-74.004, 39.997], [-73.999, 39.997], [-73.999, 40.001], [-74.004, 40.001], [-74.004, 39.997]]]}}}}"#)
        return lines.joined(separator: "\n")
    }

    /// Devices that walk, drive, stand still, jitter, teleport; with clock lines, stale,
    /// invalid and inaccurate fixes.
    static func lines(_ rng: inout Random, devices: Int, seconds: Int) -> [String] {
        var pos = (0..<devices).map { _ in (lat: centre.lat + rng.uniform(-0.007, 0.007), lon: centre.lon + rng.uniform(-0.009, 0.009)) }
        var heading = (0..<devices).map { _ in rng.uniform(0, 2 * Double.pi) }
        var out: [String] = []
        for s in 0..<seconds {
            if rng.chance(0.02) { out.append("{\"t\": \"\(at(s))\"}") }
            for d in 0..<devices where rng.chance(0.8) {
                let speed: Double
                switch (d + s / 150) % 4 {
                case 0: speed = 1.4
                case 1: speed = 14
                case 2: speed = rng.chance(0.9) ? 0 : 0.3
                default: speed = rng.chance(0.05) ? 2_000 : 3
                }
                heading[d] += rng.uniform(-0.4, 0.4)
                pos[d].lat += speed * cos(heading[d]) / 111_000
                pos[d].lon += speed * sin(heading[d]) / 85_000
                if abs(pos[d].lat - centre.lat) > 0.012 || abs(pos[d].lon - centre.lon) > 0.015 {
                    pos[d] = (centre.lat + rng.uniform(-0.005, 0.005), centre.lon + rng.uniform(-0.006, 0.006))
                }
                var t = s
                if rng.chance(0.01) { t = max(0, s - 5) }  // stale
                var line = "{\"device\": \"d\(d)\", \"t\": \"\(at(t))\", \"lat\": \(pos[d].lat), \"lon\": \(pos[d].lon)"
                if rng.chance(0.01) { line += ", \"acc\": -1" } else if rng.chance(0.03) { line += ", \"acc\": 80" } else if rng.chance(0.5) { line += ", \"acc\": 5" }
                out.append(line + "}")
            }
        }
        return out
    }

    static func run(requests: String, lines: [String], options: StreamOptions, skipping: Bool,
                    budget: Int? = nil) -> (output: [String], state: EvaluatorSnapshot, skips: Int, releases: Int) {
        var h = StreamHarness(requests: requests, options: options)
        h.evaluator.skipsStableFixes = skipping
        if let budget {
            h.evaluator.neighbourhoodSlotBudget = budget
            h.evaluator.tileCache = TileCache(budget: 16)
        }
        let out = h.feed(lines)
        return (out, h.evaluator.snapshot(), h.evaluator.stableSkips, h.evaluator.neighbourhoodReleases)
    }

    @Test(arguments: 0..<8)
    func sameOutputAndStateWithAndWithoutTheSkip(seed: Int) {
        var rng = Random(state: UInt64(seed) &* 7919 &+ 17)
        let devices = 1 + rng.below(5)
        let requests = Self.requests(&rng, devices: devices)
        let lines = Self.lines(&rng, devices: devices, seconds: 1500)
        let options = StreamOptions(margin: [0, 0, 8, 25][seed % 4], dwell: seed % 3 == 1 ? 4 : 0,
                                    maxAccuracy: seed % 2 == 0 ? 30 : nil, initialFire: seed % 4 >= 2,
                                    now: Timestamp.date(millis: 1_795_770_000_000))
        let plain = Self.run(requests: requests, lines: lines, options: options, skipping: false)
        let skipped = Self.run(requests: requests, lines: lines, options: options, skipping: true)
        #expect(plain.skips == 0)
        #expect(skipped.skips > lines.count / 10, "the traces must exercise the skip")
        #expect(!plain.output.isEmpty)
        // Compared without printing thousands of lines on failure: count, then the first difference.
        #expect(skipped.output.count == plain.output.count)
        let firstDifference = zip(skipped.output, plain.output).first { $0 != $1 }
        #expect(firstDifference == nil, "first differing line: \(String(describing: firstDifference))")
        #expect(skipped.state == plain.state, "saved state differs")
        // The memory bound: neighbourhoods dropped again and again change nothing either.
        let bounded = Self.run(requests: requests, lines: lines, options: options, skipping: true, budget: 6)
        #expect(bounded.releases > 10)
        #expect(bounded.output == plain.output)
        #expect(bounded.state == plain.state)
    }
}
