import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 8: the evaluator never traps, hangs or floods, whatever the stream says.
@Suite("Stream evaluator: extreme input")
struct StreamHardeningTests {
    static let every60 = #"{"identifier": "every", "content": {"title": "x"}, "addedAt": "2026-11-27T09:00:00Z", "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#

    @Test func aClockJumpBeyondTheLimitIsAnErrorLineAndNotApplied() {
        var h = StreamHarness(requests: Self.every60)
        // One fix a year ahead used to make the trigger catch up 525,601 fires.
        let out = h.feed([#"{"t": "2026-11-27T09:00:00Z"}"#, #"{"t": "2027-11-27T09:00:00Z"}"#,
                          #"{"t": "2026-11-27T09:03:00Z"}"#], format: .ids)
        #expect(out == ["every", "every", "every"])
        #expect(h.errors.count == 1)
        #expect(h.errors.first?.contains("clock jump") == true)
        #expect(h.evaluator.streamTime == Timestamp.parseMillis("2026-11-27T09:03:00Z"))
        #expect(h.evaluator.stats.errors == 1)
    }

    @Test func aJumpWithinTheLimitCatchesUpEveryFire() {
        var options = StreamOptions()
        options.maxClockJump = 3600
        var h = StreamHarness(requests: Self.every60, options: options)
        let out = h.feed([#"{"t": "2026-11-27T09:00:00Z"}"#, #"{"t": "2026-11-27T10:00:00Z"}"#], format: .ids)
        #expect(out.count == 60)
        #expect(h.errors.isEmpty)
    }

    @Test func timesOutsideTheSupportedRangeAreErrorLines() {
        var h = StreamHarness(requests: Self.every60)
        _ = h.feed([#"{"t": "0000-06-01T00:00:00Z"}"#, #"{"t": 1e12}"#, #"{"t": -62135596801}"#,
                    #"{"t": "9999-12-31T23:59:59Z", "lat": 1, "lon": 1}"#])
        #expect(h.errors.count == 3)
        #expect(h.evaluator.streamTime == Timestamp.parseMillis("9999-12-31T23:59:59Z"))
    }

    @Test func coalescedCatchUpIsOneEventPerRequestWithItsCount() {
        var options = StreamOptions()
        options.catchUp = .coalesced
        var h = StreamHarness(requests: Self.every60, options: options)
        let out = h.feed([#"{"t": "2026-11-27T09:00:00Z"}"#, #"{"t": "2026-11-27T10:00:30Z"}"#])
        #expect(out.count == 1)
        #expect(out.first?.contains(#""date":"2026-11-27T10:00:00Z""#) == true)
        #expect(out.first?.contains(#""coalesced":60"#) == true)
    }

    @Test func catchUpFromLongBeforeTheStreamIsBoundedByTheWindow() {
        // addedAt a year before the first line: every fire older than the 7-day window is
        // coalesced into one; the window's fires come one by one (60 s apart).
        let old = #"{"identifier": "old", "content": {"title": "x"}, "addedAt": "2025-11-27T09:00:00Z", "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        var h = StreamHarness(requests: old)
        let out = h.feed([#"{"t": "2026-11-27T09:00:00Z"}"#])
        // One coalesced line, then the fires from t - 7 days to t inclusive.
        #expect(out.count == 1 + (7 * 1440 + 1))
        #expect(out.first?.contains(#""coalesced":"#) == true)
        #expect(out.dropFirst().allSatisfy { !$0.contains("coalesced") })
    }

    @Test func timeRulesAreTotalForAnyInterval() {
        // NaN, infinities, 1e300, negative repeating (looped forever), Int64 edges (trapped).
        let starts: [Int64] = [.min, -1, 0, 1_795_770_000_000, RequestLimits.latestMillis, .max]
        let intervals: [Double] = [.nan, .infinity, -.infinity, 1e300, -60, 0, 1e-12, 60, 1e16, 3_155_760_000]
        for start in starts {
            for v in intervals {
                for repeats in [false, true] {
                    guard let rule = TimeRule(.timeInterval(TimeIntervalTrigger(timeInterval: v, repeats: repeats)), addedAt: start,
                                              floatingTimeZone: .gmt) else { continue }
                    let fires = rule.fires(after: start == .min ? .min : start - 1, count: 3)
                    #expect(fires.allSatisfy(RequestLimits.isSupported(millis:)))
                    _ = rule.nextFire(strictlyAfter: .max)
                    _ = rule.nextFire(strictlyAfter: .min)
                    if let f = fires.first { _ = rule.coalesce(from: f, before: .max) }
                }
            }
        }
    }

    @Test func idsFormatEscapesControlCharacters() {
        let r = #"{"identifier": "a\nb\u0000c\\d", "content": {"title": "x"}, "addedAt": "2026-11-27T09:00:00Z"}"#
        var h = StreamHarness(requests: r)
        #expect(h.feed([#"{"t": "2026-11-27T09:00:00Z"}"#], format: .ids) == [#"a\nb\u0000c\\d"#])
    }

    @Test func devicesAreExactScalarSequences() throws {
        let r = #"{"identifier": "zone", "content": {"title": "x"}, "addedAt": "2026-11-27T09:00:00Z", "trigger": {"type": "location", "region": {"center": {"latitude": 40, "longitude": -74}, "radius": 100}, "repeats": true}}"#
        var h = StreamHarness(requests: r)
        let out = h.feed([#"{"device": "caf\u00e9", "t": "2026-11-27T09:00:00Z", "lat": 41, "lon": -74}"#,
                          #"{"device": "cafe\u0301", "t": "2026-11-27T09:00:01Z", "lat": 40, "lon": -74}"#,
                          #"{"device": "caf\u00e9", "t": "2026-11-27T09:00:02Z", "lat": 40, "lon": -74}"#])
        // Two devices: the decomposed one's first fix only sets its state; the precomposed one
        // then enters (a canonical-equivalence merge gave one device and one entry at :01).
        #expect(h.evaluator.deviceNames.count == 2)
        #expect(out.count == 1)
        #expect(out.first?.contains("09:00:02Z") == true)
    }

    @Test func randomAndExtremeLinesNeverTrap() {
        var rng = SeededGenerator(seed: 88)
        let pieces = [#""t": "2026-11-27T09:00:00Z""#, #""t": 1e300"#, #""t": -1e300"#, #""t": 253402300799.999"#,
                      #""t": "9999-12-31T23:59:59.999Z""#, #""t": "0001-01-01T00:00:00Z""#, #""lat": 1e300"#, #""lat": -90"#,
                      #""lon": 180"#, #""lon": -1e-300"#, #""acc": 1e308"#, #""acc": -1"#, #""device": "d""#,
                      #""device": "\u0000""#, #""settings": {"authorizationStatus": "denied"}"#, #""t": 1795770000.5"#]
        let requests = [Self.every60,
                        #"{"identifier": "sec", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"nanosecond": 0}, "repeats": true}}"#,
                        #"{"identifier": "far", "content": {"title": "x"}, "addedAt": "0001-01-01T00:00:00Z", "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#,
                        #"{"identifier": "zone", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"center": {"latitude": 90, "longitude": 180}, "radius": 1000000}, "repeats": true}}"#]
            .joined(separator: "\n")
        var h = StreamHarness(requests: requests)
        var total = 0
        for _ in 0..<300 {
            var line: String
            if Int.random(in: 0..<8, using: &rng) == 0 {
                line = String(decoding: (0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, as: UTF8.self)
            } else {
                line = "{" + (0..<Int.random(in: 1...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined(separator: ", ") + "}"
            }
            total += h.feed([line]).count
        }
        // Each line's catch-up is bounded by the 7-day window (one fire a second at most).
        #expect(total <= 300 * (7 * 86_400 + 10))
        #expect(h.evaluator.stats.lines == 300)
    }
}
