import Foundation
import GRDB
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

/// A saved state is input too: a flipped byte or a hand edit of a `--state` file (or of a
/// center snapshot) is refused naming the damaged field, never restored into a trap later
/// (a date past year 9999 formatted, a negative slot used as an index, a counter at
/// `Int.max` increased) or into silent misbehaviour.
@Suite("store: a damaged saved state is refused, never trapped on")
struct DamagedStateTests {
    /// Requests with every kind of saved state: time triggers (queued fires), shared and
    /// device-scoped one-shots (done slots, fired-once lists), dwell (pending crossings,
    /// fence links with due dates), crossings (last fixes).
    static let requests = storeTestRequests + "\n" + [
        ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 300}"),
        ruledRequest("toll", radius: 20, rules: "\"crossings\": true"),
    ].joined(separator: "\n")
    static let options = StreamOptions(dwell: 30)

    static let lines = [fix("d1", 0, north: 500), fix("d1", 10, north: 0), fix("d2", 20, north: -400), fix("d2", 30, north: 10),
                        clock(200), fix("d1", 250, north: 5), fix("d3", 260, north: 20), clock(400), fix("d1", 500, north: 600)]
    static let rest = [fix("d1", 600, north: 0), fix("d2", 700, north: 900), clock(1000), fix("d3", 1100, north: 0), clock(4000)]

    static func harness() -> StreamHarness { StreamHarness(requests: requests, options: options) }

    /// The state after ``lines``: every part of it is filled.
    static func saved() -> EvaluatorSnapshot {
        var h = harness()
        _ = h.feed(lines)
        return h.evaluator.snapshot()
    }

    typealias Damage = (what: String, damage: @Sendable (inout EvaluatorSnapshot) -> Void)

    /// The first fence device with links.
    static func linked(_ s: EvaluatorSnapshot) -> Int { s.fences!.devices.firstIndex { !$0.links.isEmpty }! }

    /// One damage per field, each a value no evaluator writes, with the words the refusal
    /// must contain.
    static let damages: [Damage] = {
        var list: [Damage] = []
        for v in [Int64.max, .min, RequestLimits.latestMillis + 1, RequestLimits.earliestMillis - 1] {
            list.append(("streamTime", { $0.streamTime = v }))
            list.append(("defaultAddedAt", { $0.defaultAddedAt = v }))
            list.append(("queued fire", { $0.queuedFires[0].date = v }))
            list.append(("pendingSince", { $0.devices[$0.devices.firstIndex { !$0.pendingSince.isEmpty }!].pendingSince[0] = v }))
            list.append(("lastFixTime", { $0.fences!.devices[0].lastFixTime = v }))
            list.append(("since", { $0.fences!.devices[linked($0)].links[0].since = v }))
        }
        // Int64.min means "never" for these, and Int64.max / Int64.min are a link's "no dwell" / "fired".
        for v in [Int64.max, RequestLimits.latestMillis + 1, RequestLimits.earliestMillis - 1] {
            list.append(("lastAccepted", { $0.devices[0].lastAccepted = v }))
            list.append(("lastUsed", { $0.devices[0].lastUsed = v }))
            list.append(("lastSeen", { $0.fences!.devices[0].lastSeen = v }))
        }
        for v in [RequestLimits.latestMillis + 1, RequestLimits.earliestMillis - 1, Int64.max - 1] {
            list.append(("due", { $0.fences!.devices[linked($0)].links[0].due = v }))
        }
        for v in [Int32(-1), .min, .max, 8] {  // 8 location requests: slots 0...7
            list.append(("doneLocationSlots", { $0.doneLocationSlots.append(v) }))
            list.append(("inside", { $0.devices[0].inside.append(v) }))
            list.append(("pendingSlots", { $0.devices[0].pendingSlots.append(v); $0.devices[0].pendingSince.append(1_795_770_000_000) }))
            list.append(("firedOnce", { $0.devices[0].firedOnce.append(v) }))
        }
        for v in [Int32(-1), .max, 2] {  // 2 fences with rules
            list.append(("doneFences", { $0.fences!.doneFences.append(v) }))
            list.append(("links fence", { $0.fences!.devices[linked($0)].links[0].fence = v }))
        }
        list.append(("pending slots and", { $0.devices[0].pendingSince.append(1_795_770_000_000) }))
        // A request scoped to d1 ("c", location slot 2) in d2's state: a flipped byte in a
        // name moved it there.
        list.append(("names location slot 2, a request of device \"d1\"", { s in
            s.devices[s.devices.firstIndex { $0.name == "d2" }!].inside.append(2)
        }))
        // A queued fire given twice fired twice; one past the time triggers was dropped.
        list.append(("queuedFires names time slot 0 of 4 twice", { $0.queuedFires.append($0.queuedFires.first { $0.slot == 0 }!) }))
        list.append(("queuedFires names time slot 4 of 4", { $0.queuedFires[0].slot = 4 }))
        list.append(("queuedFires names time slot -1 of 4", { $0.queuedFires[0].slot = -1 }))
        // A dwell due date on `toll` (fence 1, crossings only) fired a dwell event for it.
        list.append(("due (fence 1) on a fence without dwell", {
            $0.fences!.devices[0].links.append(.init(fence: 1, inside: false, since: 1_795_770_000_000, due: 1_795_770_500_000, firedOnce: false))
        }))
        for v in [Int.max, -1, (1 << 53) + 1] {
            list.append(("stats.lines", { $0.stats.lines = v }))
            list.append(("stats.fires", { $0.stats.fires = v }))
            list.append(("stats.ignoredAccuracy", { $0.stats.ignoredAccuracy = v }))
        }
        for v in [Double.nan, .infinity, 1e300, 90.5] {
            list.append(("lastLatitude", { $0.fences!.devices[0].lastLatitude = v }))
            list.append(("lastLongitude", { $0.fences!.devices[0].lastLongitude = v * 2 }))
        }
        return list
    }()

    @Test func theStateUnderTestHasEveryPart() throws {
        let s = Self.saved()
        #expect(s.queuedFires.count >= 2 && !s.doneLocationSlots.isEmpty && s.devices.count == 3)
        #expect(s.devices.contains { !$0.pendingSince.isEmpty } && s.devices.contains { !$0.firedOnce.isEmpty })
        let fences = try #require(s.fences)
        #expect(fences.devices.contains { !$0.links.isEmpty && $0.links.contains { $0.due != .max } })
        #expect(fences.devices[0].lastFixTime != nil)
        // Undamaged, it restores and goes on as the uninterrupted run.
        var whole = Self.harness(), first = Self.harness()
        let expected = Array(whole.feed(Self.lines + Self.rest).dropFirst(first.feed(Self.lines).count))
        var restored = Self.harness()
        try restored.evaluator.restore(s)
        #expect(restored.feed(Self.rest) == expected)
        #expect(!expected.isEmpty)
    }

    @Test func everyDamagedFieldIsRefusedByName() throws {
        #expect(Self.damages.count > 60)
        for (k, d) in Self.damages.enumerated() {
            var snap = Self.saved()
            d.damage(&snap)
            let h = Self.harness()
            let before = h.evaluator.snapshot()
            do {
                try h.evaluator.restore(snap)
                Issue.record("damage \(k) (\(d.what)) was restored")
            } catch .damaged(let reason) {
                #expect(reason.contains(d.what), "damage \(k): \(reason)")
            } catch {
                Issue.record("damage \(k) (\(d.what)): \(error)")
            }
            // Nothing was restored.
            #expect(h.evaluator.snapshot() == before, "damage \(k) (\(d.what)) changed the evaluator")
        }
    }

    /// The center restores the same state: its error says what is damaged.
    @Test func theCenterRefusesADamagedSnapshotNamingTheField() async throws {
        let t0 = Timestamp.date(millis: 1_795_770_000_000)
        let center = try TriggerCenter(clock: ManualClock(t0))
        var warnings: [String] = []
        _ = try await center.add(NotificationRequest(json: try JSONValue.parse(circleRequest("a")), warnings: &warnings))
        _ = try await center.receive(LocationFix(device: "d1", date: t0, latitude: 40, longitude: -74))
        var snapshot = await center.snapshot()
        #expect(snapshot.evaluator.devices.map(\.name) == ["d1"])
        var badDevice = snapshot
        badDevice.evaluator.devices[0].lastAccepted = .max
        let error = #expect(throws: CenterError.self) { try TriggerCenter(restoring: badDevice, clock: ManualClock(t0)) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("damaged state: device \"d1\" lastAccepted is 9223372036854775807"), "\(String(describing: error))")
        // The center's own counters: one at Int.max trapped at the next fix.
        var badCounter = snapshot
        badCounter.statistics.fixes = .max
        let counter = #expect(throws: CenterError.self) { try TriggerCenter(restoring: badCounter, clock: ManualClock(t0)) }
        #expect("\(counter.map { "\($0)" } ?? "")".contains("damaged statistics: fixes is 9223372036854775807"), "\(String(describing: counter))")
    }

    /// Random bytes flipped in the fences' binary blob: each is refused as unreadable or
    /// damaged, or (a flip to another valid value) restores and runs on without trapping.
    @Test func flippedBytesOfTheFenceBlobNeverTrap() throws {
        let saved = Self.saved()
        let blob = try #require(saved.fences).binary
        var rng = SeededGenerator(seed: 41)
        var refused = 0, restored = 0
        for _ in 0..<400 {
            var bytes = blob
            for _ in 0...rng.below(3) { bytes[rng.below(bytes.count)] ^= UInt8(1 << rng.below(8)) }
            guard let fences = FenceSnapshot(binary: bytes) else { refused += 1; continue }
            var snap = saved
            snap.fences = fences
            var h = Self.harness()
            do throws(SnapshotRefusal) {
                try h.evaluator.restore(snap)
            } catch {
                refused += 1
                continue
            }
            restored += 1
            for line in h.feed(Self.rest) {
                // Every event it writes carries a date of the supported range.
                guard case .object(let o)? = try? JSONValue.parse(line), let date = o["date"]?.stringValue,
                      let ms = Timestamp.parseMillis(date) else { Issue.record("unreadable event \(line)"); continue }
                #expect(RequestLimits.isSupported(millis: ms))
            }
        }
        #expect(refused > 50 && restored > 50, "refused \(refused), restored \(restored)")
    }
}

