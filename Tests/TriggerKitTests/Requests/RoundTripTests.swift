import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Round trips")
struct RoundTripTests {
    @Test func demoRequestsRoundTripThroughJSONValue() throws {
        let set = RequestsFile.parse(try Fixture.text("demo/requests.ndjson"), file: "demo")
        #expect(set.errorCount == 0)
        #expect(set.requests.count == 12)
        for r in set.requests {
            var warnings: [String] = []
            let again = try NotificationRequest(json: r.json, warnings: &warnings)
            #expect(again == r)
            #expect(warnings.isEmpty)
        }
    }

    @Test func codableRoundTrip() throws {
        let set = RequestsFile.parse(try Fixture.text("demo/requests.ndjson"), file: "demo")
        let data = try JSONEncoder().encode(set.requests)
        let decoded = try JSONDecoder().decode([NotificationRequest].self, from: data)
        #expect(decoded == set.requests)
    }

    @Test func codableRefusesInvalid() throws {
        let bad = Data(#"{"identifier": "x", "content": {}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NotificationRequest.self, from: bad) }
    }

    @Test func encodingIsTheContractJSON() throws {
        let r = NotificationRequest(
            identifier: "staff", content: NotificationContent(title: "Meeting"),
            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 120, repeats: true)), device: "d1",
            addedAt: Timestamp.date(millis: 1_795_770_000_000))
        var w = JSONWriter()
        w.value(r.json)
        #expect(w.text == #"{"addedAt":"2026-11-27T09:00:00Z","content":{"title":"Meeting"},"device":"d1","identifier":"staff","trigger":{"repeats":true,"timeInterval":120,"type":"timeInterval"}}"#)
    }
}
