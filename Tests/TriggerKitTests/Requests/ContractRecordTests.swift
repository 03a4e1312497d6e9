import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A request journaled by `serve` as its contract record (`contractRecord`, read back by
/// `init(contractRecord:)`) must come back as the request `Codable` gave before (what older
/// journals hold and a restart replayed): the same request, so a restart adds the same thing.
@Suite struct ContractRecordTests {
    static func throughCodable(_ r: NotificationRequest) throws -> NotificationRequest {
        try JSONDecoder().decode(NotificationRequest.self, from: JSONEncoder().encode(r))
    }

    static func throughRecord(_ r: NotificationRequest) throws -> NotificationRequest {
        try r.contractRecord.withUnsafeBufferPointer { (b) throws(RequestError) in try NotificationRequest(contractRecord: b) }
    }

    @Test func randomRequestsComeBackAsThroughCodable() throws {
        var g = SeededGenerator(seed: 91)
        var compared = 0, kinds = Set<String>()
        for _ in 0..<40_000 {
            guard let (r, _) = RecordDecoderTests.general(RecordDecoderTests.record(&g)),
                  (try? RequestValidation.checkValue(r)) != nil else { continue }
            compared += 1
            kinds.insert(r.trigger.kind.rawValue)
            #expect(try Self.throughRecord(r) == Self.throughCodable(r), "\(String(decoding: r.contractRecord, as: UTF8.self))")
        }
        #expect(compared > 1_000)
        #expect(kinds.count == 4)
    }

    @Test func shapesTheRecordDecoderDeclinesComeBackToo() throws {
        // Sub-millisecond times (a live clock's `addedAt`), a calendar in a zone, userInfo,
        // fence rules, a multipolygon: the general path's shapes.
        let added = Date(timeIntervalSince1970: 1_795_770_000.123_456)
        let square = [(0.0, 0.0), (1, 0), (1, 1), (0, 1), (0, 0)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let requests: [NotificationRequest] = [
            NotificationRequest(identifier: "every", content: NotificationContent(title: "t", badge: 3),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60.25, repeats: true)), device: "d\u{301}",
                                addedAt: added, expiresAt: added.addingTimeInterval(3_600.000_4)),
            NotificationRequest(identifier: "cal", content: NotificationContent(title: "c", userInfo: ["k": .array([.number(0.1), .null, .bool(true)])]),
                                trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "Asia/Tokyo"),
                                                                                                hour: 9, weekday: 2), repeats: true)),
                                addedAt: added),
            NotificationRequest(identifier: "ruled", content: NotificationContent(title: "r"),
                                trigger: .location(LocationTrigger(region: .circular(CircularRegion(
                                    identifier: "r", center: Coordinate(latitude: 40.7, longitude: -74), radius: 120)), repeats: true,
                                    rules: FenceRules(dwell: FenceDwell(duration: 120), accuracy: FenceAccuracy(maximum: 30), crossings: true)))),
            NotificationRequest(identifier: "multi", content: NotificationContent(title: "m"),
                                trigger: .location(LocationTrigger(region: .polygon(PolygonRegion(
                                    identifier: "m", polygons: [[square], [square.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude + 2) }]],
                                    isMultiPolygon: true)), repeats: true))),
        ]
        for r in requests {
            #expect(try Self.throughRecord(r) == Self.throughCodable(r), "\(r.identifier)")
        }
    }

    @Test func bytesThatAreNoRequestAreRefusedWithATypedError() {
        for text in ["", "{", "[]", #"{"identifier":"x"}"#, #"{"identifier":"x","content":{"title":"t"},"trigger":{"type":"warp"}}"#] {
            let bytes = Array(text.utf8)
            #expect(throws: RequestError.self) {
                try bytes.withUnsafeBufferPointer { (b) throws(RequestError) in _ = try NotificationRequest(contractRecord: b) }
            }
        }
    }
}
