import Foundation
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// A clock step's catch-up (every fire of every repeating trigger since the last line) is
/// handed to `run`'s writer a chunk at a time (``StreamEvaluator/catchUpSink``) instead of
/// being held whole until the line ends: 4 per-second triggers after a week's step held
/// hundreds of MB. The events, and their order, must be exactly those of the step made whole.
@Suite("Catch-up: handed out in chunks, the same events in the same order")
struct CatchUpSinkTests {
    static let t0: Int64 = 1_795_770_000_000

    /// Triggers with equal and unequal periods (ties at most dates), some added in place after
    /// the stream started (no identifier rank: their ties are ordered at each pop), one
    /// device-scoped; a 12-hour step; with a 6-hour catch-up window, the first half of the
    /// step is coalesced (one fire per trigger) and the rest comes fire by fire.
    static func evaluator(sink: CatchUpSink?, window: TimeInterval?, chunk: Int = 4096) -> StreamEvaluator {
        func interval(_ id: String, _ seconds: Double, device: String? = nil) -> NotificationRequest {
            NotificationRequest(identifier: id, content: NotificationContent(title: id),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: seconds, repeats: true)),
                                device: device, addedAt: Timestamp.date(millis: t0))
        }
        var built = (0..<24).map { interval("b\(String(format: "%02d", $0))", [60, 60, 90, 61][$0 % 4]) }
        built.append(interval("scoped", 60, device: "phone"))
        var options = StreamOptions()
        options.maxClockJump = nil
        options.catchUpWindow = window
        let e = StreamEvaluator(requests: built, options: options)
        e.catchUpSink = sink
        e.catchUpChunk = chunk
        var none: [FiredEvent] = []
        try? e.process(.clock(t0), into: &none)
        // Appended in place: identifiers that sort among the built ones.
        for (k, seconds) in [60.0, 90, 60, 120].enumerated() { _ = e.appendTimeRequest(interval("b0\(k)x", seconds)) }
        return e
    }

    /// With the chunk `run` uses, and with chunks of 7 fires (boundaries everywhere: among the
    /// coalesced fires, between them and the others, next to runs of one date).
    @Test(arguments: [nil, 6 * 3600] as [TimeInterval?], [4096, 7])
    func aLongCatchUpComesOutAsTheWholeStep(window: TimeInterval?, chunk: Int) throws {
        // Whole: the step's events rendered after it.
        let whole = Self.evaluator(sink: nil, window: window)
        var events: [FiredEvent] = []
        try whole.process(.clock(Self.t0 + 43_200_000), into: &events)
        var expected = JSONWriter()
        for e in events { whole.write(e, format: .json, to: &expected) }
        // In chunks: rendered as handed over, then what the step returned.
        var handed = JSONWriter(), chunks: [Int] = []
        let chunked = Self.evaluator(sink: { e, fired in
            chunks.append(fired.count)
            for f in fired { e.write(f, format: .json, to: &handed) }
            fired.removeAll()
        }, window: window, chunk: chunk)
        var rest: [FiredEvent] = []
        try chunked.process(.clock(Self.t0 + 43_200_000), into: &rest)
        for e in rest { chunked.write(e, format: .json, to: &handed) }

        #expect(events.count > 7_000, "\(events.count) fires")
        #expect(chunks.count >= events.count / (chunk + 29) - 1, "\(chunks.count) chunks")
        // The bound: a chunk, plus at most one date's fires or the coalesced ones (29 triggers).
        #expect(chunks.allSatisfy { $0 <= chunk + 29 }, "\(chunks.max() ?? 0)")
        #expect(rest.count <= chunk + 29)
        let lines = { (w: JSONWriter) in String(decoding: w.bytes, as: UTF8.self).split(separator: "\n") }
        let got = lines(handed), want = lines(expected)
        #expect(got.count == want.count)
        let first = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first == nil, "line \(first ?? 0): \(first.map { got[$0] } ?? "") instead of \(first.map { want[$0] } ?? "")")
        #expect(chunked.stats.fires == whole.stats.fires)
    }

    /// Every fire of a step comes in date order, ties by identifier, coalesced ones too: they
    /// came in the order of their earliest fires (a line dated 10:05:30 before one dated
    /// 10:02), and in yet another once a trigger was added in place (found by a helper).
    /// Random triggers, built and added in place, with random first fires; both policies.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func everyStepIsInDateOrderTiesByIdentifier(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        func random(_ id: String) -> NotificationRequest {
            let trigger: NotificationTrigger = Bool.random(using: &rng)
                ? .timeInterval(TimeIntervalTrigger(timeInterval: [60, 90, 120, 300, 600].randomElement(using: &rng)!, repeats: Int.random(in: 0..<4, using: &rng) > 0))
                : .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "UTC"), second: [0, 15, 30].randomElement(using: &rng)!), repeats: true))
            return NotificationRequest(identifier: id, content: NotificationContent(title: id), trigger: trigger,
                                       addedAt: Timestamp.date(millis: Self.t0 + Int64.random(in: 0..<300, using: &rng) * 1000))
        }
        let ids = (0..<40).map { "t\($0)" }.shuffled(using: &rng)
        for coalesce in [true, false] {
            var options = StreamOptions()
            options.maxClockJump = nil
            options.catchUp = coalesce ? .coalesced : .everyFire
            options.catchUpWindow = 600
            let e = StreamEvaluator(requests: ids[..<25].map(random), options: options)
            var events: [FiredEvent] = []
            try e.process(.clock(Self.t0), into: &events)
            for id in ids[25...] { _ = e.appendTimeRequest(random(id)) }
            events.removeAll()
            try e.process(.clock(Self.t0 + 3_600_000), into: &events)
            let keys = events.map { ($0.date, e.identifier(of: $0)) }
            #expect(events.count >= 40, "\(events.count)")
            #expect(events.contains { $0.count > 1 })
            let sorted = zip(keys, keys.dropFirst()).allSatisfy { a, b in a.0 < b.0 || (a.0 == b.0 && ExactKey(a.1) < ExactKey(b.1)) }
            #expect(sorted, "seed \(seed), coalesce \(coalesce): \(keys.prefix(12))")
        }
    }
}
