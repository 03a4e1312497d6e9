import Foundation
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// A ``FixLookahead`` decides most devices' fixes ahead (on `run`'s reader thread) and the
/// evaluator uses its answers: the output, the errors and the saved state must be those of
/// the evaluator alone, whatever the lookahead's memory bound does to its neighbourhoods.
@Suite struct LookaheadEquivalenceTests {
    typealias Random = SeededGenerator

    /// The lines through an evaluator, with a lookahead deciding them first when `ahead`
    /// (its answers never depend on the evaluator, so deciding every line first is one of
    /// the orders the reader thread may take).
    static func run(requests: String, lines: [String], options: StreamOptions, ahead: Bool, lookaheadBudget: Int = 16 << 20,
                    evaluatorBudget: Int? = nil, share: UInt64 = FixLookahead.eighths,
                    varyingShare: Bool = false, deltas: Bool? = nil,
                    skipping: Bool = true, chunks: (lines: Int, hitBudget: Int)? = nil)
        -> (output: String, errors: [String], state: EvaluatorSnapshot, decided: Int, sharedTaken: Int, mostHits: Int) {
        let h = StreamHarness(requests: requests, options: options)
        let evaluator = h.evaluator
        evaluator.skipsStableFixes = skipping
        if let evaluatorBudget {
            evaluator.neighbourhoodSlotBudget = evaluatorBudget
            // The tile caches' bound too: emptied again and again.
            evaluator.tileCache = TileCache(budget: 16)
        }
        var lookahead: FixLookahead? = nil
        if ahead {
            lookahead = evaluator.makeLookahead()
            #expect(lookahead != nil)
            // Sharing its leaf tiles with the evaluator, as `run`'s does (the evaluator takes
            // the lookahead's tiles for the devices it decides itself).
            lookahead = FixLookahead(index: evaluator.regionIndex, margin: options.margin, maxAccuracy: options.maxAccuracy,
                                     slotBudget: lookaheadBudget, tileBudget: lookaheadBudget < 1_000 ? 16 : 4 << 20, share: share,
                                     deltas: deltas ?? (options.dwell == 0), sharedTiles: evaluator.tileCache.shared)
        }
        if let chunks { lookahead?.hitBudget = chunks.hitBudget }
        let bytes = lines.map { Array($0.utf8) }
        var readerScanner = LineScanner()
        var geometry: [FixGeometry?] = []
        var hits: [RegionHit] = []
        var mostHits = 0
        var g8 = SeededGenerator(s: UInt64(lines.count))
        var evaluation = LineEvaluation(evaluator)
        // Every line decided first, or (`chunks`) chunk by chunk as `run` does: a chunk's lines
        // decided into a buffer cleared for each chunk, then evaluated.
        let size = chunks?.lines ?? max(1, bytes.count)
        for first in stride(from: 0, to: bytes.count, by: size) {
            let range = first..<min(bytes.count, first + size)
            hits.removeAll(keepingCapacity: true)
            for k in range {
                // `run` moves the share by which thread waits, chunk by chunk: here every few
                // lines, all the way between none and all: devices pass from one thread to the
                // other and back while staying in their tiles.
                if varyingShare, k % 3 == 0 { lookahead?.share = g8.int(9) }
                let g = bytes[k].withUnsafeBufferPointer { b in lookahead?.decide(b, readerScanner.scan(b), hits: &hits) }
                geometry.append(g)
            }
            mostHits = max(mostHits, hits.count)
            for k in range { bytes[k].withUnsafeBufferPointer { evaluation.evaluate(line: k, $0, geometry: geometry[k], hits: hits) } }
        }
        return (evaluation.writer.text, evaluation.errors, evaluator.snapshot(), geometry.count { $0?.isDecided == true },
                evaluator.tileCache.shared?.takenCount ?? 0, mostHits)
    }

    /// A device id the lookahead decides (by default it takes the ids hashing into 5/8).
    static func deviceInTheLookaheadsShare() -> String? {
        (0..<64).map { "d\($0)" }.first { id in
            let b = Array(id.utf8)
            return b.withUnsafeBufferPointer { DeviceInterner.hash($0) & 7 < FixLookahead.eighths }
        }
    }

