// The stream reader's number parsing: exact fast paths for the digits of a fix.

extension StreamLineParser {
    /// A JSON number at `i`: exact whenever the digits form an integer mantissa of at most
    /// 2^53 with at most 22 fraction digits and no exponent (Clinger's fast path: both parts
    /// are exact doubles, so one division rounds correctly); anything else goes through the
    /// standard library's correctly rounded parser.
    ///
    /// The digit runs avoid per-digit bookkeeping: digits are accumulated (eight at a time, see
    /// ``digits(_:_:_:)``) with wrapping arithmetic and counted afterwards from positions (more than 19 digits could have
    /// wrapped, so those take the slow path), and the scale comes from ``powerOfTen(_:)``, a
    /// switch over constants rather than a lazily initialised global array.
    @inline(__always)
    static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Double, Int)? {
        var i = start
        let n = b.count
        var negative = false
        if i < n, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        let intStart = i
        digits(b, &i, &mantissa)
        let intDigits = i - intStart
        guard intDigits > 0 else { return nil }
        if intDigits > 1, b[intStart] == 0x30 { return nil }
        var fracDigits = 0
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            let fs = i
            digits(b, &i, &mantissa)
            fracDigits = i - fs
            guard fracDigits > 0 else { return nil }
        }
        var slow = intDigits + fracDigits > 19 || fracDigits > 22 || mantissa > 1 << 53
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            slow = true
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let es = i
            while i < n, b[i] &- 0x30 < 10 { i += 1 }
            guard i > es else { return nil }
        }
        if slow {
            let s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            guard let v = Double(s), v.isFinite else { return nil }
            return (v, i)
        }
        var v = Double(mantissa) / powerOfTen(fracDigits)
        if negative { v = -v }
        return (v, i)
    }

    /// Appends the run of decimal digits at `i` to `m` (wrapping; the caller counts digits from
    /// positions) and moves `i` past it.
    ///
    /// Up to eight digits at a time (SWAR): one 8-byte load, a mask of the bytes that are not
    /// digits (its lowest set byte ends the run), and three multiplies that combine the digits
    /// in pairs, fours and eights. This avoids the byte loop's chain of one compare, branch and
    /// multiply-add per digit. Bytes after the run are loaded but never used; the byte loop
    /// handles runs within 8 bytes of the end of the line.
    @inline(__always)
    static func digits(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ m: inout UInt64) {
        let n = b.count
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                let v = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // Zero in a byte that is 0x30...0x39: high nibble 3, and adding 6 keeps it 3.
                // (A carry out of a byte >= 0xFA can only disturb bytes after a non-digit.)
                let notDigit = ((v & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
                    | (((v &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
                let k = notDigit.trailingZeroBitCount >> 3
                if k == 0 { return }
                // Digit values; the first byte in memory is the lowest, so shifting left puts
                // the k digits at the top with zeros (leading zero digits) below them.
                var x = v &- 0x3030_3030_3030_3030
                if k < 8 { x <<= UInt64(8 * (8 - k)) }
                x = ((x & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
                x = ((x & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
                x = ((x & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
                m = m &* integerPowerOfTen(k) &+ x
                i += k
                if k < 8 { return }
            }
        }
        while i < n {
            let d = b[i] &- 0x30
            guard d < 10 else { break }
            m = m &* 10 &+ UInt64(d)
            i += 1
        }
    }

    /// 10^k for 1 <= k <= 8.
    @inline(__always)
    static func integerPowerOfTen(_ k: Int) -> UInt64 {
        switch k {
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }

    /// 10^e for 0 <= e <= 22, all exact doubles.
    @inline(__always)
    static func powerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    // MARK: slow path
}
