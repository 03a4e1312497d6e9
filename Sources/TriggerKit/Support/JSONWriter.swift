/// Appends JSON straight into a byte buffer, with no intermediate objects: the writer of
/// every line TriggerKit prints. Object members of a ``JSONValue`` are written in sorted
/// key order so the same value always gives the same bytes.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] = []

    public init() {}

    /// Appends a JSON string literal, escaping what RFC 8259 requires.
    public mutating func string(_ s: String) {
        bytes.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(0x22)
    }

    /// Appends raw bytes (punctuation, keys known to need no escaping).
    public mutating func raw(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends a number: integers without a fraction, others in Swift's shortest form.
    public mutating func number(_ d: Double) {
        if d == d.rounded(), abs(d) < 9.0e15 {
            bytes.append(contentsOf: Array(String(Int64(d)).utf8))
        } else {
            bytes.append(contentsOf: Array("\(d)".utf8))
        }
    }

    /// Appends an instant in the contract's ISO 8601 form, quoted.
    public mutating func timestamp(millis: Int64) {
        bytes.append(0x22)
        Timestamp.append(millis: millis, to: &bytes)
        bytes.append(0x22)
    }

    /// Appends any JSON value (object keys sorted).
    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let a):
            bytes.append(UInt8(ascii: "["))
            for (k, e) in a.enumerated() {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                value(e)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let o):
            bytes.append(UInt8(ascii: "{"))
            for (k, key) in o.keys.sorted().enumerated() {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                string(key)
                bytes.append(UInt8(ascii: ":"))
                value(o[key] ?? .null)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The bytes as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
