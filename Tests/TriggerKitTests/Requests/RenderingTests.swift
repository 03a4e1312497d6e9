import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A request's contract JSON written member by member (`JSONWriter.request`) must be the very
/// bytes its JSON tree gives (`value(r.json)`): requests fingerprints, state files and
/// snapshots hash and store them, so a single byte of difference would orphan every saved
/// state.
@Suite struct RenderingTests {
    static func tree(_ r: NotificationRequest) -> [UInt8] {
        var w = JSONWriter()
        w.value(r.json)
        return w.bytes
    }

    static func direct(_ r: NotificationRequest) -> [UInt8] {
        var w = JSONWriter()
        w.request(r)
        return w.bytes
    }

    @Test func randomRequestsRenderAsTheirTrees() {
        var g = SeededGenerator(seed: 77)
        var compared = 0, kinds = Set<String>()
        for _ in 0..<100_000 {
            guard let (r, _) = RecordDecoderTests.general(RecordDecoderTests.record(&g)) else { continue }
            compared += 1
            kinds.insert(r.trigger.kind.rawValue)
            #expect(Self.direct(r) == Self.tree(r), "\(String(decoding: Self.tree(r), as: UTF8.self))")
        }
        #expect(compared > 9_000)
        #expect(kinds.count == 4)
    }

    @Test func everyShapeRendersAsItsTree() throws {
        let square = [(0.0, 0.0), (1, 0), (1, 1), (0, 1), (0, 0)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let hole = [(0.2, 0.2), (0.2, 0.4), (0.4, 0.4), (0.2, 0.2)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let rules = FenceRules(dwell: FenceDwell(duration: 120), accuracy: FenceAccuracy(maximum: 30), crossings: true)
        let added = Timestamp.date(millis: 1_795_770_000_250)
        let requests: [NotificationRequest] = [
            NotificationRequest(identifier: "now", content: NotificationContent(title: "caf\u{e9} \"quoted\"\n\u{1}")),
            NotificationRequest(identifier: "every", content: NotificationContent(subtitle: "s", body: "b", sound: "default", badge: 7,
                                                                                  categoryIdentifier: "C", threadIdentifier: "T"),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60.5, repeats: true)), device: "d\u{301}",
                                addedAt: added, expiresAt: added.addingTimeInterval(86_400)),
            NotificationRequest(identifier: "cal", content: NotificationContent(title: "c", userInfo: ["k": .array([.number(1), .null, .bool(true)]),
                                                                                                       "a": .object(["z": .string("\u{7f}")])]),
                                trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "Asia/Tokyo"),
                                                                                                hour: 9, weekday: 2), repeats: true))),
            NotificationRequest(identifier: "circle", content: NotificationContent(sound: "s"),
                                trigger: .location(LocationTrigger(region: .circular(CircularRegion(
                                    identifier: "z", center: Coordinate(latitude: -0.0, longitude: 179.99999999999997), radius: 1e-7,
                                    notifyOnEntry: false)), repeats: false))),
            NotificationRequest(identifier: "poly", content: NotificationContent(title: "p"),
                                trigger: .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "p", polygons: [[square, hole]],
                                                                                                  isMultiPolygon: false)), repeats: true))),
            NotificationRequest(identifier: "multi", content: NotificationContent(title: "m"),
                                trigger: .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "m", polygons: [[square], [square.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude + 2) }]],
                                                                                                  isMultiPolygon: true, notifyOnExit: false)), repeats: true))),
            NotificationRequest(identifier: "ruled", content: NotificationContent(title: "r"),
                                trigger: .location(LocationTrigger(region: .circular(CircularRegion(
                                    identifier: "r", center: Coordinate(latitude: 40.7, longitude: -74), radius: 120)), repeats: true, rules: rules))),
        ]
        for r in requests {
            #expect(Self.direct(r) == Self.tree(r), "\(r.identifier): \(String(decoding: Self.tree(r), as: UTF8.self))")
        }
        // And the bytes read back as the request.
        for r in requests {
            var warnings: [String] = []
            let back = try NotificationRequest(json: JSONValue.parse(String(decoding: Self.direct(r), as: UTF8.self)), warnings: &warnings)
            #expect(back == r, "\(r.identifier)")
        }
    }

    /// Numbers are written without an intermediate String; the text must stay Swift's own.
    @Test func numbersAreSwiftsOwnText() {
        func expected(_ d: Double) -> String { d == d.rounded() && abs(d) < 9.0e15 ? String(Int64(d)) : "\(d)" }
        var g = SeededGenerator(seed: 5)
        var values: [Double] = [0, -0.0, 1, -1, 0.1, 1e-7, 1e21, 8.999_999_999_999_999e15, 9.0e15, -9.0e15, 8_999_999_999_999_998,
                                -8_999_999_999_999_999, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                                -.leastNormalMagnitude, 40.712_775_000_000_001, -73.985_428_3, 2000]
        for _ in 0..<20_000 {
            values.append(Double(bitPattern: g.next()))
            values.append(g.uniform(-180, 180))
            values.append(Double(Int64(bitPattern: g.next()) >> Int64(g.int(64))))
        }
        for d in values {
            var w = JSONWriter()
            w.number(d)
            #expect(w.text == expected(d), "\(d.bitPattern)")
        }
    }
}
