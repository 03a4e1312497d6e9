import Foundation
import GRDB
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

@Suite("Durable run: crash and resume")
struct DurableRunTests {
    static let optionSets: [StreamOptions] = [StreamOptions(), StreamOptions(margin: 20), StreamOptions(dwell: 30)]

    /// The contract's promise, in process: crash at many random points (dropping the
    /// uncommitted batch, with or without its output having reached stdout), restart on the
    /// same full input, and compare with an uninterrupted run.
    @Test(arguments: 1...6)
    func resumesAfterCrashesLikeAnUninterruptedRun(seed: UInt64) throws {
        let options = Self.optionSets[Int(seed) % Self.optionSets.count]
        let lines = storeTestStream(count: 500, seed: seed)
        let ref = referenceOutput(lines, options: options)
        let refAll = ref.perLine.flatMap { $0 }
        #expect(Set(refAll).count == refAll.count, "reference events are distinct")
        #expect(refAll.count > 20, "the stream exercises the triggers")

        let tmp = TempStorePath(); defer { tmp.cleanup() }
        var rng = SeededGenerator(seed: seed &+ 1000)
        var delivered: [String] = []  // what a consumer of stdout saw, across restarts
        var crashes = 0
        while true {
            let run = try DurableRun(evaluator: makeEvaluator(options: options), store: StateStore(path: tmp.path),
                                     batchLines: Int.random(in: 1...30, using: &rng), batchInterval: .seconds(3600))
            let start = run.resumePosition
            let finishing = crashes >= 15
            let stop = finishing ? lines.count : Int.random(in: start...lines.count, using: &rng)
            let out = try feedDurable(run, lines[start..<stop])
            // From its restart point on, the run emits exactly what the uninterrupted one did.
            #expect(out == Array(ref.perLine[start..<stop]), "segment \(start)..<\(stop)")
            if finishing {
                try run.commit()
                delivered += out.flatMap { $0 }
                #expect(run.evaluator.stats == ref.evaluator.stats)
                break
            }
            // Killed: the uncommitted batch is lost; its output may or may not have been flushed.
            let committed = run.committedPosition - start
            delivered += out[..<committed].flatMap { $0 }
            if Bool.random(using: &rng) { delivered += out[committed...].flatMap { $0 } }
            crashes += 1
        }
        // Every reference event at least once, nothing else, and dropping repeats gives the
        // reference in order.
        #expect(Set(delivered) == Set(refAll))
        var seen = Set<String>()
        #expect(delivered.filter { seen.insert($0).inserted } == refAll)

        // The delivered log holds each event once, in order; pending matches the reference.
        let store = try StateStore(path: tmp.path)
        var w = JSONWriter()
        for e in try store.deliveredEvents() { e.write(to: &w) }
        #expect(w.text.split(separator: "\n").map(String.init) == refAll)
        let flags = ref.evaluator.pendingFlags()
        let expectedPending = ref.evaluator.requests.indices.filter { flags[$0] }.map { i -> String in
            var jw = JSONWriter()
            jw.value(ref.evaluator.requests[i].json)
            return jw.text
        }
        #expect(try store.pendingRequestsJSON() == expectedPending)
    }

    /// A store reopened in the process that held it waits while the lock is still shared (a
    /// child forked meanwhile holds the open file until it execs): `resumesAfterCrashes...`
    /// failed now and then with "in use by another run (pid <its own>)" while other tests
    /// started processes. Here a second open of the file takes the lock's place for 200 ms.
    @Test(.timeLimit(.minutes(1))) func aLockThisProcessStillSharesIsWaitedFor() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        do {
            let first = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            try first.commit()
        }
        let fd = open(tmp.path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { close(fd) }
        let start = Date()
        let second = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        #expect(Date().timeIntervalSince(start) >= 0.15)
        try second.commit()
    }

    /// A lock this process never held (another process's) is not waited for.
    @Test func anotherProcesssLockIsRefusedAtOnce() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        do {
            // Made without taking the writer lock: this process never held it.
            let store = try StateStore(path: tmp.path)
            _ = store
        }
        let fd = open(tmp.path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        defer { close(fd) }
        let start = Date()
        #expect(throws: StateStoreError.self) { try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path)) }
        #expect(Date().timeIntervalSince(start) < 1)
    }

