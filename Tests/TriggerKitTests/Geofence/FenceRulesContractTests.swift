import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 13: the rules' JSON, their validation (the same for every way in), and their state
/// across snapshots, rebuilds and `run --state` restarts.
@Suite("fence rules: contract, validation, persistence")
struct FenceRulesContractTests {
    static func verdict(_ json: String) -> String {
        let set = RequestsFile.parse(json, file: "r", options: ValidationOptions(now: Timestamp.date(millis: 1_795_770_000_000)))
        return set.diagnostics.map(\.description).joined(separator: "\n")
    }

    @Test(arguments: [
        ("\"dwell\": {\"inside\": 60, \"outside\": 60}", "exactly one of \"inside\" or \"outside\""),
        ("\"dwell\": {\"inside\": 0}", "\"trigger.dwell.inside\" must be in (0"),
        ("\"dwell\": {\"inside\": \"long\"}", "\"trigger.dwell.inside\" must be a number"),
        ("\"accuracy\": {\"maximum\": 0}", "\"trigger.accuracy.maximum\" must be in (0, 10000]"),
        ("\"accuracy\": {}", "\"trigger.accuracy\" needs \"maximum\""),
        ("\"window\": {\"opens\": \"25:00\", \"closes\": \"18:00\"}", "\"trigger.window.opens\" must be a time"),
        ("\"window\": {\"opens\": \"08:00\"}", "needs \"opens\" and \"closes\""),
        ("\"window\": {\"opens\": \"08:00\", \"closes\": \"18:00\", \"weekdays\": [0]}", "weekdays are 1-7"),
        ("\"window\": {\"opens\": \"08:00\", \"closes\": \"18:00\", \"timeZone\": \"Mars/Olympus\"}", "unknown time zone \"Mars/Olympus\""),
        ("\"window\": {\"intervals\": [{\"start\": \"2026-12-01T10:00:00Z\", \"end\": \"2026-12-01T09:00:00Z\"}]}", "intervals[0]\" ends at or before it starts"),
        ("\"window\": {\"intervals\": [{\"start\": \"2026-12-01T08:00:00Z\", \"end\": \"2026-12-01T10:00:00Z\"}, {\"start\": \"2026-12-01T09:00:00Z\", \"end\": \"2026-12-01T11:00:00Z\"}]}",
         "intervals[1]\" starts before the previous interval ends"),
        ("\"window\": {\"intervals\": [{\"start\": \"2026-12-01T08:00:00Z\", \"end\": \"2026-12-01T10:00:00Z\"}], \"timeZone\": \"UTC\"}", "a zone applies to weekly hours only"),
    ])
    func badRulesAreRefusedNamingTheField(rules: String, message: String) {
        let v = Self.verdict(ruledRequest("x", rules: rules))
        #expect(v.contains("invalidTrigger"), "\(v)")
        #expect(v.contains(message), "\(v)")
    }

    @Test func combinationsThatCouldNeverWorkAreRefused() {
        let openingWithoutEntry = Self.verdict(ruledRequest("x", entry: false, rules: "\"window\": {\"opens\": \"08:00\", \"closes\": \"18:00\", \"enterAtOpening\": true}"))
        #expect(openingWithoutEntry.contains("\"trigger.window.enterAtOpening\" needs \"trigger.region.notifyOnEntry\": true"))
        let closingWithoutExit = Self.verdict(ruledRequest("x", exit: false, rules: "\"window\": {\"opens\": \"08:00\", \"closes\": \"18:00\", \"exitAtClosing\": true}"))
        #expect(closingWithoutExit.contains("\"trigger.window.exitAtClosing\" needs \"trigger.region.notifyOnExit\": true"))
        let oneShot = Self.verdict(ruledRequest("x", repeats: false, rules: "\"dwell\": {\"inside\": 60}"))
        #expect(oneShot.contains("would end at the enter before its dwell"))
        let silentCrossings = Self.verdict(ruledRequest("x", entry: false, exit: false, rules: "\"crossings\": true"))
        #expect(silentCrossings.contains("notifies on neither"))
        let expired = Self.verdict(circleRequest("x").replacingOccurrences(of: "\"trigger\"", with: "\"addedAt\": \"2026-12-02T00:00:00Z\", \"expiresAt\": \"2026-12-01T00:00:00Z\", \"trigger\""))
        #expect(expired.contains("invalidRequest") && expired.contains("\"expiresAt\""))
        // A one-shot dwell without the entry, and a dwell with both notifications off, are fine.
        #expect(Self.verdict(ruledRequest("x", entry: false, repeats: false, rules: "\"dwell\": {\"inside\": 60}")).isEmpty)
        #expect(Self.verdict(ruledRequest("x", entry: false, exit: false, rules: "\"dwell\": {\"outside\": 60}")).isEmpty)
    }

