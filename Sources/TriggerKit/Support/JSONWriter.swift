/// Appends JSON straight into a byte buffer, with no intermediate objects: the writer of
/// every line TriggerKit prints. Object members of a ``JSONValue`` are written in sorted
/// key order so the same value always gives the same bytes.
@_spi(Engine) public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] = []

    public init() {}

    /// Appends a JSON string literal, escaping what RFC 8259 requires.
    ///
    /// Runs of bytes that need no escaping (almost every identifier) are copied in bulk: a
    /// per-byte `append` pays a capacity and uniqueness check per byte.
    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { string(utf8: $0) }
    }

    /// Appends a JSON string literal from UTF-8 bytes (see ``string(_:)``).
    public mutating func string(utf8 b: UnsafeBufferPointer<UInt8>) {
        bytes.append(0x22)
        body(utf8: b)
        bytes.append(0x22)
    }

    /// Appends what goes between the quotes of a JSON string literal for `s` (the escaped
    /// text without the quotes): one line whatever `s` holds.
    public mutating func stringBody(_ s: String) {
        var s = s
        s.withUTF8 { body(utf8: $0) }
    }

    private mutating func body(utf8 b: UnsafeBufferPointer<UInt8>) {
        var run = 0
        for i in 0..<b.count {
            let c = b[i]
            guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
            if i > run { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<i])) }
            run = i + 1
            switch c {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            default:
                bytes.append(0x5C); bytes.append(UInt8(ascii: "u")); bytes.append(0x30); bytes.append(0x30)
                bytes.append(Self.hexDigits[Int(c >> 4)]); bytes.append(Self.hexDigits[Int(c & 15)])
            }
        }
        if b.count > run { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<b.count])) }
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The bytes of `s` as a JSON string literal (for callers that cache them).
    public static func stringLiteral(_ s: String) -> [UInt8] {
        var w = JSONWriter()
        w.string(s)
        return w.bytes
    }

    /// Appends raw bytes (punctuation, keys known to need no escaping).
    public mutating func raw(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends a number: integers without a fraction, others in Swift's shortest form.
    ///
    /// The text is Swift's own (`String(Int64(d))`, `d.description`), written straight into
    /// the bytes: no String or array per number (they were most of rendering a polygon).
    public mutating func number(_ d: Double) {
        if d == d.rounded(), abs(d) < 9.0e15 {
            integer(Int64(d))
            return
        }
        var sink = ByteSink()
        swap(&sink.bytes, &bytes)
        d.write(to: &sink)
        swap(&sink.bytes, &bytes)
    }

    /// Appends an integer's decimal digits (what `String(v)` writes).
    private mutating func integer(_ v: Int64) {
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = 20
            repeat {
                k -= 1
                digits[k] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
            } while m > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[k...]))
        }
    }

    /// A text stream into bytes: `Double` and `Int64` hand it their ASCII digits directly.
    private struct ByteSink: TextOutputStream {
        var bytes: [UInt8] = []
        mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
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
