/// Where each request identifier of a requests file was last registered: the loader's way of
/// finding a later request that replaces an earlier one.
///
/// `[ExactKey: Int]` did this on the loading thread, which registers every record in file
/// order while the other cores decode: hashing there, and up to three cache misses per
/// request in the dictionary's separate key, value and occupancy arrays, were a quarter of
/// that thread's time on a million requests. Here the hash is computed where the record is
/// decoded (``hash(_:)``, on any thread), and a bucket holds the hash and the slot side by
/// side, so registering is one probe of one array, and identifiers are compared only when
/// their 64-bit hashes are equal.
///
/// The hash is Swift's `Hasher` (SipHash, seeded per process): a file of identifiers chosen
/// to collide cannot make loading quadratic.
///
/// Memory: 16 bytes per bucket, at most half of them full (32 MB for a million identifiers).
struct IdentifierSlots {
    private struct Bucket {
        var hash: UInt64
        /// The slot plus one; 0: empty.
        var slot: Int
    }

    private var buckets: [Bucket]
    private var count = 0

    init(capacity: Int = 0) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        buckets = Self.empty(size)
    }

    /// The hash an identifier is found by (the same for equal ``ExactKey``s: the UTF-8 bytes).
    static func hash(_ identifier: String) -> UInt64 {
        var s = identifier
        var h = Hasher()
        s.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        return UInt64(bitPattern: Int64(h.finalize()))
    }

    /// Records that the identifier with `hash` is now at `slot`, and returns the slot it was at
    /// before, if any. `isAt(k)`: whether the identifier registered at slot `k` is this one
    /// (asked only of slots whose identifier has the same hash).
    ///
    /// - Complexity: O(1) expected.
    mutating func claim(hash: UInt64, slot: Int, isAt: (Int) -> Bool) -> Int? {
        if 2 * (count + 1) > buckets.count { grow() }
        let mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: hash) & mask
        return buckets.withUnsafeMutableBufferPointer { buckets in
            while buckets[b].slot != 0 {
                if buckets[b].hash == hash, isAt(buckets[b].slot - 1) {
                    let old = buckets[b].slot - 1
                    buckets[b].slot = slot + 1
                    return old
                }
                b = (b + 1) & mask
            }
            buckets[b] = Bucket(hash: hash, slot: slot + 1)
            count += 1
            return nil
        }
    }

    /// Reads the bucket where a probe for `hash` begins, so that a ``claim(hash:slot:isAt:)``
    /// soon after finds it in the cache.
    mutating func touch(_ hash: UInt64) {
        let b = Int(truncatingIfNeeded: hash) & (buckets.count - 1)
        warmth &+= buckets.withUnsafeBufferPointer { $0[b].hash }
    }

    /// What ``touch(_:)`` read, kept so that the reads are not optimized away.
    private var warmth: UInt64 = 0

    private mutating func grow() {
        let old = buckets
        buckets = Self.empty(2 * old.count)
        let mask = buckets.count - 1
        for bucket in old where bucket.slot != 0 {
            var b = Int(truncatingIfNeeded: bucket.hash) & mask
            while buckets[b].slot != 0 { b = (b + 1) & mask }
            buckets[b] = bucket
        }
    }

    private static func empty(_ size: Int) -> [Bucket] {
        [Bucket](filledWith: Bucket(hash: 0, slot: 0), count: size)
    }
}
