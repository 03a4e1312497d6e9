import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Stream line parser")
struct StreamLineParserTests {
    @Test(arguments: [
        #"{"device": "d-0001", "t": "2026-11-21T09:00:00Z", "lat": 40.7484, "lon": -73.9857, "acc": 8.5}"#,
        #"{"acc":8.5,"lon":-73.9857,"lat":40.7484,"t":"2026-11-21T09:00:00Z","device":"d-0001"}"#,
        #"  { "t" : "2026-11-21T10:00:00+01:00" , "device":"d-0001","lat":40.7484,"lon":-73.9857,"acc":8.5 }  "#,
        #"{"device": "d-0001", "t": 1795251600, "lat": 4.07484e1, "lon": -73.9857, "acc": 8.5}"#,
        #"{"device": "d-\u0030001", "t": "2026-11-21T09:00:00Z", "lat": 40.7484, "lon": -73.9857, "acc": 8.5, "speed": 3}"#,
        #"{"device": "d-0001", "t": "2026-11-21T09:00:00.000Z", "lat": 40.748400000000000001, "lon": -73.9857, "acc": 8.50}"#,
    ])
    func equivalentSpellingsGiveTheSameFix(line: String) throws {
        let expected = StreamLine.fix(Fix(device: "d-0001", t: 1_795_251_600_000, latitude: 40.7484, longitude: -73.9857, accuracy: 8.5))
        #expect(try StreamLineParser.parse(line) == expected)
    }

    @Test func fastPathAgreesWithTheFullParserOnRandomNumbers() throws {
        var g = SeededGenerator(seed: 7)
        for _ in 0..<5000 {
            let lat = Double.random(in: -90...90, using: &g), lon = Double.random(in: -180...180, using: &g)
            let digits = Int.random(in: 0...9, using: &g)
            let latText = String(format: "%.\(digits)f", lat), lonText = String(format: "%.\(digits)f", lon)
            let line = "{\"t\": 1000, \"lat\": \(latText), \"lon\": \(lonText)}"
            let fast = try StreamLineParser.parse(line)
            let slow = try line.utf8.withContiguousStorageIfAvailable { try StreamLineParser.slowPath($0) }
            #expect(fast == slow, "\(line)")
            #expect(fast == .fix(Fix(t: 1_000_000, latitude: Double(latText) ?? .nan, longitude: Double(lonText) ?? .nan)))
        }
    }

    /// A number of seconds was rounded to the millisecond where the same instant written as
    /// ISO 8601 is truncated: `1795248000.9999` read as 08:00:01.000, the string as
    /// 08:00:00.999, so a later fix of the same instant was stale (a helper's find). Both
    /// truncate; a decimal of whole milliseconds stays that number (its Double times 1000 may
    /// fall just below it). Through the fast path, the full parser, and `Date`s.
    @Test(arguments: [
        ("1795248000.9999", "2026-11-21T08:00:00.9999Z", Int64(1_795_248_000_999)),
        ("1795248000.001", "2026-11-21T08:00:00.001Z", 1_795_248_000_001),
        ("1795248000.0015", "2026-11-21T08:00:00.0015Z", 1_795_248_000_001),
        ("1795248000.123", "2026-11-21T08:00:00.123Z", 1_795_248_000_123),
        ("1795248000.57", "2026-11-21T08:00:00.57Z", 1_795_248_000_570),
        ("-0.0001", "1969-12-31T23:59:59.9999Z", -1),
        ("-1.001", "1969-12-31T23:59:58.999Z", -1001),
    ])
    func numbersAndDatesOfOneInstantAgree(number: String, iso: String, millis: Int64) throws {
        #expect(try StreamLineParser.parse(#"{"t": \#(number)}"#) == .clock(millis))
        #expect(try StreamLineParser.parse(#"{"t": "\#(iso)"}"#) == .clock(millis))
        let slow = try #"{"t": \#(number), "x": 1}"#.utf8.withContiguousStorageIfAvailable { try StreamLineParser.slowPath($0) }
        #expect(slow == .clock(millis))
        #expect(Timestamp.millis(Date(timeIntervalSince1970: try #require(Double(number)))) == millis)
        #expect(Timestamp.millis(Timestamp.date(millis: millis)) == millis)
    }