/// The same through a `--state` file: values of the wrong type or range in any table, as a
/// hand edit leaves them, refuse the resume with a ``StateStoreError`` (the run stops with
/// its message) instead of a GRDB conversion trap or a restored misbehaviour.
@Suite("store: a damaged state file is refused")
struct DamagedStateFileTests {
    static let edits: [(sql: String, words: String)] = [
        ("UPDATE meta SET inputPosition = -1", "inputPosition is -1"),
        ("UPDATE meta SET inputPosition = 'many'", "inputPosition"),
        ("UPDATE meta SET streamTime = 9223372036854775807", "streamTime is 9223372036854775807"),
        ("UPDATE meta SET streamTime = 'noon'", "streamTime"),
        ("UPDATE meta SET defaultAddedAt = x'00'", "defaultAddedAt"),
        ("UPDATE meta SET stats = 7", "stats"),
        ("UPDATE meta SET stats = '{\"lines\": 9223372036854775807}'", "stats.lines is 9223372036854775807"),
        ("UPDATE meta SET requestsFingerprint = 12", "different requests"),
        ("UPDATE meta SET options = 3.5", "other options"),
        ("INSERT INTO done_location_slot VALUES (-1)", "doneLocationSlots names location slot -1"),
        ("INSERT INTO done_location_slot VALUES (4294967296)", "slot"),
        ("UPDATE schedule_cursor SET nextDate = -9223372036854775808", "queued fire"),
        ("UPDATE schedule_cursor SET nextDate = 'soon'", "nextDate"),
        ("UPDATE device_state SET lastAccepted = 'yesterday'", "lastAccepted"),
        ("UPDATE device_state SET lastUsed = 253402300800000", "lastUsed is 253402300800000"),
        ("UPDATE device_state SET inside = x'FFFFFFFF'", "inside names location slot -1"),
        ("UPDATE device_state SET inside = 'abcd'", "inside"),
        ("UPDATE device_state SET firedOnce = x'000000'", "damaged device row"),
        ("UPDATE device_state SET name = x'FF' WHERE name = 'd1'", "name"),
        ("UPDATE device_state SET settings = 'x'", "settings"),
        // Progress without its run record was taken as a new store: its delivered log wiped.
        ("DELETE FROM meta", "no run record (meta)"),
        // Resumed from (found by a helper), though the docs name a negative count as damage.
        ("UPDATE delivered SET count = -1", "a delivered batch's count is -1"),
        ("UPDATE delivered SET count = 'many'", "a delivered batch's count is 'many'"),
    ]

