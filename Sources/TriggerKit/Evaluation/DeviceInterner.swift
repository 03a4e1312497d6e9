import Foundation

/// Device ids by their UTF-8 bytes: an open-addressing table (linear probing, at most half
/// full) from a cheap hash of the bytes to the device index, so the stream reader finds the
/// device of a fix straight from the bytes of the line.
///
/// What it avoids: creating a `String` per fix and hashing it (`String` hashing normalises
/// Unicode) in ``StreamEvaluator``'s `[String: Int32]` dictionary. A `String` is made only for
/// a device not in the table; the dictionary stays the authority on names (two byte spellings
/// of one canonically equivalent name are one device there), and this table is a cache in
/// front of it: a miss is always answered by the dictionary.
struct DeviceInterner {
    /// Device index + 1 per slot; 0 = empty. The count is a power of two.
    private(set) var slots: [Int32] = Array(repeating: 0, count: 16)
    /// Per device index: its hash, and where its bytes are in ``bytes``.
    private var hashes: [UInt64] = []
    private var ends: [Int] = [0]
    /// Every device's UTF-8 bytes, concatenated in index order.
    private var bytes: [UInt8] = []

    /// Number of devices in the table.
    var count: Int { hashes.count }

    /// A hash of `n` bytes at `p`: whole 8-byte (or overlapping 4-byte) loads, one multiply per
    /// word, instead of a loop over bytes. Never reads outside the `n` bytes.
    @inline(__always)
    static func hash(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = UInt64(truncatingIfNeeded: n) &* k
        @inline(__always) func mix(_ w: UInt64) {
            h = (h ^ w) &* k
            h ^= h >> 29
        }
        if n >= 8 {
            var i = 0
            while i + 8 <= n {
                mix(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
            // The last (overlapping) word covers the remaining bytes.
            if i < n { mix(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))) }
        } else if n >= 4 {
            let lo = UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
            let hi = UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)))
            mix(lo | hi << 32)
        } else {
            var w: UInt64 = 0
            for i in 0..<n { w |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << (8 * UInt64(i)) }
            mix(w)
        }
        // MurmurHash3's 64-bit finaliser: the slot is taken from the low bits, which the
        // multiplies above leave nearly equal for names differing in their last bytes
        // ("d-0000"...: 67 probes a lookup on average without it, 1.4 with it).
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }

    static func hash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        // No bytes hash to what `hash(_:_:)` gives for n == 0 (0), with or without a base address.
        guard let p = b.baseAddress, b.count > 0 else { return 0 }
        return hash(UnsafeRawPointer(p), b.count)
    }

    /// The device index of these bytes, or `nil` when they are not in the table.
    @inline(__always)
    func find(_ b: UnsafeBufferPointer<UInt8>) -> Int32? {
        find(b, hash: Self.hash(b))
    }

    /// ``find(_:)`` with the bytes' ``hash(_:)`` already computed.
    @inline(__always)
    func find(_ b: UnsafeBufferPointer<UInt8>, hash h: UInt64) -> Int32? {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while true {
            let v = slots[s]
            if v == 0 { return nil }
            let d = Int(v - 1)
            if hashes[d] == h, equals(d, b) { return v - 1 }
            s = (s + 1) & mask
        }
    }

    @inline(__always)
    private func equals(_ d: Int, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = ends[d], len = ends[d + 1] - start
        guard len == b.count else { return false }
        if len == 0 { return true }
        return bytes.withUnsafeBufferPointer { mine in
            guard let m = mine.baseAddress, let o = b.baseAddress else { return false }
            return memcmp(m + start, o, len) == 0
        }
    }

    /// Adds the device with the next index (``count``) under the UTF-8 bytes of `name`.
    mutating func append(_ name: String) {
        var copy = name
        let h = copy.withUTF8 { Self.hash($0) }
        bytes.append(contentsOf: name.utf8)
        ends.append(bytes.count)
        hashes.append(h)
        if 2 * hashes.count > slots.count {
            grow()
        } else {
            place(Int32(hashes.count - 1), hash: h)
        }
    }

    private mutating func place(_ d: Int32, hash h: UInt64) {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = d + 1
    }

    /// Doubles the table and re-places every device from its stored hash.
    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for d in hashes.indices { place(Int32(d), hash: hashes[d]) }
    }
}
