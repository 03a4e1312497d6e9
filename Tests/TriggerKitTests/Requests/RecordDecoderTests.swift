import Foundation
import Testing
@testable import TriggerKit

/// `RequestRecordDecoder` reads the common request shapes without a JSON tree and declines
/// the rest. Whenever it decodes a record, the general path must decode the same request
/// with no warning; and it must decode the plain shapes (or it saves nothing).
@Suite struct RecordDecoderTests {
    /// The general path: a tree, then `NotificationRequest(decoding:)`.
    static func general(_ text: String) -> (NotificationRequest, [String])? {
        guard let json = try? JSONValue.parse(text) else { return nil }
        var warnings: [String] = []
        guard let r = try? NotificationRequest(decoding: json, warnings: &warnings) else { return nil }
        return (r, warnings)
    }

    static func direct(_ text: String) -> NotificationRequest? {
        var t = text
        return t.withUTF8 { RequestRecordDecoder.decode($0) }
    }

    /// A random member value from `choices`, as JSON text.
    static func pick(_ g: inout SeededGenerator, _ choices: [String]) -> String { choices[g.int(choices.count)] }

    static func number(_ g: inout SeededGenerator) -> String {
        pick(&g, [String(g.uniform(-90, 90)), String(format: "%.7f", g.uniform(-180, 180)), "\(g.int(1000))", "-0.0", "1E2",
                  "0.1e-2", "12345678901234567890.5", "1e400", "\"40\"", "null", "-", "01", "1.", String(format: "%.3f", g.uniform(0, 3000))])
    }

    static func object(_ g: inout SeededGenerator, _ members: [(String, String)]) -> String {
        var m = members
        // Shuffled, sometimes a member twice, sometimes an unknown one.
        for i in stride(from: m.count - 1, to: 0, by: -1) { m.swapAt(i, g.int(i + 1)) }
        if g.chance(0.03), let first = m.first { m.append(first) }
        if g.chance(0.03) { m.append(("tilte", "\"x\"")) }
        let sep = pick(&g, [", ", ",", " ,\t"])
        return "{" + m.map { "\"\($0.0)\":\(g.chance(0.5) ? " " : "")\($0.1)" }.joined(separator: sep) + "}"
    }

    static func region(_ g: inout SeededGenerator) -> String {
        var m: [(String, String)] = []
        if g.chance(0.3) { m.append(("identifier", pick(&g, ["\"zone\"", "\"\"", "\"caf\\u00e9\"", "7"]))) }
        if g.chance(0.3) { m.append(("notifyOnEntry", pick(&g, ["true", "false", "false", "\"yes\"", "null"]))) }
        if g.chance(0.3) { m.append(("notifyOnExit", pick(&g, ["true", "false", "1"]))) }
        let shape = g.int(10)
        if shape < 5 || shape == 9 {
            var c: [(String, String)] = [("latitude", number(&g)), ("longitude", number(&g))]
            if g.chance(0.05) { c.removeLast() }
            if g.chance(0.05) { c.append(("altitude", "3")) }
            m.append(("center", object(&g, c)))
            if g.chance(0.95) { m.append(("radius", number(&g))) }
        }
        if shape >= 5 {
            func position(_ g: inout SeededGenerator) -> String {
                g.chance(0.03) ? "[1, 2, 3]" : g.chance(0.02) ? "[1]" : "[\(number(&g)), \(number(&g))]"
            }
            let ring = "[" + (0..<(3 + g.int(6))).map { _ in position(&g) }.joined(separator: ", ") + "]"
            let coordinates = pick(&g, ["[\(ring)]", "[\(ring), \(ring)]", "[]", "[[\(ring)]]", "\(ring)"])
            m.append(("geometry", object(&g, [("type", pick(&g, ["\"Polygon\"", "\"Polygon\"", "\"MultiPolygon\"", "\"Point\""])),
                                              ("coordinates", coordinates)])))
        }
        return object(&g, m)
    }