    @Test(arguments: 0..<8)
    func sameOutputStateAndErrorsAsOneThread(seed: Int) {
        var rng = Random(state: UInt64(seed) &* 104_729 &+ 3)
        let devices = 4 + rng.below(12)
        let requests = StableSkipEquivalenceTests.requests(&rng, devices: devices)
        var lines = StableSkipEquivalenceTests.lines(&rng, devices: devices, seconds: 1200)
        // Malformed, blank and settings lines (none stops the lookahead), and a clock jump
        // past the limit (refused: the lookahead had counted that fix).
        for k in stride(from: 50, to: lines.count, by: 397) {
            lines.insert([#"{"device": "d1", "t": 5, "lat": "north"}"#, "  ", "{not json",
                          #"{"t": "\#(at(k / 8))", "settings": {"device": "d2", "authorizationStatus": "denied"}}"#][k % 4], at: k)
        }
        lines.insert(#"{"device": "d0", "t": "\#(at(90_000))", "lat": 40, "lon": -74}"#, at: lines.count / 2)
        var options = StreamOptions(margin: [0, 0, 8, 25][seed % 4], dwell: seed % 3 == 1 ? 4 : 0,
                                    maxAccuracy: seed % 2 == 0 ? 30 : nil, initialFire: seed % 4 >= 2,
                                    now: Timestamp.date(millis: 1_795_770_000_000))
        options.maxClockJump = 3_600
        // One thread, every fix stepped whole.
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false, skipping: false)
        let two = Self.run(requests: requests, lines: lines, options: options, ahead: true)
        #expect(!one.output.isEmpty)
        #expect(one.errors.count > 5)
        #expect(two.decided > lines.count / 8, "the lookahead decided \(two.decided) of \(lines.count) lines")
        #expect(two.output == one.output)
        #expect(two.errors == one.errors)
        #expect(two.state == one.state)
        // Every device decided ahead.
        let all = Self.run(requests: requests, lines: lines, options: options, ahead: true, share: 8)
        #expect(all.decided > lines.count / 2)
        #expect(all.output == one.output)
        #expect(all.errors == one.errors)
        #expect(all.state == one.state)
        // The share moving (devices passing between the threads) changes nothing.
        let moving = Self.run(requests: requests, lines: lines, options: options, ahead: true, varyingShare: true)
        #expect(moving.decided > lines.count / 8)
        // The evaluator took tiles the lookahead had built (a copy of each), not building them again.
        #expect(moving.sharedTaken > 0)
        #expect(moving.output == one.output)
        #expect(moving.errors == one.errors)
        #expect(moving.state == one.state)
        // Changes sent whatever the dwell (with a dwell, fixes after a pending crossing apply
        // them to the kept hits), or never.
        for deltas in [true, false] {
            let sent = Self.run(requests: requests, lines: lines, options: options, ahead: true, varyingShare: seed % 2 == 0,
                                deltas: deltas)
            #expect(sent.output == one.output, "deltas \(deltas)")
            #expect(sent.errors == one.errors)
            #expect(sent.state == one.state)
        }
        // Neighbourhoods dropped again and again on both threads change nothing either.
        let bounded = Self.run(requests: requests, lines: lines, options: options, ahead: true, lookaheadBudget: 6, evaluatorBudget: 6,
                               share: UInt64(1 + seed % 8))
        #expect(bounded.output == one.output)
        #expect(bounded.state == one.state)
    }

    /// A chunk's hits are bounded (``FixLookahead/hitBudget``): past it, the chunk's further
    /// fixes are left to the evaluator, and the results are the same. Devices jumping about
    /// inside 300 large overlapping circles are sent whole hit lists at each fix (a chunk of
    /// such fixes took 977 MB in `run`; a helper's find).
    @Test(arguments: 0..<3)
    func aChunksHitsAreBoundedAndTheRestLeftToTheEvaluator(seed: Int) {
        var rng = Random(state: UInt64(seed) &* 7_919 &+ 11)
        let requests = (0..<300).map { i in
            let lat = 40 + rng.uniform(-0.01, 0.01), lon = -74 + rng.uniform(-0.01, 0.01)
            return #"{"identifier": "c\#(i)", "content": {"title": "t"}, "trigger": {"type": "location", "repeats": true, "#
                + #""region": {"identifier": "z\#(i)", "center": {"latitude": \#(lat), "longitude": \#(lon)}, "radius": \#(rng.uniform(500, 4_000))}}}"#
        }.joined(separator: "\n")
        var lines: [String] = []
        for s in 0..<400 {
            for d in 0..<3 {
                // A few hundred metres to kilometres a fix: rarely in the same tile twice.
                let lat = 40 + rng.uniform(-0.03, 0.03), lon = -74 + rng.uniform(-0.03, 0.03)
                lines.append(#"{"device": "d\#(d)", "t": "\#(at(s))", "lat": \#(lat), "lon": \#(lon)}"#)
            }
        }
        let options = StreamOptions(margin: [0, 10, 0][seed], dwell: seed == 2 ? 3 : 0, now: Timestamp.date(millis: 1_795_770_000_000))
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false, skipping: false)
        let whole = Self.run(requests: requests, lines: lines, options: options, ahead: true, share: 8, chunks: (60, .max))
        let bounded = Self.run(requests: requests, lines: lines, options: options, ahead: true, share: 8, chunks: (60, 1_000))
        #expect(one.output.split(separator: "\n").count > 500)
        #expect(whole.mostHits > 3_000, "without a bound a chunk holds \(whole.mostHits) hits")
        #expect(bounded.mostHits <= 1_000 + 300, "\(bounded.mostHits)")
        #expect(bounded.decided > lines.count / 8 && bounded.decided < whole.decided, "\(bounded.decided) of \(whole.decided)")
        #expect(whole.output == one.output && bounded.output == one.output)
        #expect(whole.state == one.state && bounded.state == one.state)
        #expect(bounded.errors == one.errors)
    }

    /// A lookahead made afresh half-way (as after a control line) numbers the devices in the
    /// order it sees them, not as the first did: the evaluator finds each device by the new
    /// numbers (it kept the first lookahead's numbering, and stepped one device's fixes as
    /// another's).
    @Test func aSecondLookaheadNumbersDevicesAfresh() throws {
        var rng = Random(state: 4_242)
        let requests = StableSkipEquivalenceTests.requests(&rng, devices: 6)
        var lines = StableSkipEquivalenceTests.lines(&rng, devices: 6, seconds: 600)
        let half = lines.count / 2
        // The second lookahead's first line: the last device, whose number was 5 in the first.
        let first = try #require(lines[half...].firstIndex { $0.contains(#""device": "d5""#) })
        lines.insert(lines[first], at: half)
        let options = StreamOptions(margin: 0, initialFire: true, now: Timestamp.date(millis: 1_795_770_000_000))
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false, skipping: false)
        let h = StreamHarness(requests: requests, options: options)
        let evaluator = h.evaluator
        var w = JSONWriter()
        var events: [FiredEvent] = []
        var scanner = LineScanner()
        var hits: [RegionHit] = []
        var lookahead = try #require(evaluator.makeLookahead())
        lookahead.share = 8
        for (k, line) in lines.enumerated() {
            if k == half {
                lookahead = try #require(evaluator.makeLookahead())
                lookahead.share = 8
            }
            var bytes = Array(line.utf8)
            bytes.withUnsafeBufferPointer { b in
                let scan = scanner.scan(b)
                hits.removeAll()
                let g = lookahead.decide(b, scan, hits: &hits)
                events.removeAll()
                try? hits.withUnsafeBufferPointer { hb throws(StreamLineError) in
                    try evaluator.process(lineBytes: b, scanned: scan, geometry: g, hits: hb, into: &events)
                }
                for e in events { evaluator.write(e, format: .json, to: &w) }
            }
            _ = bytes
        }
        #expect(one.output.count > 1_000)
        #expect(w.text == one.output)
    }

    /// Devices jittering across a boundary (±12 m around it, as a parked phone's fixes do)
    /// while the share jumps between none and all devices from line to line: a fix decided here
    /// after fixes decided ahead is compared with the last fix used, not with the last one
    /// decided here (comparing with that one skipped real crossings).
    @Test(arguments: 0..<4)
    func devicesPassingBetweenTheThreadsMissNoCrossing(seed: Int) {
        var g = Random(state: UInt64(seed) &+ 900)
        let requests = [circleRequest("a", radius: 100), circleRequest("b", radius: 160)].joined(separator: "\n")
        var lines: [String] = []
        for second in 0..<600 {
            for d in 0..<6 {
                let edge = d % 2 == 0 ? 100.0 : 160.0
                lines.append(fix("d\(d)", second, north: edge + g.uniform(-12, 12)))
            }
        }
        let options = StreamOptions(now: Timestamp.date(millis: 1_795_770_000_000))
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false, skipping: false)
        #expect(one.output.split(separator: "\n").count > 1_000)
        for deltas in [true, false] {
            let moving = Self.run(requests: requests, lines: lines, options: options, ahead: true, varyingShare: true, deltas: deltas)
            #expect(moving.decided > lines.count / 8 && moving.decided < lines.count * 7 / 8)
            #expect(moving.output == one.output, "deltas \(deltas)")
            #expect(moving.state == one.state)
        }
    }

