/// Which way a location crossing went.
public enum Crossing: String, Sendable, Hashable, Codable {
    case enter, exit
}

/// One fire: a request's trigger fired at `date` (for location triggers: for a device,
/// entering or leaving). Refers to the evaluator's tables by index so producing it
/// allocates nothing; ``StreamEvaluator`` resolves names.
@_spi(Engine) public struct FiredEvent: Sendable, Hashable {
    /// Index of the request in ``StreamEvaluator/requests``.
    public var request: Int32
    /// Epoch milliseconds.
    public var date: Int64
    public var kind: TriggerKind
    /// Enter or exit, for location fires.
    public var crossing: Crossing?
    /// Index in ``StreamEvaluator/deviceNames``; -1 when the fire concerns no device.
    public var device: Int32
    /// How it is presented (the content intersected with the device's settings).
    public var presentation: Presentation = []
    /// How many fires it stands for: > 1 when catch-up coalesced several (see
    /// ``CatchUpPolicy``); written as `"coalesced": N` then.
    public var count: Int = 1
}

/// The contract's `eventId`: derived only from the fire itself (identifier, device, event,
/// date), so a repeated fire (after a restart) has the same id.
///
/// Unambiguous input: the identifier and the device are each preceded by their UTF-8 length
/// (and a device-less fire by a marker no length can take), so no choice of characters in an
/// identifier (0x1F, quotes, anything) can make two different fires hash the same bytes.
/// The hash is 128-bit FNV-1a, printed as 32 hex digits: two different fires share an id only
/// by a hash collision, with probability about n^2 / 2^129 for n fires (1e-20 for 1e9 fires).
/// FNV-1a is not cryptographic; it only has to be stable and well spread.
@_spi(Engine) public enum EventID {
    public static func make(identifier: String, device: String?, event: String, date: Int64) -> String {
        var h = seed(identifier: identifier)
        mixDevice(&h, device)
        mixTail(&h, event: event, date: date)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buf in
            writeHex(h, to: buf.baseAddress.unsafelyUnwrapped)
            return String(decoding: buf, as: UTF8.self)
        }
    }

    static let offsetBasis: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
    static let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B

    /// The hash state after the identifier (length-prefixed): the same for every fire of a
    /// request, so the stream writer caches it.
    static func seed(identifier: String) -> UInt128 {
        var h = offsetBasis
        mixLength(&h, identifier.utf8.count)
        mix(&h, identifier)
        return h
    }

    /// Mixes the device part: its length and bytes, or a marker for "no device".
    @inline(__always) static func mixDevice(_ h: inout UInt128, _ device: String?) {
        if let device {
            mixLength(&h, device.utf8.count)
            mix(&h, device)
        } else {
            mix(&h, 0xFF)  // no length encoding starts with 0xFF (see mixLength)
        }
    }

    /// Mixes the event name and the date (the last fields: their ends are fixed by the
    /// end of the input, and event names never contain a digit).
    @inline(__always) static func mixTail(_ h: inout UInt128, event: String, date: Int64) {
        mix(&h, event)
        mix(&h, 0x1F)
        mixDecimal(&h, date)
    }

    /// A length as 4 little-endian bytes (identifiers are bounded far below 2^31, so the
    /// last byte is never 0xFF).
    @inline(__always) static func mixLength(_ h: inout UInt128, _ n: Int) {
        let v = UInt32(truncatingIfNeeded: Swift.min(n, Int(Int32.max)))
        mix(&h, UInt8(truncatingIfNeeded: v))
        mix(&h, UInt8(truncatingIfNeeded: v >> 8))
        mix(&h, UInt8(truncatingIfNeeded: v >> 16))
        mix(&h, UInt8(truncatingIfNeeded: v >> 24))
    }

    @inline(__always) static func mix(_ h: inout UInt128, _ b: UInt8) { h = (h ^ UInt128(b)) &* prime }

    @inline(__always) static func mix(_ h: inout UInt128, _ s: String) {
        for b in s.utf8 { mix(&h, b) }
    }

    /// Mixes the decimal digits of `v` (as `String(v)` spells them) without building a String.
    @inline(__always) static func mixDecimal(_ h: inout UInt128, _ v: Int64) {
        if v < 0 { mix(&h, UInt8(ascii: "-")) }
        var m = v.magnitude
        // Digits come out least significant first: collect them, then mix in reading order.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buf in
            var n = 0
            repeat {
                buf[n] = UInt8(truncatingIfNeeded: m % 10) &+ 0x30
                m /= 10
                n += 1
            } while m != 0
            while n > 0 { n -= 1; mix(&h, buf[n]) }
        }
    }

    /// Writes the 32 lowercase hex digits of `h` (zero-padded) at `p`.
    @inline(__always) static func writeHex(_ h: UInt128, to p: UnsafeMutablePointer<UInt8>) {
        for i in 0..<32 {
            let nibble = Int(truncatingIfNeeded: (h >> UInt128(124 - 4 * i)) & 15)
            p[i] = nibble < 10 ? UInt8(truncatingIfNeeded: 0x30 + nibble) : UInt8(truncatingIfNeeded: 0x57 + nibble)
        }
    }
}