    static func record(_ g: inout SeededGenerator) -> String {
        var m: [(String, String)] = []
        if g.chance(0.97) { m.append(("identifier", pick(&g, ["\"r1\"", "\"geo-0000001\"", "\"\"", "\"a\\\"b\"", "\"caf\u{e9}\"", "\"a\\u0041\"", "5"]))) }
        if g.chance(0.97) {
            var c: [(String, String)] = []
            for key in ["title", "subtitle", "body", "sound", "categoryIdentifier", "threadIdentifier"] where g.chance(0.3) {
                c.append((key, pick(&g, ["\"Arrived\"", "\"\"", "\"line\\nbreak\"", "null", "3"])))
            }
            if g.chance(0.2) { c.append(("badge", pick(&g, ["1", "0", "-3", "1.5", "1e20", "9000000000000000", "\"2\""]))) }
            if g.chance(0.05) { c.append(("userInfo", "{\"k\": 1}")) }
            m.append(("content", g.chance(0.03) ? pick(&g, ["\"x\"", "null", "[]"]) : object(&g, c)))
        }
        if g.chance(0.2) { m.append(("device", pick(&g, ["\"phone-1\"", "\"\"", "7", "null"]))) }
        for key in ["addedAt", "expiresAt"] where g.chance(0.2) {
            m.append((key, pick(&g, ["\"2026-11-21T09:00:00Z\"", "\"2026-11-21T09:00:00.250+01:00\"", "\"bad\"", "1795770000", "1e14", "null", "true"])))
        }
        if g.chance(0.9) {
            var t: [(String, String)] = []
            switch g.int(10) {
            case 0: t = [("type", "\"timeInterval\""), ("timeInterval", number(&g))]
            case 1: t = [("type", "\"calendar\""), ("dateMatching", "{\"hour\": 9}")]
            case 2: t = [("type", pick(&g, ["\"bogus\"", "5"])), ("region", region(&g))]
            default: t = [("type", "\"location\""), ("region", region(&g))]
            }
            if g.chance(0.5) { t.append(("repeats", pick(&g, ["true", "false", "\"no\"", "null"]))) }
            if g.chance(0.04) { t.append((pick(&g, ["dwell", "accuracy", "crossings", "timeInterval", "region"]), pick(&g, ["{\"inside\": 60}", "true", "false", "30"]))) }
            m.append(("trigger", g.chance(0.02) ? "null" : object(&g, t)))
        }
        var text = object(&g, m)
        if g.chance(0.03) { text = pick(&g, [" " + text + " ", text + " x", String(text.dropLast()), "[" + text + "]"]) }
        return text
    }

    @Test func whateverItDecodesTheGeneralPathDecodesAlike() {
        var g = SeededGenerator(seed: 31)
        var direct = 0, declinedValid = 0, general = 0
        for _ in 0..<100_000 {
            let text = Self.record(&g)
            let slow = Self.general(text)
            if slow != nil { general += 1 }
            guard let fast = Self.direct(text) else {
                if slow != nil { declinedValid += 1 }
                continue
            }
            direct += 1
            guard let (request, warnings) = slow else {
                Issue.record("decoded what the general path refuses: \(text)")
                continue
            }
            #expect(warnings.isEmpty, "decoded a record with warnings: \(text)")
            #expect(fast == request, "\(text)")
        }
        // Both outcomes are well exercised.
        #expect(direct > 2_500)
        #expect(declinedValid > 5_000)
        #expect(general > direct)
    }

