import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("JSON reader and writer")
struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let v = try JSONValue.parse(#" {"a": [1, -2.5e2, 0, true, false, null], "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "e": {}} "#)
        #expect(v == .object(["a": .array([.number(1), .number(-250), .number(0), .bool(true), .bool(false), .null]),
                              "s": .string("x\"\\/\u{8}\u{c}\n\r\té😀"), "e": .object([:])]))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "\"\\ud800\"", "tru", "{\"a\":1} x", "\"a\nb\"", "1e"])
    func rejectsMalformed(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }

    /// A member name given twice was read as its last value (found by a helper: `POST
    /// /v1/requests` with `"identifier"` twice added the second); every way in reads JSON
    /// here, so each refuses it, naming the member and where it is.
    @Test func aMemberNameGivenTwiceIsRefused() throws {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(#"{"identifier": "dup", "x": {"a": 1, "a": 2}}"#) }
        #expect(error == JSONSyntaxError(offset: 36, reason: #"member name "a" appears twice in an object"#))
        let line = #"{"device": "d", "t": 1795770000, "lat": 40, "lon": -74, "lat": 41}"#
        let lineError = #expect(throws: StreamLineError.self) { try StreamLineParser.parse(line) }
        #expect(lineError?.reason.contains(#"member name "lat" appears twice"#) == true)
        // Different names, and equal names in different objects, are fine.
        #expect(try JSONValue.parse(#"{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}"#).objectValue?.count == 2)
    }

    /// Decimals take a fast path (Clinger's); every number must still be the double the
    /// standard library's correctly rounded parser gives, sign of zero included.
    @Test func numbersAreTheCorrectlyRoundedDoubles() throws {
        var g = SeededGenerator(seed: 3)
        var texts = ["-0.0", "0.0", "-0.5", "9007199254740993.5", "0.1", "0.30000000000000004", "123456789012345.6",
                     "1234567890123456789.5", "1.7976931348623157e308", "4.9e-324", "0.0000000000000000000001", "2.5E-3"]
        for _ in 0..<50_000 {
            let digits = 1 + g.int(20), point = g.int(digits + 1)
            var t = (0..<digits).map { _ in String(g.int(10)) }.joined()
            while t.count > 1 && t.hasPrefix("0") { t.removeFirst() }
            if point > 0 && point < t.count { t.insert(".", at: t.index(t.startIndex, offsetBy: point)) }
            if t.hasSuffix(".") { t += "0" }
            texts.append((g.chance(0.3) ? "-" : "") + t)
        }
        for t in texts {
            guard case .number(let v) = try JSONValue.parse(t) else { Issue.record("\(t) is not a number"); continue }
            let expected = try #require(Double(t))
            #expect(v.bitPattern == expected.bitPattern || (t == "-0" && v == 0), "\(t): \(v) vs \(expected)")
        }
    }

    @Test func invalidUTF8IsRefusedWithOrWithoutEscapes() {
        // 0xFF is never valid UTF-8; the string with an escape took another path that used to
        // repair it into U+FFFD without a word.
        for bytes: [UInt8] in [[0x22, 0x61, 0xFF, 0x22], [0x22, 0x61, 0x5C, 0x6E, 0xFF, 0x22], [0x22, 0x5C, 0x74, 0xC3, 0x22]] {
            #expect(throws: JSONSyntaxError.self) { try bytes.withUnsafeBufferPointer { try JSONValue.parse($0) } }
        }
        // Valid multi-byte text next to an escape still reads.
        let ok: [UInt8] = [0x22, 0x63, 0x61, 0x66, 0xC3, 0xA9, 0x5C, 0x6E, 0x22]
        #expect((try? ok.withUnsafeBufferPointer { try JSONValue.parse($0) }) == .string("café\n"))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(deep) }
    }

    @Test func writerEscapesAndSortsKeys() {
        var w = JSONWriter()
        w.value(.object(["b": .string("q\"\n\u{1}"), "a": .number(2.5), "c": .number(3)]))
        #expect(w.text == #"{"a":2.5,"b":"q\"\n\u0001","c":3}"#)
    }
}

@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [
        ("2026-11-24T19:00:00Z", Int64(1_795_546_800_000)),
        ("2026-11-24T19:00:00.250Z", 1_795_546_800_250),
        ("2026-11-24T20:00:00+01:00", 1_795_546_800_000),
        ("2026-11-24T14:00:00-0500", 1_795_546_800_000),
        ("2026-11-24T21:00:00+02", 1_795_546_800_000),
        ("2026-11-24t19:00:00.2z", 1_795_546_800_200),
        ("1969-12-31T23:59:59.999Z", -1),
        ("2000-02-29T00:00:00Z", 951_782_400_000),
    ])
    func parses(text: String, millis: Int64) {
        #expect(Timestamp.parseMillis(text) == millis)
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-24T24:00:00Z", "2026-11-24T19:00:00",
                      "2026-11-24", "2026-11-24T19:00:00.Z", "2026-11-24T19:00:00+5", "x026-11-24T19:00:00Z"])
    func refuses(text: String) {
        #expect(Timestamp.parseMillis(text) == nil)
    }

    @Test func formatsOnlyNonZeroFractions() {
        #expect(Timestamp.string(millis: 1_795_546_800_000) == "2026-11-24T19:00:00Z")
        #expect(Timestamp.string(millis: 1_795_546_800_250) == "2026-11-24T19:00:00.250Z")
        #expect(Timestamp.string(millis: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func formatAndParseAgreeWithFoundation() throws {
        var g = SeededGenerator(seed: 42)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        for _ in 0..<2000 {
            let secs = Int64.random(in: -2_000_000_000...7_000_000_000, using: &g)
            let s = Timestamp.string(millis: secs * 1000)
            #expect(s == f.string(from: Date(timeIntervalSince1970: Double(secs))))
            #expect(Timestamp.parseMillis(s) == secs * 1000)
        }
    }
}
