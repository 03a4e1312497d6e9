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
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func mix(_ b: UInt8) { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        for b in identifier.utf8 { mix(b) }
        mix(0x1F)
        if let device { for b in device.utf8 { mix(b) } }
        mix(0x1F)
        for b in event.utf8 { mix(b) }
        mix(0x1F)
        for b in String(date).utf8 { mix(b) }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
