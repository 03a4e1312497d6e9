import Foundation

/// A JSON syntax error: where it is (byte offset in the parsed text) and what is wrong.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset of the offending character from the start of the parsed text.
    public var offset: Int
    /// What is wrong, for a person.
    public var reason: String

    public var description: String { "JSON syntax error at byte \(offset + 1): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259). Whitespace may surround the value; anything else
    /// after it is an error.
    ///
    /// - Complexity: O(n) in the length of the text; nesting deeper than 512 is an error
    ///   rather than a stack overflow.
    @_spi(Engine) public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var p = JSONParser(bytes: bytes)
        p.skipWhitespace()
        let v = try p.parseValue(depth: 0)
        p.skipWhitespace()
        if p.i < bytes.count { throw p.error("unexpected text after the JSON value") }
        return v
    }

    /// Parses a whole JSON file's bytes: a leading UTF-8 byte order mark is skipped (the rule
    /// of every input: requests files, settings, categories, streams, server configuration).
    /// Error offsets count from after the mark.
    public static func parse(document data: Data) throws(JSONSyntaxError) -> JSONValue {
        let r: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
            var bytes = raw.bindMemory(to: UInt8.self)
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { bytes = UnsafeBufferPointer(rebasing: bytes[3...]) }
            do throws(JSONSyntaxError) { return .success(try parse(bytes)) } catch { return .failure(error) }
        }
        return try r.get()
    }

    /// Parses one JSON text from a string.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var copy = text
        let r: Result<JSONValue, JSONSyntaxError> = copy.withUTF8 { buf in
            do throws(JSONSyntaxError) { return .success(try parse(buf)) } catch { return .failure(error) }
        }
        return try r.get()
    }
}

/// Recursive-descent parser over UTF-8 bytes. Kept internal: callers see only `JSONValue`.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < 512 else { throw error("nesting deeper than 512 levels") }
        guard i < bytes.count else { throw error("unexpected end of text, expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(printable(bytes[i]))', expected a value")
        }
    }

    private func printable(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\u{\(String(b, radix: 16))}"
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw error("unexpected end of text in a literal") }
        let w = word.utf8Start
        for k in 0..<n where bytes[i + k] != w[k] {
            throw error("invalid literal, expected '\(word)'")
        }
        i += n
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        i += 1
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object([:]) }
        // Room for the usual handful of members at once (growing one by one rehashes 3 times).
        var members = [String: JSONValue](minimumCapacity: 6)
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let keyStart = i
            let key = try parseString()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after member name \"\(key)\"") }
            i += 1
            skipWhitespace()
            // A name given twice is refused, not read as its last value: two readers of one
            // text (a proxy, this server) must not see different requests in it.
            if members.updateValue(try parseValue(depth: depth + 1), forKey: key) != nil {
                throw JSONSyntaxError(offset: keyStart, reason: "member name \"\(key)\" appears twice in an object")
            }
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of text in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of text in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']' in an array")
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        i += 1  // opening quote
        let start = i
        // Fast path: no escapes. ASCII is valid UTF-8 as it is; other bytes are validated.
        var ascii = true
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<i])
                guard let s = ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: start, reason: "a string is not valid UTF-8")
                }
                i += 1
                return s
            }
            if b >= 0x80 { ascii = false }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("control character in a string") }
            i += 1
        }
        guard i < bytes.count else { throw error("unterminated string") }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                // Escapes add only valid scalars; the raw bytes between them are validated
                // here (decoding would replace invalid ones with U+FFFD in silence).
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: start, reason: "a string is not valid UTF-8")
                }
                i += 1
                return s
            }
            if b < 0x20 { throw error("control character in a string") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw error("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                i -= 1
                throw error("invalid escape '\\\(printable(e))'")
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw error("invalid number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, isDigit(bytes[i]) { throw error("leading zero in a number") }
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("expected a digit after '.'") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("expected a digit in an exponent") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        // Small integers are by far the most common: build them without a string.
        if isInteger, i - start <= 15 {
            var v: Int64 = 0
            var k = start
            let negative = bytes[k] == UInt8(ascii: "-")
            if negative { k += 1 }
            while k < i { v = v * 10 + Int64(bytes[k] - 0x30); k += 1 }
            return Double(negative ? -v : v)
        }
        // Decimals (coordinates, radii) take the stream parser's exact fast path (Clinger's:
        // the same double strtod gives, without making a string).
        if !isInteger, let (v, end) = StreamLineParser.number(bytes, start), end == i { return v }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw JSONSyntaxError(offset: start, reason: "number out of range") }
        return d
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
}
