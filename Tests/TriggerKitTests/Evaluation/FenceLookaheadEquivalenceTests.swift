import Foundation
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// Issue 12: fences with rules decided on `run`'s reader thread (``FenceAhead``: a copy of the
/// fences steps the geometry and records moves; the evaluator acts on them). Output, errors
/// and saved state must be those of the evaluator alone, whatever share of the devices the
/// lookahead takes, whatever lines it counted that the evaluator refused, and when it is
/// made half-way through a stream.
@Suite("fence rules decided ahead equal one thread")
struct FenceLookaheadEquivalenceTests {
    struct Outcome {
        var output: String
        var errors: [String]
        var state: EvaluatorSnapshot
        /// Fixes whose fences were stepped by moves decided ahead.
        var applied: Int
    }

    /// The lines through an evaluator: first `plainLines` of them alone, then a lookahead
    /// made (from the state then) decides every later line first, as `run`'s reader thread may
    /// (its answers never depend on the evaluator). `shares`: the lookahead's share, set
    /// before each line in turn (cycled).
    static func run(requests: String, lines: [String], options: StreamOptions, ahead: Bool, shares: [Int] = [8],
                    plainLines: Int = 0, usesQuiet: Bool = true, movesLimit: Int? = nil) -> Outcome {
        let h = StreamHarness(requests: requests, options: options)
        let evaluator = h.evaluator
        evaluator.guarded?.usesQuiet = usesQuiet
        var evaluation = LineEvaluation(evaluator)
        let bytes = lines.map { Array($0.utf8) }
        let split = min(plainLines, bytes.count)
        for k in 0..<split { bytes[k].withUnsafeBufferPointer { evaluation.evaluate(line: k, $0, geometry: nil, hits: []) } }
        // Fences decided ahead beside plain regions too (`run` leaves them to the evaluator then).
        var lookahead = ahead ? evaluator.makeLookahead(fenceShare: 8) : nil
        if ahead { #expect(lookahead != nil) }
        if let movesLimit { lookahead?.fenceMovesLimit = movesLimit }
        var geometry: [FixGeometry?] = []
        var hits: [RegionHit] = []
        var moves: [FenceMove] = []
        var readerScanner = LineScanner()
        for k in split..<bytes.count {
            lookahead?.share = shares[k % shares.count]
            lookahead?.fenceShare = shares[k % shares.count]
            geometry.append(bytes[k].withUnsafeBufferPointer { b in lookahead?.decide(b, readerScanner.scan(b), hits: &hits, moves: &moves) })
        }
        for k in split..<bytes.count {
            bytes[k].withUnsafeBufferPointer { evaluation.evaluate(line: k, $0, geometry: geometry[k - split], hits: hits, moves: moves) }
        }
        return Outcome(output: evaluation.writer.text, errors: evaluation.errors, state: evaluator.snapshot(),
                       applied: evaluator.guarded?.appliedFixes ?? 0)
    }

    /// Random circles and polygons with every rule (FenceGridEquivalenceTests), and circles
    /// hovered at every threshold (FenceQuietEquivalenceTests), plus device-scoped one-shots
    /// and fences that expire mid-stream.
    static func workload(seed: UInt64, margin: Double) -> (requests: String, lines: [String]) {
        var rng = SeededGenerator(seed: seed)
        var requests = [FenceGridEquivalenceTests.requests(&rng, count: 40)]
        let place = FenceQuietEquivalenceTests.Place(seed: seed, margin: margin)
        let (hovered, circles) = FenceQuietEquivalenceTests.circles(&rng, count: 20, at: place)
        requests.append(hovered)
        for k in 0..<6 {
            requests.append(circleRequest("scoped\(k)", radius: Double(200 + 100 * k), repeats: false, device: "d\(k)",
                                          rules: "\"accuracy\": {\"maximum\": 40}, \"crossings\": true"))
            requests.append(circleRequest("ending\(k)", radius: Double(150 + 150 * k), expiresAt: at(1500 + 400 * k),
                                          rules: "\"dwell\": {\"outside\": \(20 + 10 * k)}"))
        }
        // Traces across the fences (with sparse jumps) and walks hovering at thresholds, merged
        // by time (each list is in time order).
        let trace = FenceGridEquivalenceTests.trace(&rng, devices: 8, steps: 2500).dropLast()
        let walks = FenceQuietEquivalenceTests.walks(&rng, circles: circles, margin: margin, devices: 6, steps: 2500).dropLast()
        var lines: [String] = []
        var a = trace.startIndex, b = walks.startIndex
        while a < trace.endIndex || b < walks.endIndex {
            if b >= walks.endIndex || (a < trace.endIndex && rng.chance(0.5)) {
                lines.append(trace[a]); a += 1
            } else {
                // The walks' devices renamed apart from the trace's, at the trace's clock.
                lines.append(walks[b].replacingOccurrences(of: "\"device\": \"d", with: "\"device\": \"w")); b += 1
            }
        }
        lines.sort { time($0) < time($1) }
        // Lines the lookahead counts and the evaluator refuses (a clock jump past the limit),
        // malformed and blank lines, a stale fix and a fix too inaccurate for --max-accuracy.
        for k in stride(from: 40, to: lines.count, by: 611) {
            lines.insert([#"{"device": "d1", "t": 5, "lat": "north"}"#, "  ", "{not json",
                          #"{"device": "d2", "t": "\#(at(1))", "lat": 40, "lon": -74}"#,
                          #"{"device": "d3", "t": "\#(at(k * 2 + 4))", "lat": 40.001, "lon": -74.001, "acc": 900}"#][k % 5], at: k)
        }
        lines.insert(#"{"device": "d0", "t": "\#(at(90_000))", "lat": 40, "lon": -74}"#, at: lines.count / 2)
        lines.append(clock(9000))
        return (requests.joined(separator: "\n"), lines)
    }

    static func time(_ line: String) -> String {
        guard let r = line.range(of: "\"t\": \"") else { return "" }
        return String(line[r.upperBound...].prefix(24))
    }

    static func options(seed: UInt64, margin: Double) -> StreamOptions {
        var o = StreamOptions(margin: margin, maxAccuracy: seed % 2 == 0 ? 200 : nil, initialFire: seed % 3 != 0,
                              now: seed % 4 == 3 ? nil : Timestamp.date(millis: 1_795_770_000_000))
        o.maxClockJump = 3_600
        return o
    }

    @Test(arguments: [(1, 0.0), (2, 5.0), (3, 25.0), (4, 0.0), (5, 10.0), (6, 0.0)] as [(UInt64, Double)])
    func sameOutputStateAndErrorsAsOneThread(seed: UInt64, margin: Double) {
        let (requests, lines) = Self.workload(seed: seed, margin: margin)
        let options = Self.options(seed: seed, margin: margin)
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false)
        #expect(one.output.split(separator: "\n").count > 300, "the workload must exercise the fences")
        #expect(one.errors.count >= 4)
        #expect(one.applied == 0)
        // Every device decided ahead.
        let all = Self.run(requests: requests, lines: lines, options: options, ahead: true)
        #expect(all.applied > lines.count / 2, "fixes applied from moves: \(all.applied) of \(lines.count) lines")
        #expect(all.output == one.output)
        #expect(all.errors == one.errors)
        #expect(all.state == one.state, "\(firstDifference(all.state, one.state))")
        // Part of them (the rest stepped by the evaluator meanwhile), and a share that moves
        // (down for good once deciding began: devices handed over stay).
        for shares in [[5], [8, 8, 7, 8, 6, 8, 5]] {
            let part = Self.run(requests: requests, lines: lines, options: options, ahead: true, shares: shares)
            #expect(part.applied > lines.count / 20, "shares \(shares): applied \(part.applied)")
            #expect(part.applied < all.applied)
            #expect(part.output == one.output, "shares \(shares)")
            #expect(part.errors == one.errors)
            #expect(part.state == one.state, "\(firstDifference(part.state, one.state))")
        }
        // The moves' bound reached (here one buffer holds every line's): each later fix is left
        // to the evaluator, and its device with it.
        let bounded = Self.run(requests: requests, lines: lines, options: options, ahead: true, movesLimit: 2_000)
        #expect(bounded.applied > 100 && bounded.applied < all.applied / 2, "applied \(bounded.applied)")
        #expect(bounded.output == one.output)
        #expect(bounded.state == one.state, "\(firstDifference(bounded.state, one.state))")
        // Without the quiet bounds on either side (every fence measured at every fix).
        let measured = Self.run(requests: requests, lines: lines, options: options, ahead: true, usesQuiet: false)
        #expect(measured.output == one.output)
        #expect(measured.state == one.state, "\(firstDifference(measured.state, one.state))")
    }

    /// A lookahead made half-way, from the state a stream left (links inside, pending dwells,
    /// one-shots fired, devices numbered, the default `addedAt` fixed), as after a resumed
    /// `run --state`: its copy starts from that state and its devices are the evaluator's.
    @Test(arguments: [7, 8] as [UInt64])
    func aLookaheadMadeHalfWayStartsFromTheState(seed: UInt64) {
        let (requests, lines) = Self.workload(seed: seed, margin: 5)
        let options = Self.options(seed: seed, margin: 5)
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false)
        for split in [1, 777, lines.count / 2] {
            let later = Self.run(requests: requests, lines: lines, options: options, ahead: true, plainLines: split)
            #expect(later.applied > (lines.count - split) / 2, "split \(split): applied \(later.applied)")
            #expect(later.output == one.output, "split \(split)")
            #expect(later.errors == one.errors)
            #expect(later.state == one.state, "\(firstDifference(later.state, one.state))")
        }
    }

    /// The default `addedAt` is the first line's `t` (no --now): the lookahead fixes it from the
    /// same line as the evaluator, a clock line included; a first line the fast scan leaves
    /// to the full parser turns the fences' lookahead off (the evaluator decides every fix).
    @Test func theDefaultAddedAtIsTheEvaluators() {
        let requests = circleRequest("a", radius: 150, rules: "\"dwell\": {\"inside\": 30}")
            + "\n" + circleRequest("b", radius: 400, repeats: false, rules: "\"crossings\": true")
        var lines: [String] = []
        for s in 0..<400 { lines.append(fix("d\(s % 3)", 10 + s, north: Double((s * 37) % 900) - 450)) }
        let noNow = StreamOptions(initialFire: true)
        for first in [clock(3), fix("d9", 5, north: 20), "{\"t\": \"\(at(4))\", \"device\": \"d9\", \"lat\": 40.0, \"lon\": -74.0}"] {
            let input = [first] + lines
            let one = Self.run(requests: requests, lines: input, options: noNow, ahead: false)
            let two = Self.run(requests: requests, lines: input, options: noNow, ahead: true)
            #expect(one.output.split(separator: "\n").count > 20)
            #expect(two.output == one.output, "first line \(first)")
            #expect(two.state == one.state, "\(firstDifference(two.state, one.state))")
            #expect(two.applied > 300, "first line \(first): applied \(two.applied)")
        }
    }

    /// A fix the lookahead counted but the evaluator refused (a clock jump past the limit)
    /// moved the copy's side and not the evaluator's: the next answer, made after it, must
    /// not be applied (the evaluator steps that fix itself). Applied, it would enter again a
    /// circle the device never left.
    @Test func anAnswerAfterARefusedFixIsNotApplied() {
        let requests = circleRequest("a", radius: 100, rules: "\"crossings\": true")
        var options = StreamOptions(now: Timestamp.date(millis: 1_795_770_000_000))
        options.maxClockJump = 60
        var lines = [fix("d", 10, north: 0), fix("d", 11, north: 5), fix("d", 12, north: 10)]
        lines.append(fix("d", 2000, north: 400))  // refused: 1988 s past the stream time
        for s in stride(from: 50, through: 2000, by: 50) { lines.append(clock(s)) }
        lines += [fix("d", 2001, north: 0), fix("d", 2002, north: 300)]
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false)
        let two = Self.run(requests: requests, lines: lines, options: options, ahead: true)
        #expect(one.errors.count == 1)
        #expect(one.output.components(separatedBy: "\"event\":\"exit\"").count == 2, "\(one.output)")
        #expect(one.output.components(separatedBy: "\"event\":\"enter\"").count == 1, "\(one.output)")
        #expect(two.output == one.output)
        #expect(two.state == one.state, "\(firstDifference(two.state, one.state))")
        #expect(two.applied >= 3)
    }

    /// The evaluator steps a device again after moves were applied for it (here the share
    /// left it): the bounds it took before describe where the device was then, not the path
    /// since. From the fix it last measured (300 m north) the device was moved ahead to 300 m
    /// south, then comes back 290 m north: the path from the south passes through the circle
    /// (a pass-through), though the fix is near the one measured.
    @Test func theEvaluatorTakingADeviceBackForgetsItsBounds() {
        let requests = circleRequest("a", radius: 100, rules: "\"crossings\": true")
        let options = StreamOptions(now: Timestamp.date(millis: 1_795_770_000_000))
        let lines = [fix("d", 10, north: 300), fix("d", 11, north: 301), fix("d", 20, north: -300), fix("d", 30, north: 290)]
        let one = Self.run(requests: requests, lines: lines, options: options, ahead: false)
        // The first two fixes stepped before the lookahead is made (the second takes bounds),
        // the third applied from it, the fourth left to the evaluator (a share of none).
        let two = Self.run(requests: requests, lines: lines, options: options, ahead: true, shares: [8, 8, 8, 0], plainLines: 2)
        #expect(one.output.components(separatedBy: "\"event\":\"enter\"").count == 3, "\(one.output)")
        #expect(two.applied == 1)
        #expect(two.output == one.output)
        #expect(two.state == one.state, "\(firstDifference(two.state, one.state))")
    }

    /// Who starts with the fences' geometry, and how the balance moves it: alone, fences with
    /// rules start with 6 eighths of the devices decided ahead; beside plain regions, none (the
    /// evaluator keeps them, as before the lookahead decided any). Work goes to the evaluator
    /// fences first, an eighth at a time, each move followed by one call sat out (the chunks
    /// in flight were decided before it); a fence share never comes back once deciding began.
    @Test func theShareOfFencesStartsByTheWorkAndOnlyShrinks() throws {
        let rules = circleRequest("a", radius: 150, rules: "\"dwell\": {\"inside\": 30}")
        var alone = try #require(StreamHarness(requests: rules).evaluator.makeLookahead())
        #expect(alone.fenceShare == 6)
        var hits: [RegionHit] = [], moves: [FenceMove] = []
        var scanner = LineScanner()
        let line = Array(fix("d", 1, north: 0).utf8)
        _ = line.withUnsafeBufferPointer { alone.decide($0, scanner.scan($0), hits: &hits, moves: &moves) }
        alone.rebalance(by: -2)
        #expect(alone.fenceShare == 5)
        alone.rebalance(by: -2)
        #expect(alone.fenceShare == 5)
        alone.rebalance(by: 2)
        #expect(alone.fenceShare == 5)
        alone.fenceShare = 8
        #expect(alone.fenceShare == 5)
        alone.rebalance(by: -1)
        #expect(alone.fenceShare == 4)
        // Beside plain regions the evaluator keeps the fences with rules.
        let mixed = try #require(StreamHarness(requests: rules + "\n" + circleRequest("b")).evaluator.makeLookahead())
        #expect(mixed.fenceShare == 0)
        // Both kinds ahead (the tests' way in): fences go first, then plain regions.
        var both = try #require(StreamHarness(requests: rules + "\n" + circleRequest("b")).evaluator.makeLookahead(fenceShare: 2))
        both.share = 8
        for (delta, fences, plain) in [(-1, 1, 8), (-2, 1, 8), (-2, 0, 8), (-2, 0, 6), (1, 0, 7)] {
            both.rebalance(by: delta)
            #expect(both.fenceShare == fences && both.share == plain, "after \(delta): \(both.fenceShare), \(both.share)")
        }
    }

}

/// Where two snapshots first differ, briefly (a whole snapshot is too long to read).
func firstDifference(_ a: EvaluatorSnapshot, _ b: EvaluatorSnapshot) -> String {
    if a.stats != b.stats { return "stats \(a.stats) / \(b.stats)" }
    if a.devices != b.devices {
        for (x, y) in zip(a.devices, b.devices) where x != y { return "device \(x) / \(y)" }
        return "devices \(a.devices.count) / \(b.devices.count)"
    }
    guard let fa = a.fences, let fb = b.fences else { return "fences \(a.fences == nil) / \(b.fences == nil)" }
    if fa.doneFences != fb.doneFences { return "done \(fa.doneFences) / \(fb.doneFences)" }
    for (x, y) in zip(fa.devices, fb.devices) where x != y {
        if x.links != y.links {
            let lx = Set(x.links), ly = Set(y.links)
            return "\(x.name) links only in first \(lx.subtracting(ly)), only in second \(ly.subtracting(lx))"
        }
        return "\(x.name) \(x.lastSeen) \(String(describing: x.lastFixTime)) / \(y.name) \(y.lastSeen) \(String(describing: y.lastFixTime))"
    }
    return a == b ? "none" : "elsewhere"
}