    /// `delivered` printed a damaged batch's bytes as an event (found by a helper): a batch
    /// that is not lines of JSON objects in UTF-8 is refused.
    @Test(arguments: ["x'00ff'", "x'7b7d0a00ff'", "'{\"a\":1}' || x'0a' || 'oops'", "x'7bff7d0a'"])
    func aDamagedDeliveredBatchIsNotListed(lines: String) throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        try Self.save(at: tmp.path)
        var listed = 0
        try StateStore(readingAt: tmp.path).forEachDeliveredBatch { _ in listed += 1; return true }
        #expect(listed > 0)
        try Self.edit(tmp.path, "UPDATE delivered SET lines = \(lines)")
        let error = #expect(throws: StateStoreError.self) { try StateStore(readingAt: tmp.path).forEachDeliveredBatch { _ in true } }
        #expect("\(error.map { "\($0)" } ?? "")".contains("damaged delivered log"), "\(String(describing: error))")
        #expect(throws: StateStoreError.self) { _ = try StateStore(readingAt: tmp.path).deliveredLog() }
    }

    /// A state file at `path` saved by a run over the damage tests' requests and lines.
    static func save(at path: String) throws {
        let run = try DurableRun(evaluator: makeEvaluator(DamagedStateTests.requests, options: DamagedStateTests.options), store: StateStore(path: path))
        _ = try feedDurable(run, DamagedStateTests.lines[...])
        try run.commit()
    }

    /// Runs `sql` on the file as a hand edit would.
    static func edit(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// `pending` reads the same file without restoring it: its dates are checked too (one
    /// past year 9999 trapped when written out).
    @Test(arguments: [("UPDATE meta SET defaultAddedAt = -9223372036854775808", "outside years 1-9999"),
                      ("UPDATE schedule_cursor SET nextDate = 9223372036854775807", "outside years 1-9999"),
                      ("UPDATE meta SET defaultAddedAt = 'noon'", "defaultAddedAt")])
    func pendingRefusesADamagedDate(sql: String, words: String) throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        try Self.save(at: tmp.path)
        #expect(try StateStore(path: tmp.path).pendingRequestsDetailed().count > 2)
        try Self.edit(tmp.path, sql)
        let error = #expect(throws: StateStoreError.self) { try StateStore(path: tmp.path).pendingRequestsDetailed() }
        #expect("\(error.map { "\($0)" } ?? "")".contains(words), "\(String(describing: error))")
    }

    @Test(arguments: 0..<edits.count)
    func aHandEditIsRefusedWithAMessage(edit: Int) throws {
        let (sql, words) = Self.edits[edit]
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let requests = DamagedStateTests.requests
        try Self.save(at: tmp.path)
        try Self.edit(tmp.path, sql)
        do {
            _ = try DurableRun(evaluator: makeEvaluator(requests, options: DamagedStateTests.options), store: StateStore(path: tmp.path))
            Issue.record("\(sql): resumed")
        } catch {
            #expect("\(error)".contains(words), "\(sql): \(error)")
        }
    }

    /// A table or column dropped from the file is named when the file is opened, by the writer
    /// and by the reader (a dropped `delivered` table was noticed only at the first commit,
    /// after that batch's events had been written out).
    @Test(arguments: [("DROP TABLE delivered", "table delivered is missing"),
                      ("DROP TABLE request", "table request is missing"),
                      ("DROP TABLE center_snapshot", "table center_snapshot is missing"),
                      ("ALTER TABLE meta DROP COLUMN fences", "column meta.fences is missing"),
                      ("ALTER TABLE device_state DROP COLUMN settings", "column device_state.settings is missing"),
                      // A view reads like the table, but a commit cannot write it.
                      ("ALTER TABLE delivered RENAME TO d2; CREATE VIEW delivered AS SELECT * FROM d2", "table delivered is missing"),
                      // Said to be unfinished ("the next run finishes it"); the next run failed.
                      ("DROP TABLE grdb_migrations", "its record of schema migrations (table grdb_migrations) is missing or short"),
                      ("DELETE FROM grdb_migrations WHERE identifier = 'v4'", "its record of schema migrations")])
    func aMissingTableOrColumnIsRefusedAtOpen(sql: String, words: String) throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        try Self.save(at: tmp.path)
        try Self.edit(tmp.path, sql)
        for open in [{ try StateStore(path: tmp.path) }, { try StateStore(readingAt: tmp.path) }] as [() throws -> StateStore] {
            let error = #expect(throws: StateStoreError.self) { _ = try open() }
            #expect(error?.description.contains("damaged state file: \(words)") == true, "\(String(describing: error))")
        }
    }
}
