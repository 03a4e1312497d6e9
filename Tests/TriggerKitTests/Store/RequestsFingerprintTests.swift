import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The requests' fingerprint guards every saved state: it must stay the plain FNV-1a over the
/// requests' JSON lines however it is computed (rendered on every core a window at a time,
/// kept and continued after requests are added in place).
@Suite("store: the requests' fingerprint")
struct RequestsFingerprintTests {
    /// FNV-1a over each request's JSON and a newline, one request after the other.
    static func reference(_ requests: [NotificationRequest]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for r in requests {
            var w = JSONWriter()
            w.value(r.json)
            for b in w.bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            h = (h ^ 0x0A) &* 0x0000_0100_0000_01B3
        }
        return h
    }

    static func requests(_ count: Int, from first: Int = 0) -> String {
        (first..<first + count).map { i in
            i % 3 == 0
                ? #"{"identifier": "t\#(i)", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": \#(60 + i), "repeats": true}}"#
                : circleRequest("c\(i)", radius: 50 + Double(i % 700))
        }.joined(separator: "\n")
    }

    @Test func equalsThePlainHashAcrossWindowsAndAfterAdds() throws {
        // More than two render windows, and a last one that is not full.
        let count = 2 * StreamEvaluator.renderWindow + 777
        let evaluator = makeEvaluator(Self.requests(count))
        #expect(evaluator.requests.count == count)
        #expect(evaluator.requestsFingerprint == Self.reference(evaluator.requests))
        // Kept: asked again, the same; requests added in place continue it.
        #expect(evaluator.requestsFingerprint == Self.reference(evaluator.requests))
        var events: [FiredEvent] = []
        try evaluator.process(StreamLineParser.parse(fix("d", 0, north: 0)), into: &events)
        let added = RequestsFile.parse(Self.requests(5, from: count), file: "added", options: ValidationOptions(now: Date())).requests
        var appended = 0
        for var r in added {
            r.addedAt = Date(timeIntervalSince1970: 1_795_770_000)
            let index = r.trigger.kind == .location ? evaluator.appendLocationRequest(r, validated: true) : evaluator.appendTimeRequest(r)
            if index != nil { appended += 1 }
        }
        #expect(appended == 5)
        #expect(evaluator.requests.count == count + 5)
        #expect(evaluator.requestsFingerprint == Self.reference(evaluator.requests))
        // A different request set, a different fingerprint.
        #expect(makeEvaluator(Self.requests(count - 1)).requestsFingerprint != Self.reference(evaluator.requests))
    }
}
