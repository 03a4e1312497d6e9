/// What happened at a location fire: which way a crossing went, or a dwell that elapsed
/// (``FenceDwell``).
public enum Crossing: String, Sendable, Hashable, Codable {
    /// The device came inside the region; it left it.
    case enter, exit
    /// The device has stayed inside for the trigger's dwell.
    case dwellInside
    /// The device has stayed outside for the trigger's dwell.
    case dwellOutside
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
/// Unambiguous input: the identifier is hashed with its UTF-8 length in front; the device
/// contributes a tag (none / present) and, when present, the 128-bit hash of its
/// length-prefixed bytes; the event is a small code; the date is its 64-bit value. So no
/// choice of characters in an identifier or device (0x1F, quotes, anything) can make two
/// different fires hash the same input. The hash is 128-bit FNV-1a (bytes of the
/// identifier, then whole words), printed as 32 hex digits: two different fires share an id
/// only by a hash collision, with probability about n^2 / 2^129 for n fires (1e-20 for 1e9).
/// Per event the stream writer mixes three words onto a cached per-request seed and a cached
/// per-device hash (mixing the date's decimal digits byte by byte cost 6% of a `run`).
/// FNV is not cryptographic; it only has to be stable and well spread.
@_spi(Engine) public enum EventID {
    public static func make(identifier: String, device: String?, event: String, date: Int64) -> String {
        var h = seed(identifier: identifier)
        mixDevice(&h, device.map(deviceHash))
        mixTail(&h, event: code(event), date: date)
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
        mixWord(&h, UInt128(identifier.utf8.count))
        for b in identifier.utf8 { h = (h ^ UInt128(b)) &* prime }
        return h
    }

    /// The 128-bit hash of a device id (length-prefixed bytes), cached per device.
    static func deviceHash(_ device: String) -> UInt128 {
        seed(identifier: device)
    }

    /// Mixes the device part: a tag, then the device's hash when there is one.
    @inline(__always) static func mixDevice(_ h: inout UInt128, _ device: UInt128?) {
        if let device {
            mixWord(&h, 1)
            mixWord(&h, device)
        } else {
            mixWord(&h, 0)
        }
    }

    /// Mixes the event code and the date, and spreads the result.
    @inline(__always) static func mixTail(_ h: inout UInt128, event: UInt8, date: Int64) {
        mixWord(&h, UInt128(event))
        mixWord(&h, UInt128(UInt64(bitPattern: date)))
        h ^= h >> 64
        h = h &* prime
        h ^= h >> 61
    }

    /// One word into the hash: a bijection of the word for a given state (xor, then a
    /// multiply by an odd constant mod 2^128), so words that differ give states that differ.
    @inline(__always) static func mixWord(_ h: inout UInt128, _ w: UInt128) { h = (h ^ w) &* prime }

    /// The event's code: enter, exit, or the trigger kind.
    static func code(_ event: String) -> UInt8 {
        switch event {
        case "enter": 1
        case "exit": 2
        case "dwellInside": 8
        case "dwellOutside": 9
        case TriggerKind.calendar.rawValue: 3
        case TriggerKind.timeInterval.rawValue: 4
        case TriggerKind.location.rawValue: 5
        case TriggerKind.immediate.rawValue: 6
        default: 7
        }
    }

    /// The code of a fired event (``code(_:)`` without a String).
    @inline(__always) static func code(_ e: FiredEvent) -> UInt8 {
        switch e.crossing {
        case .enter?: 1
        case .exit?: 2
        case .dwellInside?: 8
        case .dwellOutside?: 9
        case nil:
            switch e.kind {
            case .calendar: 3
            case .timeInterval: 4
            case .location: 5
            case .immediate: 6
            }
        }
    }

    /// Writes the 32 lowercase hex digits of `h` (zero-padded) at `p`, a byte's two digits at
    /// a time (``hexPairs``).
    @inline(__always) static func writeHex(_ h: UInt128, to p: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(p)
        hexPairs.withUnsafeBufferPointer { pairs in
            for i in 0..<16 {
                let byte = Int(truncatingIfNeeded: (h >> UInt128(120 - 8 * i)) & 0xFF)
                raw.storeBytes(of: pairs[byte], toByteOffset: 2 * i, as: UInt16.self)
            }
        }
    }

    /// Per byte value its two lowercase hex digits, as stored in memory (first digit first).
    static let hexPairs: [UInt16] = (0..<256).map { b in
        let digits = Array("0123456789abcdef".utf8)
        return UInt16(digits[b >> 4]) | UInt16(digits[b & 15]) << 8
    }
}
