// The ends of a fix line's strings, found 8 bytes at a time. Device ids are often long (a
// UUID is 36 bytes, an APNs token 64): read a byte at a time with four comparisons each, a
// 64-byte id doubled the scanner's share of a run (6 % -> 13 % of all samples).

extension StreamLineParser {
    /// The index of the first byte at or after `start` that ends a plain string: a quote or a
    /// backslash, and also, when `asciiOnly`, a control byte (below 0x20) or a byte of 0x80 or
    /// more; `b.count` when there is none.
    ///
    /// Words of 8 bytes are tested with SWAR bit tricks (`haszero` and `hasless` from Sean
    /// Anderson's "Bit Twiddling Hacks"), which say exactly whether a word holds such a byte;
    /// the first word that may is then read byte by byte, so the answer is always the plain
    /// loop's (tested against it at every position and alignment).
    ///
    /// - Complexity: O(distance / 8 + 8).
    @inline(__always)
    static func stringEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int, asciiOnly: Bool) -> Int {
        let n = b.count
        var i = start
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= n {
                let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let q = w ^ (ones &* 0x22), s = w ^ (ones &* 0x5C)
                // A byte of q or s is zero exactly where w holds a quote or a backslash.
                var stop = ((q &- ones) & ~q) | ((s &- ones) & ~s)
                if asciiOnly {
                    // Bytes below 0x20 (hasless(w, 0x20)), and bytes with the high bit set.
                    stop |= ((w &- ones &* 0x20) & ~w) | w
                }
                if stop & highs != 0 { break }
                i += 8
            }
        }
        if asciiOnly {
            while i < n, b[i] != 0x22, b[i] != 0x5C, b[i] >= 0x20, b[i] < 0x80 { i += 1 }
        } else {
            while i < n, b[i] != 0x22, b[i] != 0x5C { i += 1 }
        }
        return i
    }
}
