import Foundation
import Testing
@testable import TriggerKit

/// The stream writer's cached-bytes path must print exactly what ``DeliveredEvent`` prints.
@Suite("Stream evaluator: cached event bytes")
struct EventWriterTests {
    @Test func cachedBytesMatchTheDeliveredEventForAwkwardNames() {
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
            h.evaluator.process(parsed, into: &events)
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

    @Test func eventIdDigitsAndSigns() {
        // Negative and zero dates, and the padding of small hashes, as String(date) spells them.
        for date: Int64 in [0, -1, 7, -1_000, 1_795_770_000_123, .max, .min] {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in "x\u{1F}\u{1F}enter\u{1F}\(date)".utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            let hex = String(h, radix: 16)
            #expect(EventID.make(identifier: "x", device: nil, event: "enter", date: date) == String(repeating: "0", count: 16 - hex.count) + hex)
        }
    }
}