    @Test func expiresAtKeepsWhatItIsGiven() {
        var r = NotificationRequest(identifier: "x", content: NotificationContent(title: "x"))
        #expect(r.expiresAt == nil)
        for d in [Date(timeIntervalSince1970: 1_795_770_000.123), .distantFuture, Date(timeIntervalSince1970: -1e300)] {
            r.expiresAt = d
            #expect(r.expiresAt == d)
        }
        r.expiresAt = nil
        #expect(r.expiresAt == nil && r == NotificationRequest(identifier: "x", content: NotificationContent(title: "x")))
        // A NaN date is kept as NaN (not taken for "none") and refused by the validator.
        r.expiresAt = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(r.expiresAt != nil)
        #expect(throws: RequestError.self) { try RequestValidation.checkValue(r) }
    }

    @Test func theLibraryIsHeldToTheSameRules() {
        var t = LocationTrigger(region: .circular(CircularRegion(identifier: "r", center: Coordinate(latitude: 40, longitude: -74), radius: 100)), repeats: true)
        t.rules.window = FenceWindow(schedule: .weekly(weekdays: [], opens: .init(hour: 24), closes: .init(hour: 6)))
        let r = NotificationRequest(identifier: "x", content: NotificationContent(title: "x"), trigger: .location(t))
        #expect(throws: RequestError.self) { try RequestValidation.checkValue(r) }
        t.rules.window = nil
        t.rules.dwell = FenceDwell(side: .inside, duration: .nan)
        #expect(throws: RequestError.self) { try RequestValidation.checkValue(NotificationRequest(identifier: "x", content: NotificationContent(title: "x"), trigger: .location(t))) }
    }

    @Test func rulesSurviveTheirJSON() throws {
        let json = ruledRequest("x", device: "d", expiresAt: "2027-01-01T00:00:00Z",
                                rules: "\"dwell\": {\"outside\": 90}, \"accuracy\": {\"maximum\": 35}, \"crossings\": true, "
                                    + "\"window\": {\"weekdays\": [2, 6], \"opens\": \"07:30\", \"closes\": \"19:00:30\", \"timeZone\": \"Europe/Paris\", \"enterAtOpening\": true}")
        var warnings: [String] = []
        let r = try NotificationRequest(json: try JSONValue.parse(json), warnings: &warnings)
        #expect(warnings.isEmpty, "\(warnings)")
        guard case .location(let t) = r.trigger else { Issue.record("not a location trigger"); return }
        #expect(t.rules.dwell == FenceDwell(side: .outside, duration: 90))
        #expect(t.rules.accuracy == FenceAccuracy(maximum: 35))
        #expect(t.rules.crossings)
        #expect(t.rules.window?.schedule == .weekly(weekdays: [2, 6], opens: .init(hour: 7, minute: 30), closes: .init(hour: 19, second: 30)))
        #expect(r.expiresAt == Timestamp.date(millis: Timestamp.parseMillis("2027-01-01T00:00:00Z") ?? 0))
        let again = try NotificationRequest(json: r.json, warnings: &warnings)
        #expect(again == r)
        // Without rules, a trigger is Apple's and encodes no rule members.
        let plain = try NotificationRequest(json: try JSONValue.parse(circleRequest("p")), warnings: &warnings)
        guard case .location(let p) = plain.trigger, case .object(let o)? = plain.json.objectValue?["trigger"] else { Issue.record("shape"); return }
        #expect(!p.hasRules)
        #expect(Set(o.keys) == ["type", "region", "repeats"])
    }

