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

    /// Builds from (key, slot) pairs sorted by key, then slot.
    ///
    /// Cells are first grouped by the top bits of their home bucket (one counting pass), then
    /// inserted group by group: each group's probes stay within a stretch of the table that
    /// fits in cache, where inserting in key order landed on a random bucket per cell (a cache
    /// miss each: 2M cells took 0.36 s that way).
    ///
    /// - Complexity: O(n) for n pairs.
    init(sortedCells cells: [(key: UInt64, slot: Int32)]) {
        var distinct = 0
        var previous: UInt64? = nil
        for c in cells where c.key != previous { distinct += 1; previous = c.key }
        var bits = 4
        // At most three quarters full (half full doubled a million-region table to 134 MB,
        // most of its build time being the first touch of those pages).
        while (1 << bits) * 3 < distinct * 4 { bits += 1 }
        let shift = UInt64(64 - bits)
        self.shift = shift
        // Groups of 2^groupShift buckets (16 bytes each: 256 KB per group).
        let groupShift = max(0, bits - 8)
        var counts = [Int](repeating: 0, count: ((1 << bits) >> groupShift) + 1)
        previous = nil
        for c in cells where c.key != previous {
            previous = c.key
            counts[Int(Self.home(c.key | 1 << 63, shift)) >> groupShift + 1] += 1
        }
        for g in 1..<counts.count { counts[g] += counts[g - 1] }
        // Every element is written below, once per distinct key.
        var grouped = [Bucket](filledWith: Bucket(key: 0, start: 0, count: 0), count: distinct)
        var i = 0
        while i < cells.count {
            var j = i
            while j < cells.count && cells[j].key == cells[i].key { j += 1 }
            let stored = cells[i].key | 1 << 63
            let g = Int(Self.home(stored, shift)) >> groupShift
            grouped[counts[g]] = Bucket(key: stored, start: UInt32(i), count: UInt32(j - i))
            counts[g] += 1
            i = j
        }
        var buckets = [Bucket](filledWith: Bucket(key: 0, start: 0, count: 0), count: 1 << bits)
        let mask = buckets.count - 1
        buckets.withUnsafeMutableBufferPointer { table in
            for cell in grouped {
                var b = Int(Self.home(cell.key, shift))
                while table[b].key != 0 { b = (b + 1) & mask }
                table[b] = cell
            }
        }
        self.buckets = buckets
        slots = cells.map(\.slot)
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
