import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Stream evaluator: location")
struct StreamLocationTests {
    @Test func walkThroughACircleEntersThenExits() {
        var h = StreamHarness(requests: circleRequest("a"))
        let out = h.feedBrief([fix("d", 0, north: -300), fix("d", 10, north: -50), fix("d", 20, north: 50), fix("d", 30, north: 300)])
        #expect(out == ["a enter d \(at(10))", "a exit d \(at(30))"])
    }

    @Test func firstFixOnlySetsTheStateUnlessInitialFire() {
        var quiet = StreamHarness(requests: circleRequest("a"))
        #expect(quiet.feedBrief([fix("d", 0, north: 0), fix("d", 10, north: 500)]) == ["a exit d \(at(10))"])
        var loud = StreamHarness(requests: circleRequest("a"), options: StreamOptions(initialFire: true))
        #expect(loud.feedBrief([fix("d", 0, north: 0), fix("d", 10, north: 500)]) == ["a enter d \(at(0))", "a exit d \(at(10))"])
        var exitOnly = StreamHarness(requests: circleRequest("a", entry: false), options: StreamOptions(initialFire: true))
        #expect(exitOnly.feedBrief([fix("d", 0, north: 0)]) == [])
    }

    @Test func jitterOnTheBoundaryWithAndWithoutMargin() {
        let jitter = (0..<6).map { fix("d", $0 * 5, north: $0 % 2 == 0 ? 95 : 105) }
        var plain = StreamHarness(requests: circleRequest("a"))
        #expect(plain.feedBrief(jitter).count == 5)
        var margin = StreamHarness(requests: circleRequest("a"), options: StreamOptions(margin: 15))
        #expect(margin.feedBrief(jitter) == [])
        // The first fix (95 m) set "inside"; a real crossing still fires: out past r + M,
        // back in past r - M, and nothing inside the band.
        #expect(margin.feedBrief([fix("d", 40, north: 110), fix("d", 50, north: 120), fix("d", 60, north: 90), fix("d", 70, north: 80)])
                == ["a exit d \(at(50))", "a enter d \(at(70))"])
    }

    @Test func dwellConfirmsOnlyPersistentCrossings() {
        var h = StreamHarness(requests: circleRequest("a"), options: StreamOptions(dwell: 20))
        let out = h.feedBrief([
            fix("d", 0, north: 300),
            fix("d", 10, north: 0),    // t0 of an entry
            fix("d", 20, north: 300),  // back out: cancelled
            fix("d", 30, north: 0),    // new t0
            fix("d", 40, north: 10),
            fix("d", 50, north: 20),   // 20 s after t0: confirmed here
            fix("d", 55, north: 300),  // exit t0
            fix("d", 74, north: 300),  // 19 s: not yet
            fix("d", 75, north: 300),  // confirmed
        ])
        #expect(out == ["a enter d \(at(50))", "a exit d \(at(75))"])
    }

    @Test func oneShotVersusRepeating() {
        let reqs = [circleRequest("once", repeats: false), circleRequest("every")].joined(separator: "\n")
        var h = StreamHarness(requests: reqs)
        let trace = (0..<6).map { fix("d", $0 * 10, north: $0 % 2 == 0 ? 300 : 0) }
        #expect(h.feedBrief(trace) == [
            "every enter d \(at(10))", "once enter d \(at(10))",
            "every exit d \(at(20))",
            "every enter d \(at(30))", "every exit d \(at(40))", "every enter d \(at(50))",
        ])
    }

    @Test func entryOnlyAndExitOnly() {
        let reqs = [circleRequest("in", exit: false), circleRequest("out", entry: false)].joined(separator: "\n")
        var h = StreamHarness(requests: reqs)
        #expect(h.feedBrief([fix("d", 0, north: 300), fix("d", 10, north: 0), fix("d", 20, north: 300)])
                == ["in enter d \(at(10))", "out exit d \(at(20))"])
    }

    @Test func sharedOneShotFiresOncePerDeviceScopedOnlyForItsDevice() {
        let reqs = [circleRequest("shared", repeats: false), circleRequest("mine", repeats: false, device: "d2")].joined(separator: "\n")
        var h = StreamHarness(requests: reqs)
        let out = h.feedBrief([
            fix("d1", 0, north: 300), fix("d2", 0, north: 300),
            fix("d1", 10, north: 0), fix("d2", 10, north: 0),
            fix("d1", 20, north: 300), fix("d2", 20, north: 300),
            fix("d1", 30, north: 0), fix("d2", 30, north: 0),
        ])
        #expect(out == ["shared enter d1 \(at(10))", "mine enter d2 \(at(10))", "shared enter d2 \(at(10))"])
    }

    @Test func staleInvalidAndInaccurateFixes() {
        var h = StreamHarness(requests: circleRequest("a"), options: StreamOptions(maxAccuracy: 50))
        let out = h.feedBrief([
            fix("d", 10, north: 300),
            fix("d", 5, north: 0),                // stale: skipped
            fix("d", 20, north: 0, acc: -1),      // invalid: skipped
            fix("d", 30, north: 0, acc: 80),      // inaccurate: no region effect
            fix("d", 25, north: 0),               // stale against the accepted inaccurate fix
            fix("d", 40, north: 0, acc: 50),      // equal to the limit: used
        ])
        #expect(out == ["a enter d \(at(40))"])
        #expect(h.evaluator.stats.stale == 2)
        #expect(h.evaluator.stats.skipped == 1)
        #expect(h.evaluator.stats.inaccurate == 1)
        #expect(h.evaluator.stats.fixes == 6)
    }

    @Test func requestAddedMidStreamStartsUnknown() {
        var h = StreamHarness(requests: circleRequest("late", addedAt: at(15)))
        // Inside before addedAt: not seen. First fix at/after addedAt sets the state silently.
        #expect(h.feedBrief([fix("d", 0, north: 300), fix("d", 10, north: 0), fix("d", 20, north: 0), fix("d", 30, north: 300)])
                == ["late exit d \(at(30))"])
    }

    @Test func sameInputGivesByteIdenticalOutput() {
        let reqs = [circleRequest("b"), circleRequest("a"), circleRequest("c", device: "x")].joined(separator: "\n")
        let trace = (0..<200).map { fix(["x", "y", "z"][$0 % 3], $0, north: Double(($0 * 37) % 400) - 200) }
        var h1 = StreamHarness(requests: reqs)
        var h2 = StreamHarness(requests: reqs)
        let o1 = h1.feed(trace), o2 = h2.feed(trace)
        #expect(!o1.isEmpty)
        #expect(o1 == o2)
    }

    @Test func eventsOfOneLineAreOrderedByIdentifier() {
        let reqs = ["zeta", "alpha", "mid"].map { circleRequest($0) }.joined(separator: "\n")
        var h = StreamHarness(requests: reqs)
        #expect(h.feedBrief([fix("d", 0, north: 300), fix("d", 1, north: 0)])
                == ["alpha enter d \(at(1))", "mid enter d \(at(1))", "zeta enter d \(at(1))"])
    }

    @Test func eventLineShapeAndEventId() throws {
        var h = StreamHarness(requests: circleRequest("a"))
        let out = h.feed([fix("dev", 0, north: 300), fix("dev", 1, north: 0)])
        let expectedId = EventID.make(identifier: "a", device: "dev", event: "enter", date: 1_795_770_001_000)
        #expect(out == ["{\"identifier\":\"a\",\"date\":\"\(at(1))\",\"trigger\":\"location\",\"event\":\"enter\",\"device\":\"dev\",\"region\":\"r-a\",\"presentation\":[\"alert\",\"notificationCenter\",\"lockScreen\"],\"eventId\":\"\(expectedId)\"}"])
        #expect(expectedId.count == 32)
        #expect(expectedId != EventID.make(identifier: "a", device: "dev", event: "exit", date: 1_795_770_001_000))
        var ids = StreamHarness(requests: circleRequest("a"))
        #expect(ids.feed([fix("dev", 0, north: 300), fix("dev", 1, north: 0)], format: .ids) == ["a"])
    }
}