    @Test func theDemoShowsEveryFeatureAsCheckedIn() throws {
        let r = try SessionReplayTests.run(["run", "--requests", Fixture.path("demo/fences.ndjson")], input: Fixture.path("demo/fence-fixes.ndjson"))
        #expect(r.status == 0)
        let expected = try Fixture.text("demo/fences.expected.ndjson").split(separator: "\n").map(String.init)
        #expect(r.out == expected)
        for feature in ["\"dwellInside\"", "\"office-hours\",\"date\":\"2026-11-23T14:00:00Z\"", "16:20:07.298Z", "\"park-careful\"", "\"hourly-nudge\""] {
            #expect(r.out.contains { $0.contains(feature) }, "\(feature)")
        }
        #expect(!r.out.contains { $0.contains("popup-store") })
        #expect(r.err.contains("ignored-accuracy 1"))
    }

    // MARK: state

    static let requests = [
        ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 300}"),
        ruledRequest("toll", radius: 20, rules: "\"crossings\": true"),
        circleRequest("plain"),
    ].joined(separator: "\n")

    static let lines = [fix("d", 0, north: 500), fix("d", 10, north: 0), fix("e", 20, north: -400), fix("e", 30, north: 400),
                        clock(200), fix("d", 250, north: 5), clock(400), fix("d", 500, north: 600), fix("d", 600, north: 0), clock(1000)]

    @Test func aSnapshotMidDwellRestoresEverything() throws {
        var whole = StreamHarness(requests: Self.requests)
        let expected = whole.feed(Self.lines)
        // d: plain and toll enter (10 s), cafe dwell (310), plain and toll exit (500), enter
        // again (600), cafe dwell (900); e: a pass-through of toll (24.75 to 25.25 s).
        #expect(expected.count == 10, "\(expected)")
        #expect(expected.contains { $0.contains("\"date\":\"\(at(24, ms: 750))\"") && $0.contains("\"device\":\"e\"") })
        for cut in 1..<Self.lines.count {
            var first = StreamHarness(requests: Self.requests)
            var out = first.feed(Array(Self.lines[..<cut]))
            let snap = first.evaluator.snapshot()
            let data = try JSONEncoder().encode(snap)
            var second = StreamHarness(requests: Self.requests)
            try second.evaluator.restore(try JSONDecoder().decode(EvaluatorSnapshot.self, from: data))
            out += second.feed(Array(Self.lines[cut...]))
            #expect(out == expected, "cut at line \(cut)")
        }
    }

    /// Runs ``lines`` cut at every line from the second on: the first part through one harness,
    /// then `damage` (given it, returning the harness to go on with and how many devices it
    /// damaged), then the rest. Expects every cut to give the uninterrupted run's events, and
    /// more than four damaged devices in all.
    static func expectWholeAfterDamage(_ damage: (inout StreamHarness, Int) throws -> (StreamHarness, Int)) throws {
        var whole = StreamHarness(requests: requests)
        let expected = whole.feed(lines)
        var damaged = 0
        for cut in 2..<lines.count {
            var first = StreamHarness(requests: requests)
            var out = first.feed(Array(lines[..<cut]))
            var (next, n) = try damage(&first, cut)
            damaged += n
            out += next.feed(Array(lines[cut...]))
            #expect(out == expected, "cut at line \(cut)")
        }
        #expect(damaged > 4)
    }

    /// A snapshot whose device lists a link twice (a damaged state file, say) is read with the
    /// link once: the run goes on as if it had been whole (the fix loop walks links alongside
    /// the candidate fences, and a repeated link would have stopped that walk).
    @Test func aSnapshotWithARepeatedLinkRestoresIt() throws {
        try Self.expectWholeAfterDamage { first, cut in
            var snap = first.evaluator.snapshot()
            var fences = try #require(snap.fences, "no fence snapshot at cut \(cut)")
            var n = 0
            for i in fences.devices.indices where !fences.devices[i].links.isEmpty {
                fences.devices[i].links += fences.devices[i].links.reversed()
                n += 1
            }
            snap.fences = fences
            let second = StreamHarness(requests: Self.requests)
            try second.evaluator.restore(snap)
            return (second, n)
        }
    }

    /// The fix loop's own guard: a device whose links list a fence twice (whatever put them
    /// there) is stepped with the first, not looped over forever.
    @Test func theFixLoopPassesARepeatedLink() throws {
        try Self.expectWholeAfterDamage { h, _ in
            let g = try #require(h.evaluator.guarded)
            var n = 0
            for d in g.links.indices where !g.links[d].isEmpty {
                g.links[d] = g.links[d].flatMap { [$0, $0] }
                n += 1
            }
            return (h, n)
        }
    }

    @Test func aRebuildKeepsAPendingDwell() {
        var h = StreamHarness(requests: Self.requests)
        var out = h.feed(Array(Self.lines[..<3]))
        let added = NotificationRequest(identifier: "new", content: NotificationContent(title: "n"), trigger: .immediate)
        let next = h.evaluator.migrated(to: h.evaluator.requests + [added])
        var events: [FiredEvent] = []
        var w = JSONWriter()
        for line in Self.lines[3...] {
            events.removeAll()
            try? next.process(StreamLineParser.parse(line), into: &events)
            for e in events { next.write(e, format: .json, to: &w) }
        }
        out += w.text.split(separator: "\n").map(String.init)
        // The dwell begun before the rebuild fires at 310 s.
        #expect(out.contains { $0.contains("\"dwellInside\"") && $0.contains(at(310)) })
    }

    @Test func runWithStateResumesADwellAcrossARestart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fence-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let req = dir.appendingPathComponent("r.ndjson"), part = dir.appendingPathComponent("part.ndjson"), all = dir.appendingPathComponent("all.ndjson")
        try Self.requests.write(to: req, atomically: true, encoding: .utf8)
        try (Self.lines[..<4].joined(separator: "\n") + "\n").write(to: part, atomically: true, encoding: .utf8)
        try (Self.lines.joined(separator: "\n") + "\n").write(to: all, atomically: true, encoding: .utf8)
        let state = dir.appendingPathComponent("state.sqlite").path
        let uninterrupted = try SessionReplayTests.run(["run", "--requests", req.path], input: all.path)
        let before = try SessionReplayTests.run(["run", "--requests", req.path, "--state", state], input: part.path)
        let after = try SessionReplayTests.run(["run", "--requests", req.path, "--state", state], input: all.path)
        #expect(before.status == 0 && after.status == 0, "\(before.err) \(after.err)")
        #expect(before.out + after.out == uninterrupted.out)
        #expect(after.out.contains { $0.contains("\"dwellInside\"") })
    }

    @Test func pendingInAStateFileForgetsExpiredRequests() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fence-pending-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let req = dir.appendingPathComponent("r.ndjson"), input = dir.appendingPathComponent("in.ndjson")
        let requests = [
            ruledRequest("popup", expiresAt: at(100), rules: "\"dwell\": {\"inside\": 60}"),
            ruledRequest("mine", repeats: false, device: "d", rules: "\"crossings\": true"),
            circleRequest("plain").replacingOccurrences(of: "\"trigger\"", with: "\"expiresAt\": \"\(at(50))\", \"trigger\""),
            ruledRequest("stays", rules: "\"dwell\": {\"inside\": 60}"),
        ]
        try requests.joined(separator: "\n").write(to: req, atomically: true, encoding: .utf8)
        try ([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(200)].joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let state = dir.appendingPathComponent("state.sqlite").path
        let run = try SessionReplayTests.run(["run", "--requests", req.path, "--state", state], input: input.path)
        #expect(run.status == 0, "\(run.err)")
        let pending = try SessionReplayTests.run(["pending", "--state", state], input: input.path)
        let ids = pending.out.compactMap { (try? JSONValue.parse($0))?.objectValue?["identifier"]?.stringValue }
        // popup and plain expired; mine (a device's one-shot) entered at 10 s and is done.
        #expect(ids == ["stays"])
    }
}