    /// A control line stops the lookahead (it may change the regions): nothing after it is
    /// decided ahead. Blank, malformed and settings lines do not, nor does a refused `add`,
    /// which changes nothing.
    @Test func aControlLineStopsIt() throws {
        let h = StreamHarness(requests: circleRequest("a"))
        var lookahead = try #require(h.evaluator.makeLookahead())
        var scanner = LineScanner()
        var hits: [RegionHit] = []
        func decide(_ line: String) -> FixGeometry? {
            var b = Array(line.utf8)
            return b.withUnsafeMutableBufferPointer { b in lookahead.decide(UnsafeBufferPointer(b), scanner.scan(UnsafeBufferPointer(b)), hits: &hits) }
        }
        // The device ids hash into the lookahead's share, or it leaves them to the evaluator.
        let mine = try #require(Self.deviceInTheLookaheadsShare())
        #expect(decide(fix(mine, 1, north: 0)) != nil)
        #expect(decide("   ") == nil)
        #expect(decide("{oops") == nil)
        #expect(decide(fix(mine, 2, north: 10)) != nil)
        #expect(decide(#"{"t": "\#(at(2))", "add": {"identifier": "z", "content": {"title": "t"}, "trigger": {"type": "weekly"}}}"#) == nil)
        #expect(!lookahead.isStopped)
        #expect(decide(fix(mine, 2, north: 15)) != nil)
        #expect(decide(#"{"t": "\#(at(3))", "remove": ["a"]}"#) == nil)
        #expect(lookahead.isStopped)
        #expect(decide(fix(mine, 4, north: 20)) == nil)
    }