@Suite("Stream evaluator: time triggers")
struct StreamTimeTests {
    static let requests = """
    {"identifier": "now", "content": {"title": "x"}}
    {"identifier": "every-minute", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}
    {"identifier": "in-90s", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 90}}
    {"identifier": "at-2", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"minute": 2, "second": 0, "timeZone": "UTC"}, "repeats": true}}
    """

    @Test func timeFiresComeBeforeTheLineInDateOrderTiesByIdentifier() {
        // Stream starts 2026-11-27T09:00:00Z (second 0 of the harness clock).
        var h = StreamHarness(requests: Self.requests)
        let out = h.feedBrief(["{\"t\": \"\(at(0))\"}", "{\"t\": \"\(at(150))\"}", "{\"t\": \"\(at(3700))\"}"])
        #expect(Array(out.prefix(5)) == [
            "now immediate \(at(0))",
            "every-minute timeInterval \(at(60))",
            "in-90s timeInterval \(at(90))",
            "at-2 calendar \(at(120))",
            "every-minute timeInterval \(at(120))",
        ])
        // Up to 3700 s: 61 minute fires, and at-2 at 120 s and 3720 s (not yet).
        #expect(out.filter { $0.hasPrefix("every-minute") }.count == 61)
        #expect(out.filter { $0.hasPrefix("at-2") }.count == 1)
        #expect(out.count == 1 + 61 + 1 + 1)
    }

    @Test func nothingFiresAfterTheEndOfInputAndEarlierLinesDoNotRewindTheClock() {
        var h = StreamHarness(requests: Self.requests)
        let out = h.feedBrief(["{\"t\": \"\(at(0))\"}", "{\"t\": \"\(at(61))\"}", "{\"t\": \"\(at(10))\"}"])
        #expect(out == ["now immediate \(at(0))", "every-minute timeInterval \(at(60))"])
    }

    @Test func nowOptionSetsTheDefaultAddedAt() {
        var h = StreamHarness(requests: Self.requests, options: StreamOptions(now: Timestamp.date(millis: 1_795_770_000_000 - 30_000)))
        let out = h.feedBrief(["{\"t\": \"\(at(40))\"}"])
        #expect(out == ["now immediate \(at(-30))", "every-minute timeInterval \(at(30))"])
    }
}

