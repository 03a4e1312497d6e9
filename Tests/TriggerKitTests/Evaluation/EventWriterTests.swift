import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The stream writer's cached-bytes path must print exactly what ``DeliveredEvent`` prints.
@Suite("Stream evaluator: cached event bytes")
struct EventWriterTests {
    @Test func cachedBytesMatchTheDeliveredEventForAwkwardNames() throws {
        let id = #"a\"b\\c\u0001\u001f é\n"#
        let req = "{\"identifier\": \"\(id)\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, \"region\": {\"identifier\": \"r\\t\\\"x\\\"\", \"center\": {\"latitude\": 40.0, \"longitude\": -74.0}, \"radius\": 100}}}\n"
            + "{\"identifier\": \"plain\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"timeInterval\", \"timeInterval\": 60, \"repeats\": true}}"
        var h = StreamHarness(requests: req)
        let devices = ["", "d\\\"q\\\\", "ü-1", "x\\u0007"]
        var lines: [String] = []
        for s in 0..<40 {
            let d = devices[s % devices.count]
            let lat = 40.0 + (s % 3 == 0 ? 0.0 : 0.01)
            lines.append("{\"device\": \"\(d)\", \"t\": \"\(at(s * 7))\(s % 5 == 0 ? "" : "")\", \"lat\": \(lat), \"lon\": -74.0}")
        }
        lines.append("{\"t\": 1795770500.123}")
        var events: [FiredEvent] = []
        var count = 0
        for line in lines {
            guard let parsed = try? StreamLineParser.parse(line) else { Issue.record("bad test line \(line)"); continue }
            events.removeAll()
            try h.evaluator.process(parsed, into: &events)
            for e in events {
                var fast = JSONWriter(), slow = JSONWriter()
                h.evaluator.write(e, format: .json, to: &fast)
                h.evaluator.delivered(e).write(to: &slow)
                #expect(fast.text == slow.text)
                count += 1
            }
        }
        #expect(count > 10)
    }

    /// Every piece of a line the writer fills in itself: dates over the whole supported range
    /// (milliseconds or not, the same second again and a new one), each crossing and none,
    /// with a device and without, coalesced counts, every presentation.
    @Test func everyFieldOfTheCursorPathMatchesTheDeliveredEvent() throws {
        let req = "{\"identifier\": \"geo\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, \"region\": {\"identifier\": \"r\", \"center\": {\"latitude\": 40.0, \"longitude\": -74.0}, \"radius\": 100}}}\n"
            + "{\"identifier\": \"tick\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"timeInterval\", \"timeInterval\": 60, \"repeats\": true}}"
        var h = StreamHarness(requests: req)
        var events: [FiredEvent] = []
        for name in ["d0", "a-much-longer-device-name-\\u00e9"] {
            try h.evaluator.process(StreamLineParser.parse("{\"device\": \"\(name)\", \"t\": \"\(at(0))\", \"lat\": 10, \"lon\": 10}"), into: &events)
        }
        #expect(h.evaluator.deviceNames.count == 2)
        let location = Int32(h.evaluator.requests.firstIndex { $0.identifier == "geo" }!)
        let interval = Int32(h.evaluator.requests.firstIndex { $0.identifier == "tick" }!)
        var g = SeededGenerator(s: 77)
        let first = RequestLimits.earliestMillis, last = RequestLimits.latestMillis
        var dates: [Int64] = [first, last, 0, -1, 999, 1_000, 1_795_770_000_000, 1_795_770_000_001]
        for _ in 0..<400 { dates.append(first + Int64(g.below(Int(last - first)))) }
        var written = 0
        for (k, date) in dates.enumerated() {
            for repeated in [date, date - date % 1000] {
                let crossing: Crossing? = [nil, .enter, .exit, .dwellInside, .dwellOutside][k % 5]
                let e = FiredEvent(request: crossing == nil ? interval : location, date: repeated,
                                   kind: crossing == nil ? .timeInterval : .location, crossing: crossing,
                                   device: Int32(k % 3) - 1, presentation: Presentation(rawValue: UInt8(k % 32)),
                                   count: [1, 1, 2, 1_000_003, Int.max][k % 5])
                var fast = JSONWriter(), slow = JSONWriter()
                fast.raw("x")
                h.evaluator.write(e, format: .json, to: &fast)
                slow.raw("x")
                h.evaluator.delivered(e).write(to: &slow)
                var expected = slow.text
                if e.count > 1 {
                    // The delivery's own line has no count: it goes before the eventId, as
                    // the center's delivered list writes it.
                    var number = JSONWriter()
                    number.number(Double(e.count))
                    expected.insert(contentsOf: ",\"coalesced\":" + number.text, at: expected.range(of: ",\"eventId\":")!.lowerBound)
                }
                #expect(fast.text == expected, "event \(e)")
                written += 1
            }
        }
        #expect(written == 2 * dates.count)
    }

    @Test func eventIdDigitsAndSigns() throws {
        // Negative, zero and extreme dates, and the padding of small hashes. Reference, computed
        // here independently: 128-bit FNV over len("x"), "x", tag 0 (no device), code 1
        // (enter), the date's 64 bits, then xorshift-multiply-xorshift.
        let prime: UInt128 = (1 << 88) + 0x13B
        for date: Int64 in [0, -1, 7, -1_000, 1_795_770_000_123, .max, .min] {
            var h: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
            h = (h ^ 1) &* prime
            h = (h ^ UInt128(UInt8(ascii: "x"))) &* prime
            for w: UInt128 in [0, 1, UInt128(UInt64(bitPattern: date))] { h = (h ^ w) &* prime }
            h ^= h >> 64
            h = h &* prime
            h ^= h >> 61
            let hex = String(h, radix: 16)
            #expect(EventID.make(identifier: "x", device: nil, event: "enter", date: date) == String(repeating: "0", count: 32 - hex.count) + hex)
        }
    }

    @Test func eventIdsOfDifferentFiresDifferWhateverTheIdentifierHolds() {
        // With a bare separator, ("a\u{1F}b", device nil) and ("a", device "b") hashed the same
        // bytes (issue 8): every field is length-prefixed now.
        let date: Int64 = 1_795_770_000_000
        let pairs: [((String, String?), (String, String?))] = [
            (("a\u{1F}b", nil), ("a", "b")),
            (("a\u{1F}", "b"), ("a", "\u{1F}b")),
            (("a", ""), ("a", nil)),
            (("ab", "c"), ("a", "bc")),
        ]
        for ((i1, d1), (i2, d2)) in pairs {
            #expect(EventID.make(identifier: i1, device: d1, event: "enter", date: date)
                    != EventID.make(identifier: i2, device: d2, event: "enter", date: date))
        }
    }
}