    @Test func restartAfterTheEndEmitsNothing() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let lines = storeTestStream(count: 200, seed: 3)
        let firstStats: StreamStats
        do {
            // The first run ends (its lock is released) before the second opens.
            let first = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            _ = try feedDurable(first, lines[...])
            try first.commit()
            firstStats = first.evaluator.stats
        }
        let second = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        #expect(second.resumePosition == lines.count)
        #expect(try feedDurable(second, lines[lines.count...]).isEmpty)
        #expect(second.evaluator.stats == firstStats)
    }

    @Test func pendingAndDeliveredListings() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let lines = [
            fix("d1", 0, north: 500),  // first state: outside everything
            fix("d1", 10, north: 0),   // enters a, b (shared one-shot), c (d1's one-shot)
            "{\"t\": \"\(at(500))\"}",  // once (400 s) and tick (90 s) fire
        ]
        let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        let out = try feedDurable(run, lines[...]).flatMap { $0 }
        try run.commit()
        let store = try StateStore(path: tmp.path)
        let pending = try store.pendingRequestsJSON().compactMap { json -> String? in
            guard case .object(let o)? = try? JSONValue.parse(json) else { return nil }
            return o["identifier"]?.stringValue
        }
        // c (device-scoped one-shot), once and now fired: no longer pending. b is shared: it
        // can still fire for other devices.
        #expect(pending == ["a", "b", "e", "tick", "half"])
        var w = JSONWriter()
        for e in try store.deliveredEvents() { e.write(to: &w) }
        #expect(w.text.split(separator: "\n").map(String.init) == out)
        #expect(out.contains { $0.contains("\"identifier\":\"c\"") && $0.contains("\"event\":\"enter\"") })
        #expect(out.contains { $0.contains("\"identifier\":\"once\"") })
    }

    /// A resumed run whose time fires were all suppressed (the device denied) kept the
    /// cursors of the run before it: `pending` showed a next fire already past (08:07 where
    /// one run shows 08:12; a helper's find). Suppressed fires move the cursors too.
    @Test func suppressedTimeFiresMoveTheSavedCursors() throws {
        let requests = #"{"identifier": "m", "device": "d", "addedAt": "2026-11-23T08:00:00Z", "content": {"title": "M"}, "#
            + #""trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        let lines = [#"{"t": "2026-11-23T08:00:00Z"}"#,
                     #"{"device": "d", "t": "2026-11-23T08:01:30Z", "settings": {"authorizationStatus": "denied"}}"#]
            + (2...11).map { #"{"t": "2026-11-23T08:\#(String(format: "%02d", $0)):00Z"}"# }
        func nextFire(_ path: String) throws -> String? {
            guard case .object(let o) = try #require(StateStore(path: path).pendingRequestsDetailed().first) else { return nil }
            return o["nextFire"]?.stringValue
        }
        let split = TempStorePath(), whole = TempStorePath()
        defer { split.cleanup(); whole.cleanup() }
        for (path, pieces) in [(split.path, [0..<7, 7..<12]), (whole.path, [0..<12])] {
            for piece in pieces {
                let run = try DurableRun(evaluator: makeEvaluator(requests), store: StateStore(path: path))
                #expect(run.resumePosition == piece.lowerBound)
                _ = try feedDurable(run, lines[piece])
                try run.commit()
            }
        }
        let wholeNext = try nextFire(whole.path), splitNext = try nextFire(split.path)
        #expect(wholeNext == "2026-11-23T08:12:00Z", "\(String(describing: wholeNext))")
        #expect(splitNext == wholeNext, "\(String(describing: splitNext))")
    }

    @Test func aBatchIsDueAfterItsLines() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path), batchLines: 5,
                                 batchInterval: .seconds(3600))
        for _ in 0..<4 { run.skipLine() }
        #expect(!run.isBatchDue)
        run.skipLine()
        #expect(run.isBatchDue)
        try run.commit()
        #expect(run.committedPosition == 5)
        #expect(try StateStore(path: tmp.path).inputPosition() == 5)
    }
}