    /// Plain fences beside fences with rules (followed on the evaluating thread, on their own
    /// path): the lookahead decides the plain ones, and the output, errors and state are the
    /// single thread's, with every share.
    @Test(arguments: 0..<4)
    func besideFencesWithRules(seed: Int) {
        var rng = Random(state: UInt64(seed) &* 7_919 &+ 11)
        let devices = 4 + rng.below(8)
        let requests = StableSkipEquivalenceTests.requests(&rng, devices: devices, rules: true)
        #expect(requests.contains("dwell") && requests.contains("crossings"))
        let lines = StableSkipEquivalenceTests.lines(&rng, devices: devices, seconds: 900)
        let options = StreamOptions(margin: [0, 8][seed % 2], dwell: seed % 3 == 1 ? 4 : 0, initialFire: seed >= 2,
                                    now: Timestamp.date(millis: 1_795_770_000_000))
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false, skipping: false)
        #expect(one.output.split(separator: "\n").count > 50)
        for (share, varying) in [(FixLookahead.eighths, false), (UInt64(8), false), (FixLookahead.eighths, true)] {
            let two = Self.run(requests: requests, lines: lines, options: options, ahead: true, share: share, varyingShare: varying)
            #expect(two.decided > lines.count / 8, "share \(share): \(two.decided) decided")
            #expect(two.output == one.output, "share \(share), varying \(varying)")
            #expect(two.errors == one.errors)
            #expect(two.state == one.state)
        }
    }

    /// Without location requests there is no lookahead; fences with rules alone have one (it
    /// decides their moves, FenceLookaheadEquivalenceTests), and so do they beside plain ones.
    @Test func onlyForLocationRequests() {
        #expect(StreamHarness(requests: circleRequest("a", rules: #""dwell": {"inside": 60}"#)).evaluator.makeLookahead() != nil)
        #expect(StreamHarness(requests: [circleRequest("a", rules: #""dwell": {"inside": 60}"#), circleRequest("b")].joined(separator: "\n"))
            .evaluator.makeLookahead() != nil)
        #expect(StreamHarness(requests: #"{"identifier": "t", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 60}}"#).evaluator.makeLookahead() == nil)
        #expect(StreamHarness(requests: circleRequest("a")).evaluator.makeLookahead() != nil)
    }

    /// A fix the evaluator refuses (a clock jump past the limit) but the lookahead decided is
    /// not the fix the evaluator used last: the next fix, "the same as the one before" for the
    /// lookahead, must still be stepped (here it leaves the circle).
    @Test func aRefusedFixIsNotTheLastOneUsed() throws {
        let device = try #require(Self.deviceInTheLookaheadsShare())
        let lines = [
            fix(device, 0, north: 0),
            fix(device, 7_200, north: 500),  // refused: a jump of 2 h past a 1 h limit
            #"{"t": "\#(at(3_600))"}"#, #"{"t": "\#(at(7_200))"}"#,
            fix(device, 7_201, north: 500),
        ]
        var options = StreamOptions(initialFire: true, now: Timestamp.date(millis: 1_795_770_000_000))
        options.maxClockJump = 3_600
        let one = Self.run(requests: circleRequest("a"), lines: lines, options: options, ahead: false)
        let two = Self.run(requests: circleRequest("a"), lines: lines, options: options, ahead: true)
        #expect(one.errors.count == 1)
        #expect(one.output.contains(#""event":"exit""#))
        #expect(two.decided == 3)
        #expect(two.output == one.output)
        #expect(two.errors == one.errors)
    }

    /// A device id that is not valid UTF-8 is left to the evaluator (the lookahead keeps ids
    /// by their bytes; stored repaired, such an id would never be found again and would take a
    /// new entry per fix). The stream scanner refuses such ids today; this holds whatever it does.
    @Test func aDeviceIdThatIsNotUTF8IsLeftToTheEvaluator() {
        let h = StreamHarness(requests: circleRequest("a", radius: 300))
        var lookahead = FixLookahead(index: h.evaluator.regionIndex, margin: 0, maxAccuracy: nil, slotBudget: 1 << 20, share: 8,
                                     deltas: true)
        var hits: [RegionHit] = []
        let bad: [UInt8] = Array("d".utf8) + [0xFF, 0x78]
        var decided = 0
        for s in 0..<20 {
            let scan = ScannedLine(scanned: StreamLineParser.Scanned(t: 1_795_770_000_000 + Int64(s) * 1000, latitude: 40, longitude: -74,
                                                                     accuracy: nil, device: 0..<bad.count, isClock: false))
            if bad.withUnsafeBufferPointer({ lookahead.decide($0, scan, hits: &hits) }) != nil { decided += 1 }
        }
        #expect(decided == 0)
        // A valid id is decided.
        let good = Array("ok".utf8)
        let scan = ScannedLine(scanned: StreamLineParser.Scanned(t: 1_795_770_000_000, latitude: 40, longitude: -74, accuracy: nil,
                                                                 device: 0..<good.count, isClock: false))
        #expect(good.withUnsafeBufferPointer { lookahead.decide($0, scan, hits: &hits) } != nil)
    }
}
