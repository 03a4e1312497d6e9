import Foundation

/// Requests in identifier order (``ExactKey`` order: their UTF-8 bytes compared as unsigned
/// bytes, a proper prefix first), and each request's position in it: the tie-breaker of
/// events at one instant, which the evaluator and its schedule share.
///
/// Sorting the identifiers as `String`s retained and released both strings at every
/// comparison (about 20 million for a million requests), and made `run` on a million
/// requests with UUID identifiers spend 5 s ordering them. Here each identifier is copied once
/// into one byte arena, and the sort compares plain values: its first 8 bytes as a big-endian
/// integer (enough for most identifiers), then the rest of the bytes with `memcmp`.
///
/// Memory: the arena (the identifiers' bytes), 32 bytes per request while sorting, and the
/// two results (4 bytes per request each).
struct IdentifierOrder: Sendable {
    /// Request indices in identifier order; equal identifiers keep their index order.
    let order: [Int32]
    /// Each request's position in ``order`` (`ranks[order[k]] == k`).
    let ranks: [Int32]

    /// - Complexity: O(n log n) comparisons of integers, plus `memcmp` of the bytes after the
    ///   eighth where two identifiers share their first 8 bytes; O(total identifier bytes) to
    ///   copy them.
    init(_ requests: [NotificationRequest]) {
        self.init(identifiers: requests.count) { requests[$0].identifier }
    }

    /// The order of `count` identifiers, the i-th given by `identifier(i)` (called from
    /// several threads for many identifiers).
    ///
    /// A million identifiers are copied and sorted in chunks on every core, and the sorted
    /// chunks merged: one thread took 60 ms for the copy alone, with the other core idle.
    init(identifiers count: Int, _ identifier: @Sendable (Int) -> String) {
        let chunks = ParallelChunks.ranges(count)
        // Each chunk's bytes, then where they start in the arena.
        let sizes = UnsafeMutableBufferPointer<Int>.allocate(capacity: chunks.count)
        defer { sizes.deallocate() }
        nonisolated(unsafe) let sizesOut = sizes
        ParallelChunks.forEach(count) { k, range in
            sizesOut[k] = range.reduce(0) { $0 + identifier($1).utf8.count }
        }
        let starts = sizes.reduce(into: [0]) { $0.append($0.last! + $1) }
        var keys: [Key] = []
        let arena = [UInt8](unsafeUninitializedCapacity: starts.last!) { bytes, initialized in
            keys = [Key](unsafeUninitializedCapacity: count) { keys, keysInitialized in
                // Each chunk writes its own identifiers' bytes and keys, then sorts its keys.
                nonisolated(unsafe) let (bytes, keys) = (bytes, keys)
                ParallelChunks.forEach(count) { k, range in
                    var at = starts[k]
                    for i in range {
                        var s = identifier(i)
                        let start = at
                        s.withUTF8 { utf8 in
                            if let from = utf8.baseAddress { (bytes.baseAddress! + at).initialize(from: from, count: utf8.count) }
                            at += utf8.count
                        }
                        var prefix: UInt64 = 0
                        for j in 0..<8 {
                            prefix <<= 8
                            if start + j < at { prefix |= UInt64(bytes[start + j]) }
                        }
                        (keys.baseAddress! + i).initialize(to: Key(prefix: prefix, start: start, count: at - start, index: Int32(i)))
                    }
                    var own = UnsafeMutableBufferPointer(rebasing: keys[range])
                    let arena = UnsafeBufferPointer(start: bytes.baseAddress, count: starts.last!)
                    own.sort { Self.precedes($0, $1, arena) }
                }
                keysInitialized = count
            }
            initialized = starts.last!
        }
        // The sorted chunks merged two at a time (pairs side by side).
        arena.withUnsafeBufferPointer { bytes in
            var runs = chunks
            var scratch = [Key](filledWith: Key(prefix: 0, start: 0, count: 0, index: 0), count: count)
            while runs.count > 1 {
                let pairs = runs.count / 2
                keys.withUnsafeMutableBufferPointer { from in
                    scratch.withUnsafeMutableBufferPointer { to in
                        nonisolated(unsafe) let (from, to, bytes) = (from, to, bytes)
                        let merges = (0..<pairs).map { (runs[2 * $0], runs[2 * $0 + 1]) }
                        DispatchQueue.concurrentPerform(iterations: pairs) { p in
                            Self.merge(from, merges[p].0, merges[p].1, into: to, bytes)
                        }
                        // An odd run out is copied across as it is.
                        if runs.count % 2 == 1, let last = runs.last {
                            for i in last { to[i] = from[i] }
                        }
                    }
                }
                swap(&keys, &scratch)
                var next = (0..<pairs).map { runs[2 * $0].lowerBound..<runs[2 * $0 + 1].upperBound }
                if runs.count % 2 == 1 { next.append(runs.last!) }
                runs = next
            }
        }
        var order = [Int32](repeating: 0, count: count)
        var ranks = [Int32](repeating: 0, count: count)
        for (k, key) in keys.enumerated() {
            order[k] = key.index
            ranks[Int(key.index)] = Int32(k)
        }
        self.order = order
        self.ranks = ranks
    }

    /// Whether `a`'s identifier comes before `b`'s (equal ones by index).
    @inline(__always)
    private static func precedes(_ a: Key, _ b: Key, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let c = compareTails(a, b, bytes)
        return c != 0 ? c < 0 : a.index < b.index
    }

    /// Merges the adjacent sorted runs `a` and `b` of `from` into the same places of `to`.
    private static func merge(_ from: UnsafeMutableBufferPointer<Key>, _ a: Range<Int>, _ b: Range<Int>,
                              into to: UnsafeMutableBufferPointer<Key>, _ bytes: UnsafeBufferPointer<UInt8>) {
        var i = a.lowerBound, j = b.lowerBound, o = a.lowerBound
        while i < a.upperBound && j < b.upperBound {
            if precedes(from[j], from[i], bytes) {
                to[o] = from[j]; j += 1
            } else {
                to[o] = from[i]; i += 1
            }
            o += 1
        }
        while i < a.upperBound { to[o] = from[i]; i += 1; o += 1 }
        while j < b.upperBound { to[o] = from[j]; j += 1; o += 1 }
    }

    /// One identifier while sorting: its first 8 bytes (zeros past its end), where its bytes
    /// start in the arena and how many there are, and its request's index.
    private struct Key {
        let prefix: UInt64
        let start: Int
        let count: Int
        let index: Int32
    }

    /// The order of two identifiers with equal prefixes: their bytes after the eighth, then
    /// their lengths (a proper prefix first). Negative, zero or positive.
    ///
    /// Equal prefixes mean equal first 8 bytes where both have them; where one ends sooner,
    /// its padding zeros matched the other's bytes, which are then zeros too, so the shorter
    /// is a proper prefix of the longer and comes first, as the length comparison says.
    @inline(__always)
    private static func compareTails(_ a: Key, _ b: Key, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let n = Swift.min(a.count, b.count) - 8
        if n > 0, let base = bytes.baseAddress {
            let c = memcmp(base + a.start + 8, base + b.start + 8, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }
}