    @Test func thePlainShapesAreDecodedDirectly() {
        let records = [
            #"{"identifier": "geo-1", "content": {"title": "Arrived"}, "trigger": {"type": "location", "region": {"identifier": "geo-1", "center": {"latitude": -20.6301684, "longitude": -125.6942974}, "radius": 82.6}, "repeats": true}}"#,
            #"{"identifier":"p","content":{"body":"b","badge":2},"device":"d","addedAt":"2026-11-21T09:00:00Z","trigger":{"type":"location","region":{"geometry":{"type":"Polygon","coordinates":[[[-48.35,4.11],[-48.34,4.11],[-48.34,4.12],[-48.35,4.11]]]},"notifyOnExit":false}}}"#,
            #"{"trigger": {"repeats": true, "timeInterval": 3600, "type": "timeInterval"}, "content": {"sound": "default"}, "identifier": "t", "expiresAt": 1795770000}"#,
            #"{"identifier": "now", "content": {"title": "x"}}"#,
        ]
        for text in records {
            let fast = Self.direct(text)
            #expect(fast != nil, "\(text)")
            #expect(fast == Self.general(text)?.0)
        }
    }

    /// Each decline on its own: the general path says what it has to say (an error or a
    /// warning), or decodes a shape the direct path leaves to it.
    @Test func declines() {
        let base = #"{"identifier": "a", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"center": {"latitude": 1, "longitude": 2}, "radius": 10}}}"#
        #expect(Self.direct(base) != nil)
        let variants = [
            base.replacingOccurrences(of: #""title": "t""#, with: #""title": "t", "title": "u""#),  // repeated: refused there
            base.replacingOccurrences(of: #""radius": 10"#, with: #""radius": 10, "notifyOnEntry": false, "notifyOnExit": false"#),  // warned
            base.replacingOccurrences(of: #""radius": 10"#, with: #""radius": null"#),
            base.replacingOccurrences(of: #""title": "t""#, with: #""tilte": "t""#),
            base.replacingOccurrences(of: #""type": "location""#, with: #""type": "location", "dwell": {"inside": 60}"#),
            base.replacingOccurrences(of: #""longitude": 2"#, with: #""longitude": 2, "altitude": 5"#),
            base + " x",
            String(base.dropLast()),
        ]
        for text in variants { #expect(Self.direct(text) == nil, "\(text)") }
        // The repeated member is refused on the general path (it was read as its last value):
        // the reader names it.
        #expect(Self.general(variants[0]) == nil)
        #expect(throws: JSONSyntaxError(offset: 46, reason: #"member name "title" appears twice in an object"#)) {
            try JSONValue.parse(variants[0])
        }
        // Escapes in values read alike on both paths (the same string scanner).
        let escaped = base.replacingOccurrences(of: #""identifier": "a""#, with: #""identifier": "\u0061", "device": "d\n""#)
        #expect(Self.direct(escaped)?.identifier == "a")
        #expect(Self.direct(escaped)?.device == "d\n")
        #expect(Self.direct(escaped) == Self.general(escaped)?.0)
        // A name with an escape is matched only by the general path (names are matched as
        // their bytes): the direct decoder declines, and the general path reads the record.
        let escapedName = escaped.replacingOccurrences(of: #""device""#, with: #""dev\u0069ce""#)
        #expect(Self.direct(escapedName) == nil)
        #expect(Self.general(escapedName)?.0 == Self.direct(escaped))
    }

    /// A file read with and without the direct decoder: the same set, diagnostics included.
    @Test func aFileDecodesTheSameEitherWay() {
        var g = SeededGenerator(seed: 32)
        let text = (0..<20_000).map { _ in Self.record(&g) }.joined(separator: "\n")
        let options = ValidationOptions(now: Date(timeIntervalSince1970: 1_795_770_000))
        var t = text
        t.withUTF8 { bytes in
            let tree = RequestsFile.parse(bytes, file: "f", options: options, parallel: false, direct: false)
            let direct = RequestsFile.parse(bytes, file: "f", options: options, parallel: true, direct: true)
            ParallelDecodingTests.expectSame(direct, tree)
            // Most identifiers repeat (replacements); plenty are accepted, plenty refused.
            #expect(tree.recordCount - tree.errorCount > 500)
            #expect(tree.errorCount > 1_000)
        }
    }
}
