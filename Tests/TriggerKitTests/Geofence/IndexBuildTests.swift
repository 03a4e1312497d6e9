import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A large index is prepared in parts on every core, each part with its own GEOS context, and
/// joined in slot order: it must be the index one pass on the calling thread builds.
@Suite struct IndexBuildTests {
    /// Circles and polygons (some across the antimeridian), bad centres and radii, and
    /// self-intersecting polygons, around a few dense spots and anywhere.
    static func regions(_ n: Int, seed: UInt64) -> [Region] {
        var g = SeededGenerator(seed: seed)
        return (0..<n).map { i -> Region in
            let lat = g.chance(0.5) ? 40 + g.uniform(0, 0.5) : g.uniform(-85, 85)
            let lon = g.chance(0.5) ? -74 + g.uniform(0, 0.5) : g.uniform(-180, 180)
            switch g.int(20) {
            case 0: return circle(.nan, lon, 100, id: "bad\(i)")
            case 1: return circle(lat, lon, -5, id: "bad\(i)")
            case 2:
                // A bow tie: invalid for GEOS.
                return polygon([[[(lon, lat), (lon + 0.01, lat + 0.01), (lon + 0.01, lat), (lon, lat + 0.01), (lon, lat)]]], id: "tie\(i)")
            case 3:
                return polygon([[[(179.99, lat), (-179.99, lat), (-179.99, lat + 0.01), (179.99, lat + 0.01), (179.99, lat)]]], id: "am\(i)")
            case 4, 5, 6:
                let d = g.uniform(0.001, 0.02)
                return polygon([[square(lon, lat, lon + d, lat + d)]], id: "sq\(i)")
            default:
                return circle(lat, lon, g.uniform(10, 3_000), id: "c\(i)")
            }
        }
    }

    @Test func thePartsJoinIntoTheSingleThreadedIndex() {
        let regions = Self.regions(3 * RegionIndex.parallelBuildThreshold, seed: 5)
        let parallel = RegionIndex(count: regions.count, maximumMargin: 25, parallel: true) { regions[$0] }
        let serial = RegionIndex(count: regions.count, maximumMargin: 25, parallel: false) { regions[$0] }
        #expect(parallel.invalid == serial.invalid)
        #expect(parallel.invalid.count > 1_000)
        #expect(parallel.grid.slots == serial.grid.slots)
        #expect(parallel.grid.buckets.map(\.key) == serial.grid.buckets.map(\.key))
        #expect(parallel.grid.buckets.map(\.start) == serial.grid.buckets.map(\.start))
        // Each polygon entry points at its own polygon: same boxes in both.
        for slot in 0..<regions.count where serial.entries[slot].kind == .polygon {
            let a = parallel.polygons[Int(parallel.entries[slot].polygon)], b = serial.polygons[Int(serial.entries[slot].polygon)]
            #expect(a.minX == b.minX && a.maxX == b.maxX && a.minY == b.minY && a.maxY == b.maxY, "slot \(slot)")
        }
        var g = SeededGenerator(seed: 6)
        var found = 0
        for _ in 0..<20_000 {
            let lat = g.chance(0.8) ? 40 + g.uniform(0, 0.5) : g.uniform(-85, 85)
            let lon = g.chance(0.8) ? -74 + g.uniform(0, 0.5) : g.uniform(-180, 180)
            let hits = parallel.hits(lat, lon, margin: 25)
            #expect(hits == serial.hits(lat, lon, margin: 25), "(\(lat), \(lon))")
            found += hits.isEmpty ? 0 : 1
        }
        #expect(found > 1_000)
    }

    /// The build's pairs are sorted per part, then the parts merged (in pieces, on every
    /// core): the same as one stable sort of all pairs in part order. Keys repeat within a
    /// run, across runs and across the pieces' cut points; some runs are empty or tiny.
    @Test func mergedRunsAreTheStableSortOfAllPairs() {
        var g = SeededGenerator(seed: 11)
        for trial in 0..<12 {
            let runCount = 1 + g.int(9)
            let keySpace = trial % 3 == 0 ? 5 : (trial % 3 == 1 ? 2_000 : 1 << 40)
            var runs: [[RegionIndex.CellPair]] = []
            var all: [RegionIndex.CellPair] = []
            var slot: Int32 = 0
            for _ in 0..<runCount {
                let n = g.chance(0.2) ? g.int(3) : g.int(40_000)
                var run: [RegionIndex.CellPair] = []
                for _ in 0..<n {
                    run.append((UInt64(g.below(keySpace)) | UInt64(g.int(23)) << 52, slot))
                    slot += 1
                }
                all += run
                RegionIndex.radixSortByKey(&run)
                runs.append(run)
            }
            let expected = all.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
            for pieces in [1, 2, 5] {
                let merged = RegionIndex.mergeSortedRuns(runs, pieces: pieces)
                #expect(merged.count == expected.count, "trial \(trial), \(pieces) pieces")
                let firstDifference = zip(merged, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                #expect(firstDifference == nil, "trial \(trial), \(pieces) pieces")
            }
        }
    }

    /// Every cell of the grid is found again (the table is filled group by group, up to
    /// three quarters full), whether it is built on one thread or in pieces: keys crowded
    /// into a few home buckets (probes that run past a piece's end and wrap past the table's),
    /// and cells of thousands of slots (a piece's cut moved to a cell's end).
    @Test(arguments: [1, 2, 5]) func everyCellIsFound(pieces: Int) {
        var g = SeededGenerator(seed: 7)
        // Keys whose home bucket (the table's Fibonacci hash, 2^18 buckets for this many
        // cells) is just below a piece's end: 300 each, so their probes run past it.
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var inverse = multiplier
        for _ in 0..<6 { inverse = inverse &* (2 &- multiplier &* inverse) }
        var crowded: [UInt64] = []
        for end in [51, 102, 128, 153, 204, 256].map({ $0 << 10 }) {
            var made = 0
            while made < 300 {
                // (home = the top 18 bits of stored * multiplier = end - 1)
                let stored = ((UInt64(end - 1) << 46) | UInt64(g.below(1 << 46))) &* inverse
                if stored >> 63 == 1 {
                    crowded.append(stored & ~(1 << 63))
                    made += 1
                }
            }
        }
        var cells: [(key: UInt64, slot: Int32)] = []
        for slot in 0..<200_000 {
            let key: UInt64
            switch g.int(10) {
            case 0: key = UInt64(g.int(3))  // a few cells of thousands of slots
            case 1: key = crowded[g.int(crowded.count)]
            default: key = UInt64(g.below(1 << 40)) | UInt64(g.int(23)) << 52
            }
            cells.append((key, Int32(slot)))
        }
        RegionIndex.radixSortByKey(&cells)
        let table = CellTable(sortedCells: cells, pieces: pieces)
        #expect(table.buckets.count == 1 << 18)  // (the count the crowded keys were made for)
        #expect(table.buckets.count * 3 >= Set(cells.map(\.key)).count * 4)
        #expect(table.slots == cells.map(\.slot))
        var i = 0, wrong = 0
        while i < cells.count {
            var j = i
            while j < cells.count && cells[j].key == cells[i].key { j += 1 }
            let run = table.lookup(cells[i].key)
            if Array(table.slots[run]) != cells[i..<j].map(\.slot) { wrong += 1 }
            i = j
        }
        #expect(wrong == 0)
        let stored = Set(cells.map(\.key))
        for _ in 0..<10_000 {
            let absent = UInt64(g.below(1 << 40)) | UInt64(g.int(23)) << 52
            if !stored.contains(absent) { #expect(table.lookup(absent).isEmpty) }
        }
    }
}
