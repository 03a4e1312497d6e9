import Foundation

// The grid's (cell key, slot) pairs put in key order at the end of the index build. A
// million regions make 3-4 million pairs; sorting them in one place was the largest part of
// the build's serial tail (0.15 s of 0.5 s there, one core idle). Each part of the build
// now sorts its own pairs on its own thread, and the sorted runs are merged, also in pieces
// on every core. The result is the one stable sort of all pairs in slot order gives.

@_spi(Engine) extension RegionIndex {
    /// A grid cell's key and one slot stored in it.
    typealias CellPair = (key: UInt64, slot: Int32)

    /// Sorts by key, stably (least significant 11-bit digit first; a digit that is the same
    /// for every pair is skipped): O(n) passes over the pairs where the comparison sort took
    /// O(n log n) with a comparator call each.
    static func radixSortByKey(_ cells: inout [CellPair]) {
        guard cells.count > 1 else { return }
        var other = cells
        let bits = 11, radix = 1 << bits, mask = UInt64(radix - 1)
        let all = cells.reduce(UInt64(0)) { $0 | $1.key }, none = cells.reduce(UInt64.max) { $0 & $1.key }
        var counts = [Int](repeating: 0, count: radix)
        var shift: UInt64 = 0
        while shift < 64 && (all >> shift) != 0 {
            defer { shift += UInt64(bits) }
            // Every key has the same digit here: nothing to move.
            if (all >> shift) & mask == (none >> shift) & mask { continue }
            for i in counts.indices { counts[i] = 0 }
            for c in cells { counts[Int((c.key >> shift) & mask)] += 1 }
            var sum = 0
            for i in counts.indices { (counts[i], sum) = (sum, sum + counts[i]) }
            for c in cells {
                let d = Int((c.key >> shift) & mask)
                other[counts[d]] = c
                counts[d] += 1
            }
            swap(&cells, &other)
        }
    }

    /// Runs each sorted by key, joined into one sorted by key, stably: pairs with equal keys
    /// keep the runs' order, then their order within a run. Runs are merged two at a time
    /// (each merge cut into `pieces` parts by key, merged on as many threads).
    ///
    /// - Complexity: O(n log r) for n pairs in r runs.
    static func mergeSortedRuns(_ runs: consuming [[CellPair]], pieces: Int) -> [CellPair] {
        // Each run is let go once merged: at most the runs of one round and their merges are held.
        while runs.count > 1 {
            var next: [[CellPair]] = []
            next.reserveCapacity((runs.count + 1) / 2)
            var k = 0
            while k + 1 < runs.count {
                next.append(merge(runs[k], runs[k + 1], pieces: pieces))
                runs[k] = []
                runs[k + 1] = []
                k += 2
            }
            if k < runs.count { next.append(runs[k]) }
            runs = next
        }
        return runs.first ?? []
    }

    /// `a` and `b` (each sorted by key) merged, a pair of `a` first where keys are equal.
    ///
    /// Cut into `pieces` parts at keys taken from `a` at even intervals: each part holds the
    /// pairs of both runs from its key up to the next part's key, so the parts are merged
    /// apart (on every core) and laid end to end.
    static func merge(_ a: [CellPair], _ b: [CellPair], pieces: Int) -> [CellPair] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        let parts = max(1, min(pieces, a.count / 4_096))
        // Where part j begins in a and in b: the first pair whose key is at least part j's key.
        let keys = (1..<parts).map { a[a.count * $0 / parts].key }
        let cutsA = [0] + keys.map { lowerBound(a, $0) } + [a.count]
        let cutsB = [0] + keys.map { lowerBound(b, $0) } + [b.count]
        return [CellPair](unsafeUninitializedCapacity: a.count + b.count) { out, initialized in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    nonisolated(unsafe) let (a, b, out) = (a, b, out)
                    let work: @Sendable (Int) -> Void = { j in
                        var i = cutsA[j], k = cutsB[j], o = cutsA[j] + cutsB[j]
                        let endA = cutsA[j + 1], endB = cutsB[j + 1]
                        while i < endA && k < endB {
                            if b[k].key < a[i].key {
                                (out.baseAddress! + o).initialize(to: b[k])
                                k += 1
                            } else {
                                (out.baseAddress! + o).initialize(to: a[i])
                                i += 1
                            }
                            o += 1
                        }
                        while i < endA { (out.baseAddress! + o).initialize(to: a[i]); i += 1; o += 1 }
                        while k < endB { (out.baseAddress! + o).initialize(to: b[k]); k += 1; o += 1 }
                    }
                    ParallelChunks.perform(parts, work)
                }
            }
            initialized = a.count + b.count
        }
    }

    /// The first index of `run` (sorted by key) whose key is at least `key`.
    private static func lowerBound(_ run: [CellPair], _ key: UInt64) -> Int {
        var lo = 0, hi = run.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if run[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
