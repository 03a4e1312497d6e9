/// The grid's hash table: cell key -> run of slots in one flat array.
///
/// Open addressing with linear probing over a power-of-two table kept at most half full;
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
    /// - Complexity: O(n) for n pairs.
    init(sortedCells cells: [(key: UInt64, slot: Int32)]) {
        var distinct = 0
        var previous: UInt64? = nil
        for c in cells where c.key != previous { distinct += 1; previous = c.key }
        var bits = 4
        while (1 << bits) < distinct * 2 { bits += 1 }
        shift = UInt64(64 - bits)
        buckets = Array(repeating: Bucket(key: 0, start: 0, count: 0), count: 1 << bits)
        slots = cells.map(\.slot)
        var i = 0
        while i < cells.count {
            var j = i
            while j < cells.count && cells[j].key == cells[i].key { j += 1 }
            let stored = cells[i].key | 1 << 63
            var b = Int(truncatingIfNeeded: (stored &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while buckets[b].key != 0 { b = (b + 1) & (buckets.count - 1) }
            buckets[b] = Bucket(key: stored, start: UInt32(i), count: UInt32(j - i))
            i = j
        }
    }

    /// The slots stored in cell `key` (empty if none).
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func lookup(_ key: UInt64) -> Range<Int> {
        let stored = key | 1 << 63
        let mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: (stored &* 0x9E37_79B9_7F4A_7C15) >> shift)
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
