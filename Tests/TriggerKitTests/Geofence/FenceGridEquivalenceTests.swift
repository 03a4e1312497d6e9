import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 13: the grid that finds the fences with rules near a fix (and along a path) is a
/// shortcut; on random fences, rules and traces its output and state equal looking at every
/// fence for every fix.
@Suite("fence rules: grid lookup equals the full scan")
struct FenceGridEquivalenceTests {
    static func requests(_ rng: inout SeededGenerator, count: Int) -> String {
        var lines: [String] = []
        for k in 0..<count {
            let lat = 40 + rng.uniform(-0.05, 0.05), lon = -74 + rng.uniform(-0.05, 0.05)
            var rules: [String] = []
            if rng.chance(0.4) { rules.append("\"dwell\": {\"\(rng.chance(0.5) ? "inside" : "outside")\": \(30 + rng.below(300))}") }
            if rng.chance(0.4) { rules.append("\"accuracy\": {\"maximum\": \(10 + rng.below(90))}") }
            if rng.chance(0.4) { rules.append("\"crossings\": true") }
            if rng.chance(0.2) {
                let start = rng.below(2000)
                rules.append("\"window\": {\"intervals\": [{\"start\": \"\(at(start))\", \"end\": \"\(at(start + 500 + rng.below(3000)))\"}]}")
            }
            if rules.isEmpty { rules.append("\"crossings\": true") }
            let region: String
            if rng.chance(0.7) {
                region = "\"center\": {\"latitude\": \(lat), \"longitude\": \(lon)}, \"radius\": \(20 + rng.below(2000))"
            } else {
                let h = rng.uniform(0.001, 0.01)
                region = "\"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[\(lon), \(lat)], [\(lon + h), \(lat)], [\(lon + h), \(lat + h)], [\(lon), \(lat + h)], [\(lon), \(lat)]]]}"
            }
            // A one-shot with a dwell would end at its first crossing (refused): dwells repeat.
            let repeats = rules.first?.hasPrefix("\"dwell\"") == true || rng.chance(0.7)
            lines.append("{\"identifier\": \"f\(k)\", \"content\": {\"title\": \"f\"}, \"trigger\": {\"type\": \"location\", \"repeats\": \(repeats), "
                         + rules.joined(separator: ", ") + ", \"region\": {\"identifier\": \"r\(k)\", " + region + "}}}")
        }
        return lines.joined(separator: "\n")
    }

    static func trace(_ rng: inout SeededGenerator, devices: Int, steps: Int) -> [String] {
        var pos = (0..<devices).map { _ in (40 + rng.uniform(-0.05, 0.05), -74 + rng.uniform(-0.05, 0.05)) }
        var lines: [String] = []
        for s in 0..<steps {
            let d = rng.below(devices)
            // Mostly walking, sometimes a jump (a sparse fix) across several fences.
            let step = rng.chance(0.1) ? 0.02 : 0.0005
            pos[d].0 += rng.uniform(-step, step)
            pos[d].1 += rng.uniform(-step, step)
            let acc = rng.chance(0.3) ? ", \"acc\": \(rng.uniform(1, 150))" : ""
            lines.append("{\"device\": \"d\(d)\", \"t\": \"\(at(s * 3))\", \"lat\": \(pos[d].0), \"lon\": \(pos[d].1)\(acc)}")
        }
        lines.append(clock(steps * 3 + 5000))
        return lines
    }

    @Test(arguments: [1, 2, 3])
    func randomFencesAndTracesGiveTheSameEvents(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let requests = Self.requests(&rng, count: 60)
        let lines = Self.trace(&rng, devices: 12, steps: 3000)
        var grid = StreamHarness(requests: requests)
        var full = StreamHarness(requests: requests)
        full.evaluator.guarded?.scansAll = true
        let a = grid.feed(lines), b = full.feed(lines)
        #expect(a.count > 50, "the trace must exercise the fences (\(a.count) events)")
        #expect(a == b)
        #expect(grid.evaluator.fenceSnapshot() == full.evaluator.fenceSnapshot())
    }
}