    /// Whole milliseconds read back as themselves through a `Date` and through a number of
    /// seconds: a day around now, around 1970 and 2001 (where a `Date`'s seconds since 2001
    /// are small: 2001-09-12T09:03:53.520Z read back as .519, found by a reviewer), the far
    /// past and future, and 200,000 instants at random over the supported years.
    @Test func wholeMillisecondsReadBackAsThemselves() {
        func check(_ ms: Int64) {
            #expect(Timestamp.millis(Timestamp.date(millis: ms)) == ms, "\(Timestamp.string(millis: ms))")
            #expect(Int64(Timestamp.wholeMillis(seconds: Double(ms) / 1000)) == ms, "\(Timestamp.string(millis: ms))")
        }
        for base in [Int64(1_795_248_000_000), -43_200_000, 978_264_000_000, 1_000_285_433_000, -62_135_596_800_000, 253_402_200_000_000] {
            for k in stride(from: Int64(0), to: 86_400_000, by: 997) { check(base + k) }
        }
        var g = SeededGenerator(seed: 2001)
        for _ in 0..<200_000 { check(Int64.random(in: RequestLimits.supportedMillis, using: &g)) }
        // Dense around 2001, where a quarter of the instants failed.
        for _ in 0..<200_000 { check(Int64.random(in: 883_612_800_000...1_104_537_600_000, using: &g)) }
    }

    @Test func clockLines() throws {
        #expect(try StreamLineParser.parse(#"{"t": "2026-11-21T09:00:00Z"}"#) == .clock(1_795_251_600_000))
        #expect(try StreamLineParser.parse(#"{"t": "2026-11-21T09:00:00Z", "device": "d"}"#) == .clock(1_795_251_600_000))
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("not json", "not valid JSON"),
        (#"{"t": "2026-11-21T09:00:00Z", "lat": 1, "lon": 2"#, "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (#"{"lat": 1, "lon": 2}"#, "missing \"t\""),
        (#"{"t": "yesterday", "lat": 1, "lon": 2}"#, "\"t\" must be"),
        (#"{"t": "2026-02-30T00:00:00Z", "lat": 1, "lon": 2}"#, "\"t\" must be"),
        (#"{"t": true, "lat": 1, "lon": 2}"#, "\"t\" must be"),
        (#"{"t": 1, "lat": 91, "lon": 2}"#, "\"lat\" must be in [-90, 90], not 91"),
        (#"{"t": 1, "lat": 1, "lon": -180.5}"#, "\"lon\" must be in [-180, 180], not -180.5"),
        (#"{"t": 1, "lat": 1}"#, "\"lat\" without \"lon\""),
        (#"{"t": 1, "lon": 1}"#, "\"lon\" without \"lat\""),
        (#"{"t": 1, "lat": "1", "lon": 2}"#, "\"lat\" must be a number"),
        (#"{"t": 1, "lat": 1, "lon": 2, "acc": "good"}"#, "\"acc\" must be a number"),
        (#"{"t": 1, "lat": 1, "lon": 2, "device": 5}"#, "\"device\" must be a string"),
        (#"{"t": 1, "lat": 1e999, "lon": 2}"#, "not valid JSON"),
    ])
    func malformedLinesSayWhy(line: String, reason: String) {
        do {
            _ = try StreamLineParser.parse(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    /// The 8-bytes-at-a-time search for a string's end gives the byte loop's answer: every
    /// kind of stopping byte (quote, backslash, control bytes, bytes of 0x80 and more) at
    /// every position of strings of 0-40 bytes, at every alignment, and none at all.
    @Test func stringEndIsTheByteLoopsAnswer() {
        func reference(_ b: [UInt8], _ start: Int, _ asciiOnly: Bool) -> Int {
            var i = start
            while i < b.count, b[i] != 0x22, b[i] != 0x5C, !asciiOnly || (b[i] >= 0x20 && b[i] < 0x80) { i += 1 }
            return i
        }
        let stoppers: [UInt8] = [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x80, 0xC3, 0xFF]
        // Plain bytes next to the stoppers' values: no false alarm from a neighbour.
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x41, 0x30]
        var checked = 0
        for offset in 0..<8 {
            for length in 0...40 {
                for at in -1..<length {
                    for stop in (at < 0 ? [0] : stoppers) {
                        var b = [UInt8](repeating: 0x7B, count: offset)
                        b += (0..<length).map { plain[($0 * 7 + offset) % plain.count] }
                        if at >= 0 { b[offset + at] = stop }
                        for ascii in [true, false] {
                            let got = b.withUnsafeBufferPointer { StreamLineParser.stringEnd($0, from: offset, asciiOnly: ascii) }
                            #expect(got == reference(b, offset, ascii), "offset \(offset) length \(length) at \(at) stop \(stop) ascii \(ascii)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 20_000)
    }
}
