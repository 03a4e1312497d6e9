import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 13: the grid that finds the fences with rules near a fix (and along a path) is a
/// shortcut; on random fences, rules and traces its output and state equal looking at every
/// fence for every fix.
@Suite("fence rules: grid lookup equals the full scan")
struct FenceGridEquivalenceTests {
    static func requests(_ rng: inout SeededGenerator, count: Int, accuracy: ClosedRange<Int> = 10...99) -> String {
        var lines: [String] = []
        for k in 0..<count {
            let lat = 40 + rng.uniform(-0.05, 0.05), lon = -74 + rng.uniform(-0.05, 0.05)
            var rules: [String] = []
            if rng.chance(0.4) { rules.append("\"dwell\": {\"\(rng.chance(0.5) ? "inside" : "outside")\": \(30 + rng.below(300))}") }
            if rng.chance(0.4) { rules.append("\"accuracy\": {\"maximum\": \(accuracy.lowerBound + rng.below(accuracy.count))}") }
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

    static func trace(_ rng: inout SeededGenerator, devices: Int, steps: Int, accuracy: ClosedRange<Double> = 1...150) -> [String] {
        var pos = (0..<devices).map { _ in (40 + rng.uniform(-0.05, 0.05), -74 + rng.uniform(-0.05, 0.05)) }
        var lines: [String] = []
        for s in 0..<steps {
            let d = rng.below(devices)
            // Mostly walking, sometimes a jump (a sparse fix) across several fences.
            let step = rng.chance(0.1) ? 0.02 : 0.0005
            pos[d].0 += rng.uniform(-step, step)
            pos[d].1 += rng.uniform(-step, step)
            let acc = rng.chance(0.3) ? ", \"acc\": \(rng.uniform(accuracy.lowerBound, accuracy.upperBound))" : ""
            lines.append("{\"device\": \"d\(d)\", \"t\": \"\(at(s * 3))\", \"lat\": \(pos[d].0), \"lon\": \(pos[d].1)\(acc)}")
        }
        lines.append(clock(steps * 3 + 5000))
        return lines
    }

    /// The lines through the grid's evaluator and one looking at every fence for every fix:
    /// the same events and fence state (checked here); the grid's evaluator for more.
    static func compareWithTheFullScan(requests: String, lines: [String], options: StreamOptions = StreamOptions()) -> StreamHarness {
        var grid = StreamHarness(requests: requests, options: options)
        var full = StreamHarness(requests: requests, options: options)
        full.evaluator.guarded?.scansAll = true
        full.evaluator.guarded?.usesQuiet = false
        let a = grid.feed(lines), b = full.feed(lines)
        #expect(a.count > 50, "the trace must exercise the fences (\(a.count) events)")
        #expect(a == b)
        #expect(grid.evaluator.fenceSnapshot() == full.evaluator.fenceSnapshot())
        #expect(grid.evaluator.guarded?.ignoredForAccuracy == full.evaluator.guarded?.ignoredForAccuracy)
        return grid
    }

    @Test(arguments: [1, 2, 3])
    func randomFencesAndTracesGiveTheSameEvents(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let requests = Self.requests(&rng, count: 60)
        _ = Self.compareWithTheFullScan(requests: requests, lines: Self.trace(&rng, devices: 12, steps: 3000))
    }

    /// The grid holds each fence by its box widened by the margin alone (a fix must be in it
    /// to move the fence; links, paths and outside dwells reach it otherwise): rules of up to
    /// 5 km, fixes of 1 m to 8 km and margins of 0 to 1 km give the events, the state and the
    /// ignored count of the full scan, and a fix reads few fences. (With boxes widened by each
    /// rule's `maximum`, a rule of 10 km put every fence in the list each fix reads: 156 µs a
    /// fix for 10,000 circles; a helper's find. The reviewer's margins.)
    @Test(arguments: [(4, 0.0), (5, 30.0), (6, 200.0), (7, 1_000.0)])
    func largeAccuracyRulesGiveTheSameEvents(seed: UInt64, margin: Double) throws {
        var rng = SeededGenerator(seed: seed)
        let requests = Self.requests(&rng, count: 60, accuracy: 100...5_000)
        let lines = Self.trace(&rng, devices: 12, steps: 3000, accuracy: 1...8_000)
        let grid = Self.compareWithTheFullScan(requests: requests, lines: lines, options: StreamOptions(margin: margin))
        let fences = try #require(grid.evaluator.guarded)
        #expect(fences.grid.large.isEmpty, "no fence is large for its rule")
        var near: [Int32] = []
        fences.grid.collect(latitude: 40, longitude: -74, into: &near)
        #expect(near.count <= fences.fences.count / 2, "\(near.count) of \(fences.fences.count)")
    }

    /// The grid alone, at each cell size it may choose: every fence whose box holds a point is
    /// among the point's candidates, and every fence whose box meets a path's box among the
    /// path's (or the lookup says "read every fence"); boxes small and large, near the
    /// antimeridian and the poles.
    @Test(arguments: FenceGrid.cellChoices)
    func everyCellSizeFindsEveryFenceABoxHolds(cell: Double) {
        var rng = SeededGenerator(seed: UInt64(cell * 1e6))
        var boxes: [(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)] = []
        for _ in 0..<400 {
            let lat = rng.chance(0.1) ? rng.uniform(85, 89.9) : rng.uniform(-60, 60)
            let lon = rng.chance(0.2) ? rng.uniform(179.5, 180) : rng.uniform(-10, 10)
            let h = rng.chance(0.1) ? rng.uniform(0.1, 0.5) : rng.uniform(0.0001, 0.03)
            boxes.append((lat - h, lat + h, lon - h, lon + h))
        }
        let grid = FenceGrid(boxes: boxes, cellChoices: [cell])
        #expect(grid.cellDegrees == cell)
        func holds(_ b: (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double), _ lat: Double, _ lon: Double) -> Bool {
            lat >= b.minLatitude && lat <= b.maxLatitude
                && [lon, lon - 360, lon + 360].contains { $0 >= b.minLongitude && $0 <= b.maxLongitude }
        }
        var found = 0
        for k in 0..<3000 {
            let b = boxes[k % boxes.count]
            // Points in and near a box (its edges included), and anywhere.
            let lat = k % 3 == 2 ? rng.uniform(-89, 89) : rng.uniform(b.minLatitude - 0.01, b.maxLatitude + 0.01)
            var lon = k % 3 == 2 ? rng.uniform(-180, 180) : rng.uniform(b.minLongitude - 0.01, b.maxLongitude + 0.01)
            if lon > 180 { lon -= 360 }
            var candidates: [Int32] = []
            grid.collect(latitude: lat, longitude: lon, into: &candidates)
            let got = Set(candidates)
            for (f, box) in boxes.enumerated() where holds(box, lat, lon) {
                found += 1
                #expect(got.contains(Int32(f)), "cell \(cell): fence \(f) holds (\(lat), \(lon))")
            }
            // A path from that point: its box's candidates.
            let lat1 = lat + rng.uniform(-0.02, 0.02), lon1 = lon + rng.uniform(-0.02, 0.02)
            var path: [Int32] = []
            grid.collect(latitude: lat, longitude: lon, into: &path)
            let minLat = min(lat, lat1), maxLat = max(lat, lat1), minLon = min(lon, lon1), maxLon = max(lon, lon1)
            guard grid.collect(minLatitude: minLat, maxLatitude: maxLat, minLongitude: minLon, maxLongitude: maxLon,
                               besides: grid.key(latitude: lat, longitude: lon), into: &path) else { continue }
            let along = Set(path)
            for (f, box) in boxes.enumerated()
            where box.maxLatitude >= minLat && box.minLatitude <= maxLat && box.maxLongitude >= minLon && box.minLongitude <= maxLon {
                #expect(along.contains(Int32(f)), "cell \(cell): fence \(f) meets the path from (\(lat), \(lon))")
            }
        }
        #expect(found > 500, "the points must fall in boxes (\(found))")
    }

    /// The finest cells that fit the entry budget are chosen; past it, coarser ones.
    @Test func theFinestCellsWithinTheBudgetAreChosen() {
        let boxes = (0..<100).map { k -> (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) in
            let lat = 40 + Double(k) * 0.01
            return (lat, lat + 0.02, -74, -73.98)
        }
        #expect(FenceGrid(boxes: boxes).cellDegrees == 0.005)
        // 0.005-degree cells: 5 x 5 per box = 2,500 entries; 0.01: 3 x 3 = 900; 0.02: 2 x 2.
        #expect(FenceGrid(boxes: boxes, entryBudget: 2_000).cellDegrees == 0.01)
        #expect(FenceGrid(boxes: boxes, entryBudget: 500).cellDegrees == 0.02)
        #expect(FenceGrid(boxes: boxes, entryBudget: 0).cellDegrees == 0.02)
    }
}
