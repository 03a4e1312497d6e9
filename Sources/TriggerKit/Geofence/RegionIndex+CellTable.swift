/// The grid's hash table: cell key -> run of slots in one flat array.
///
/// Open addressing with linear probing over a power-of-two table kept at most 3/4 full;
/// the hash is a Fibonacci multiply (keys are structured integers, so no SipHash is needed
/// and no per-query allocation happens). Slots of one cell are contiguous and ascending.
struct CellTable {
    struct Bucket {
        /// Cell key with bit 63 set; 0 means empty.
        var key: UInt64
        var start: UInt32
        var count: UInt32
    }

    private(set) var buckets: [Bucket]
    private(set) var slots: [Int32]
    private let shift: UInt64

    /// Builds from (key, slot) pairs sorted by key, then slot, in `pieces` runs of whole cells
    /// on every core (1: on the calling thread).
    ///
    /// Cells are first grouped by the top bits of their home bucket (one counting pass), then
    /// inserted group by group: each group's probes stay within a stretch of the table that
    /// fits in cache, where inserting in key order landed on a random bucket per cell (a cache
    /// miss each: 2M cells took 0.36 s that way).
    ///
    /// In pieces, each run counts and places its own cells, and each piece of the table takes
    /// the groups homed in it; a probe that would run past its piece's end is left for the
    /// end, when the leftovers are inserted one by one. A lookup finds the same slots either
    /// way: nothing is ever removed, so every bucket a probe passed when its cell was
    /// inserted is still full when the cell is looked up, whatever the order of insertion.
    /// (On one core, this table was the last ~0.1 s of loading a million regions, with the
    /// other core idle.)
    ///
    /// - Complexity: O(n) for n pairs.
    init(sortedCells cells: [(key: UInt64, slot: Int32)], pieces: Int = 1) {
        // Runs of the pairs that never split a cell.
        let pieces = cells.count < 1 << 16 ? 1 : max(1, pieces)
        var cuts = [0]
        for j in 1..<max(1, pieces) {
            var at = max(cuts[j - 1], cells.count * j / pieces)
            while at > 0 && at < cells.count && cells[at].key == cells[at - 1].key { at += 1 }
            cuts.append(at)
        }
        cuts.append(cells.count)
        let runs = pieces
        let runCuts = cuts
        let distinctPerRun = ParallelChunks.results(runs) { j -> Int in
            var distinct = 0
            var previous: UInt64? = nil
            for i in runCuts[j]..<runCuts[j + 1] where cells[i].key != previous { distinct += 1; previous = cells[i].key }
            return distinct
        }
        let distinct = distinctPerRun.reduce(0, +)
        var bits = 4
        // At most three quarters full (half full doubled a million-region table to 134 MB,
        // most of its build time being the first touch of those pages).
        while (1 << bits) * 3 < distinct * 4 { bits += 1 }
        let shift = UInt64(64 - bits)
        self.shift = shift
        // Groups of 2^groupShift buckets (16 bytes each: 256 KB per group).
        let groupShift = max(0, bits - 8)
        let groups = (1 << bits) >> groupShift
        // Each run's cells per group, then where each run's share of each group starts.
        let countsPerRun = ParallelChunks.results(runs) { j -> [Int] in
            var counts = [Int](repeating: 0, count: groups)
            var previous: UInt64? = nil
            for i in runCuts[j]..<runCuts[j + 1] where cells[i].key != previous {
                previous = cells[i].key
                counts[Int(Self.home(cells[i].key | 1 << 63, shift)) >> groupShift] += 1
            }
            return counts
        }
        var starts = [[Int]](repeating: [Int](repeating: 0, count: groups), count: runs)
        var at = 0
        for g in 0..<groups {
            for j in 0..<runs {
                starts[j][g] = at
                at += countsPerRun[j][g]
            }
        }
        let runStarts = starts
        // Every element is written below, once per distinct key.
        var grouped = [Bucket](filledWith: Bucket(key: 0, start: 0, count: 0), count: distinct)
        grouped.withUnsafeMutableBufferPointer { grouped in
            nonisolated(unsafe) let grouped = grouped
            ParallelChunks.perform(runs) { j in
                var next = runStarts[j]
                var i = runCuts[j]
                while i < runCuts[j + 1] {
                    var k = i
                    while k < runCuts[j + 1] && cells[k].key == cells[i].key { k += 1 }
                    let stored = cells[i].key | 1 << 63
                    let g = Int(Self.home(stored, shift)) >> groupShift
                    grouped[next[g]] = Bucket(key: stored, start: UInt32(i), count: UInt32(k - i))
                    next[g] += 1
                    i = k
                }
            }
        }
        let placed = grouped
        // Group g's cells start where group g's first run's do.
        let groupStarts = (0..<groups).map { runStarts[0][$0] } + [distinct]
        var buckets = [Bucket](filledWith: Bucket(key: 0, start: 0, count: 0), count: 1 << bits)
        let mask = buckets.count - 1
        let tablePieces = min(runs, groups)
        buckets.withUnsafeMutableBufferPointer { table in
            nonisolated(unsafe) let table = table
            let leftovers = ParallelChunks.results(tablePieces) { j -> [Bucket] in
                let (g0, g1) = (groups * j / tablePieces, groups * (j + 1) / tablePieces)
                let end = g1 << groupShift
                var left: [Bucket] = []
                for cell in placed[groupStarts[g0]..<groupStarts[g1]] {
                    var b = Int(Self.home(cell.key, shift))
                    while b < end && table[b].key != 0 { b += 1 }
                    if b < end { table[b] = cell } else { left.append(cell) }
                }
                return left
            }
            for cell in leftovers.joined() {
                var b = Int(Self.home(cell.key, shift))
                while table[b].key != 0 { b = (b + 1) & mask }
                table[b] = cell
            }
        }
        self.buckets = buckets
        slots = [Int32](unsafeUninitializedCapacity: cells.count) { out, initialized in
            nonisolated(unsafe) let out = out
            ParallelChunks.perform(runs) { j in
                for i in runCuts[j]..<runCuts[j + 1] { (out.baseAddress! + i).initialize(to: cells[i].slot) }
            }
            initialized = cells.count
        }
        #if DEBUG
        checkInvariants()
        #endif
    }

    /// The bucket where the probe for a stored key (bit 63 set) starts.
    @inline(__always)
    private static func home(_ stored: UInt64, _ shift: UInt64) -> UInt64 {
        (stored &* 0x9E37_79B9_7F4A_7C15) >> shift
    }

    /// The slots stored in cell `key` (empty if none).
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func lookup(_ key: UInt64) -> Range<Int> {
        let stored = key | 1 << 63
        let mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: Self.home(stored, shift))
        return buckets.withUnsafeBufferPointer { buf in
            while true {
                let k = buf[b].key
                if k == stored { return Int(buf[b].start)..<Int(buf[b].start + buf[b].count) }
                if k == 0 { return 0..<0 }
                b = (b + 1) & mask
            }
        }
    }

    /// Bytes held by the table and its slot array.
    var memoryBytes: Int {
        buckets.capacity * MemoryLayout<Bucket>.stride + slots.capacity * MemoryLayout<Int32>.stride
    }
}