@Suite("Evaluator snapshots")
struct SnapshotTests {
    /// Stopping anywhere, snapshotting, and resuming a fresh evaluator from the snapshot gives
    /// the same remaining output as an uninterrupted run.
    @Test func resumeFromSnapshotMatchesAnUninterruptedRun() throws {
        let reqs = [circleRequest("a"), circleRequest("once", repeats: false), circleRequest("mine", device: "y"), StreamTimeTests.requests]
            .joined(separator: "\n")
        let trace = (0..<300).map { fix(["x", "y"][$0 % 2], $0 * 7, north: Double(($0 * 53) % 500) - 250) }
        var whole = StreamHarness(requests: reqs, options: StreamOptions(dwell: 10))
        let expected = whole.feed(trace)
        for cut in [1, 17, 150, 299] {
            var first = StreamHarness(requests: reqs, options: StreamOptions(dwell: 10))
            let head = first.feed(Array(trace[..<cut]))
            let snap = first.evaluator.snapshot()
            let data = try JSONEncoder().encode(snap)
            var second = StreamHarness(requests: reqs, options: StreamOptions(dwell: 10))
            try second.evaluator.restore(try JSONDecoder().decode(EvaluatorSnapshot.self, from: data))
            let tail = second.feed(Array(trace[cut...]))
            #expect(head + tail == expected, "cut at \(cut)")
            #expect(second.evaluator.stats == whole.evaluator.stats)
        }
    }

    @Test func snapshotOfOtherRequestsIsRefused() {
        let a = StreamHarness(requests: circleRequest("a"))
        let b = StreamHarness(requests: circleRequest("b"))
        #expect(throws: SnapshotRefusal.otherRequests) { try b.evaluator.restore(a.evaluator.snapshot()) }
    }
}

@Suite("Stream evaluator: polygons and the antimeridian")
struct StreamGeometryTests {
    static func line(_ device: String, _ s: Int, lat: Double, lon: Double) -> String {
        "{\"device\": \"\(device)\", \"t\": \"\(at(s))\", \"lat\": \(lat), \"lon\": \(lon)}"
    }

    @Test func walkingThroughAPolygonWithAHole() {
        // A 4 x 4 km square with a 1 x 1 km hole in its middle.
        let req = #"{"identifier": "park", "content": {"title": "p"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "park", "geometry": {"type": "Polygon", "coordinates": [[[10.0, 50.0], [10.056, 50.0], [10.056, 50.036], [10.0, 50.036], [10.0, 50.0]], [[10.021, 50.0135], [10.035, 50.0135], [10.035, 50.0225], [10.021, 50.0225], [10.021, 50.0135]]]}}}}"#
        var h = StreamHarness(requests: req)
        let out = h.feedBrief([
            Self.line("d", 0, lat: 50.018, lon: 9.99),    // west of the square: outside
            Self.line("d", 10, lat: 50.018, lon: 10.01),  // in the square
            Self.line("d", 20, lat: 50.018, lon: 10.028), // in the hole: outside
            Self.line("d", 30, lat: 50.018, lon: 10.045), // in the square again
            Self.line("d", 40, lat: 50.018, lon: 10.0),   // on the west edge: the boundary counts as inside
            Self.line("d", 50, lat: 50.018, lon: 10.07),  // east of the square
        ])
        #expect(out == ["park enter d \(at(10))", "park exit d \(at(20))", "park enter d \(at(30))", "park exit d \(at(50))"])
    }

    @Test func circleAcrossTheAntimeridian() {
        let req = #"{"identifier": "dateline", "content": {"title": "x"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "dl", "center": {"latitude": 0, "longitude": 179.999}, "radius": 1000}}}"#
        var h = StreamHarness(requests: req)
        let out = h.feedBrief([
            Self.line("d", 0, lat: 0, lon: -179.9),     // ~12 km east across the line: outside
            Self.line("d", 10, lat: 0, lon: -179.995),  // ~670 m from the centre, across the line: inside
            Self.line("d", 20, lat: 0, lon: 179.99),    // ~1 km west: outside (1,002 m)
        ])
        #expect(out == ["dateline enter d \(at(10))", "dateline exit d \(at(20))"])
    }
}
