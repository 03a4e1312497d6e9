/// Writes bytes through a pointer into room a ``JSONWriter`` made for them
/// (``JSONWriter/append(atMost:_:)``): no capacity or uniqueness check per piece, which
/// `Array.append` pays for each.
struct ByteCursor {
    private(set) var p: UnsafeMutablePointer<UInt8>

    init(_ p: UnsafeMutablePointer<UInt8>) { self.p = p }

    @inline(__always) mutating func copy(_ b: UnsafeBufferPointer<UInt8>) {
        guard let base = b.baseAddress else { return }
        p.update(from: base, count: b.count)
        p += b.count
    }

    @inline(__always) mutating func copy(_ b: Slice<UnsafeBufferPointer<UInt8>>) {
        copy(UnsafeBufferPointer(rebasing: b))
    }

    @inline(__always) mutating func copy(_ s: StaticString) {
        copy(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @inline(__always) mutating func byte(_ c: UInt8) {
        p.pointee = c
        p += 1
    }

    /// The decimal digits of `v` (no sign: `v` >= 0), at most 19 bytes.
    @inline(__always) mutating func decimal(_ v: Int) {
        var digits = 1, x = v
        while x >= 10 { x /= 10; digits += 1 }
        x = v
        for i in stride(from: digits - 1, through: 0, by: -1) {
            p[i] = UInt8(truncatingIfNeeded: 0x30 + x % 10)
            x /= 10
        }
        p += digits
    }

    /// The 32 lowercase hex digits of `h` (``EventID/writeHex(_:to:)``).
    @inline(__always) mutating func hex(_ h: UInt128) {
        EventID.writeHex(h, to: p)
        p += 32
    }
}

extension JSONWriter {
    /// Appends at most `maximum` bytes, written by `body` through a cursor at the end of
    /// ``bytes``: one capacity check for all of them. `body` must write no more than
    /// `maximum`.
    @inline(__always)
    mutating func append(atMost maximum: Int, _ body: (inout ByteCursor) -> Void) {
        let old = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: maximum))
        let used = bytes.withUnsafeMutableBufferPointer { b -> Int in
            let start = b.baseAddress.unsafelyUnwrapped + old
            var cursor = ByteCursor(start)
            body(&cursor)
            return cursor.p - start
        }
        precondition(used <= maximum, "wrote past the room made")
        bytes.removeLast(maximum - used)
    }
}
