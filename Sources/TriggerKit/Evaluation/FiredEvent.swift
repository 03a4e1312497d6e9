/// Which way a location crossing went.
public enum Crossing: String, Sendable, Hashable {
    case enter, exit
}

/// One fire: a request's trigger fired at `date` (for location triggers: for a device,
/// entering or leaving). Refers to the evaluator's tables by index so producing it
/// allocates nothing; ``StreamEvaluator`` resolves names.
public struct FiredEvent: Sendable, Hashable {
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
}

/// The contract's `eventId`: derived only from the fire itself (identifier, device, event,
/// date), so a repeated fire (after a restart) has the same id.
///
/// 64-bit FNV-1a over the fields separated by 0x1F, printed as 16 hex digits. FNV-1a is not
/// cryptographic; it only has to be stable and well spread.
public enum EventID {
    public static func make(identifier: String, device: String?, event: String, date: Int64) -> String {
        var h = seed(identifier: identifier)
        if let device { mix(&h, device) }
        mix(&h, 0x1F)
        mix(&h, event)
        mix(&h, 0x1F)
        mixDecimal(&h, date)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { buf in
            writeHex(h, to: buf.baseAddress.unsafelyUnwrapped)
            return String(decoding: buf, as: UTF8.self)
        }
    }

    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The hash state after the identifier and its separator: the same for every fire of a
    /// request, so the stream writer caches it.
    static func seed(identifier: String) -> UInt64 {
        var h = offsetBasis
        mix(&h, identifier)
        mix(&h, 0x1F)
        return h
    }

    @inline(__always) static func mix(_ h: inout UInt64, _ b: UInt8) { h = (h ^ UInt64(b)) &* prime }

    @inline(__always) static func mix(_ h: inout UInt64, _ s: String) {
        for b in s.utf8 { mix(&h, b) }
    }

    /// Mixes the decimal digits of `v` (as `String(v)` spells them) without building a String.
    @inline(__always) static func mixDecimal(_ h: inout UInt64, _ v: Int64) {
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

    /// Writes the 16 lowercase hex digits of `h` (zero-padded) at `p`.
    @inline(__always) static func writeHex(_ h: UInt64, to p: UnsafeMutablePointer<UInt8>) {
        for i in 0..<16 {
            let nibble = Int((h >> UInt64(60 - 4 * i)) & 15)
            p[i] = nibble < 10 ? UInt8(truncatingIfNeeded: 0x30 + nibble) : UInt8(truncatingIfNeeded: 0x57 + nibble)
        }
    }
}
