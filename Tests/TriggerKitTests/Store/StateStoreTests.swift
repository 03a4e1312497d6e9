import Foundation
import GRDB
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

@Suite("State store: schema and identity")
struct StateStoreTests {
    /// An empty path and `:memory:` are no files: SQLite kept such a store in memory or a
    /// temporary file, and `saveCenter` succeeded with nothing durable (found by a helper).
    @Test(arguments: ["", ":memory:", "file:x.sqlite?mode=memory"])
    func aPathSQLiteWouldNotWriteIsRefused(_ path: String) {
        let error = #expect(throws: StateStoreError.self) { try StateStore(path: path) }
        guard case .cannotOpen(_, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("not a file path"))
    }

    /// A prune date that is NaN or past 9999 was clamped: NaN removed nothing and said so as
    /// a success, a date after 9999 removed everything.
    @Test(arguments: [Double.nan, 1e12, -1e12])
    func aPruneDateOutsideTheSupportedDatesIsRefused(_ seconds: Double) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("prune-\(UUID().uuidString).sqlite").path
        let store = try StateStore(path: path)
        let error = #expect(throws: StateStoreError.self) { try store.pruneDelivered(before: Date(timeIntervalSince1970: seconds)) }
        guard case .invalidArgument = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func createsTheSchemaInWALMode() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let store = try StateStore(path: tmp.path)
        #expect(try store.storedSchemaVersion() == StateStore.schemaVersion)
        let (tables, mode, appID) = try store.dbQueue.read { db in
            (try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
             try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try Int32.fetchOne(db, sql: "PRAGMA application_id"))
        }
        for t in ["schema_info", "meta", "request", "schedule_cursor", "device_state", "done_location_slot", "delivered"] {
            #expect(tables.contains(t), "missing table \(t)")
        }
        #expect(mode == "wal")
        #expect(appID == StateStore.applicationID)
        // A store without a run has nothing to restore.
        #expect(try store.loadRun(fingerprint: 1) == nil)
    }

    /// A new store's rows and the requests' fingerprint come from one rendering of each
    /// request: the fingerprint is the one computed alone, the rows are the contract JSON, and
    /// the evaluator keeps the fingerprint (rendering a million requests again took 3 s).
    @Test func aNewRunRendersEachRequestOnceForItsRowsAndItsFingerprint() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        // More than one rendering window.
        let requests = (0..<(StreamEvaluator.renderWindow + 300)).map { (i: Int) -> NotificationRequest in
            let trigger: NotificationTrigger
            if i % 3 == 0 {
                trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double(60 + i), repeats: true))
            } else {
                let center = Coordinate(latitude: 40 + Double(i) * 1e-4, longitude: -74)
                trigger = .location(LocationTrigger(region: .circular(CircularRegion(identifier: "g\(i)", center: center, radius: 100)),
                                                    repeats: true))
            }
            return NotificationRequest(identifier: "r\(i)", content: NotificationContent(title: "t\(i % 7)"), trigger: trigger)
        }
        let evaluator = StreamEvaluator(requests: requests)
        let reference = StreamEvaluator(requests: requests).requestsFingerprint
        let store = try StateStore(path: tmp.path)
        #expect(try store.hasRun() == false)
        let fingerprint = try store.startRun(evaluator: evaluator, pending: evaluator.pendingFlags())
        #expect(fingerprint == reference)
        #expect(evaluator.fingerprintCache.count == requests.count, "the fingerprint is kept, not computed again")
        #expect(evaluator.requestsFingerprint == reference)
        #expect(try store.hasRun())
        #expect(try store.loadRun(fingerprint: reference) != nil)
        let rows = try store.dbQueue.read { db in try String.fetchAll(db, sql: "SELECT json FROM request ORDER BY position") }
        #expect(rows == StreamEvaluator.renderedJSON(requests[...]).map { String(decoding: $0, as: UTF8.self) })
    }

    @Test func reopenRestoresTheSavedState() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let lines = storeTestStream(count: 120, seed: 7)
        let first = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path), batchLines: 1000)
        _ = try feedDurable(first, lines[...])
        try first.commit()
        let expected = first.evaluator.snapshot()

        let reopened = try StateStore(path: tmp.path)
        let saved = try #require(try reopened.loadRun(fingerprint: first.evaluator.requestsFingerprint))
        #expect(saved.inputPosition == lines.count)
        var got = saved.snapshot
        got.devices.sort { $0.name < $1.name }
        got.queuedFires.sort { $0.slot < $1.slot }
        var want = expected
        want.devices.sort { $0.name < $1.name }
        want.queuedFires.sort { $0.slot < $1.slot }
        #expect(got == want)
    }

    @Test func aTextFileIsNotAStoreAndIsLeftUntouched() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let text = "hello, I am a text file\n" + String(repeating: "x", count: 200)
        try text.write(toFile: tmp.path, atomically: true, encoding: .utf8)
        #expect(throws: StateStoreError.notAStore(path: tmp.path)) { try StateStore(path: tmp.path) }
        #expect(try String(contentsOfFile: tmp.path, encoding: .utf8) == text)
    }

    /// A device or a directory is refused before SQLite touches anything: `run --state
    /// /dev/null` used to fail with "disk I/O error" after creating `/dev/null-journal`.
    @Test func aDeviceOrADirectoryIsRefusedAndNothingIsWrittenBesideIt() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        for path in ["/dev/null", dir.path] {
            let journalExisted = FileManager.default.fileExists(atPath: path + "-journal")
            do {
                _ = try StateStore(path: path)
                Issue.record("\(path) was opened as a state file")
            } catch {
                guard case .cannotOpen(let p, let reason) = error else { Issue.record("\(path): \(error)"); continue }
                #expect(p == path)
                #expect(reason.contains("regular file"), "\(reason)")
            }
            #expect(throws: StateStoreError.self) { try StateStore(readingAt: path) }
            if !journalExisted { #expect(!FileManager.default.fileExists(atPath: path + "-journal"), "\(path)-journal was made") }
        }
    }

    @Test func anotherApplicationsDatabaseIsNotAStoreAndIsLeftUntouched() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        try DatabaseQueue(path: tmp.path).write { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: tmp.path))
        #expect(throws: StateStoreError.notAStore(path: tmp.path)) { try StateStore(path: tmp.path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path)) == before)
    }

    /// A run killed while it created its state file (about 30 ms after start) could leave a
    /// file holding only GRDB's empty migration table, not yet marked as ours: every later
    /// run refused it as "not a TriggerKit state file". Such a file, and one killed just after
    /// the mark, are finished by the next run; a migration table with a migration in it is
    /// someone else's.
    @Test func aFileLeftHalfMadeByAKilledRunIsFinished() throws {
        for stage in ["empty", "migration table only", "marked only"] {
            let tmp = TempStorePath(); defer { tmp.cleanup() }
            if stage == "empty" {
                FileManager.default.createFile(atPath: tmp.path, contents: Data())
            } else {
                try DatabaseQueue(path: tmp.path).writeWithoutTransaction { db in
                    if stage == "marked only" {
                        try db.execute(sql: "PRAGMA application_id = \(StateStore.applicationID)")
                    } else {
                        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                    }
                }
            }
            // The readers say it is unfinished (they said "not a state file" of an empty one,
            // and SQLite's "no such table: meta" of one marked but without its tables).
            if stage != "migration table only" {
                #expect(throws: StateStoreError.cannotOpen(path: tmp.path, reason: StateStore.unfinished), "\(stage)") {
                    try StateStore(readingAt: tmp.path)
                }
            }
            let store = try StateStore(path: tmp.path)
            #expect(try store.storedSchemaVersion() == StateStore.schemaVersion, "\(stage)")
            #expect(try store.hasRun() == false, "\(stage)")
        }
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        try DatabaseQueue(path: tmp.path).write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('v1')")
        }
        #expect(throws: StateStoreError.notAStore(path: tmp.path)) { try StateStore(path: tmp.path) }
    }

    /// A run stopped before its first commit (a full disk) leaves the tables and no run:
    /// `pending` and `delivered` say it is unfinished (status 2), as of a half-made file; they
    /// listed nothing with status 0, as if no request were pending (a helper filling a disk).
    @Test func theListingsSayAFileWithoutARunIsUnfinished() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        _ = try StateStore(path: tmp.path)
        for command in ["pending", "delivered"] {
            let r = try CLIMannersTests.run([command, "--state", tmp.path])
            #expect(r.status == 2, "\(command): \(r.err)")
            #expect(r.err.contains(StateStore.unfinished), "\(command): \(r.err)")
            #expect(r.out.isEmpty)
        }
    }

    @Test func aNewerSchemaIsRefused() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let store = try StateStore(path: tmp.path)
        // What a future build would leave: an unknown migration and a higher version.
        try store.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99'); UPDATE schema_info SET version = 99")
        }
        #expect(throws: StateStoreError.newerSchema(path: tmp.path, version: 99, supported: StateStore.schemaVersion)) {
            try StateStore(path: tmp.path)
        }
        // And by the readers (`pending`, `delivered`), which read it before.
        #expect(throws: StateStoreError.newerSchema(path: tmp.path, version: 99, supported: StateStore.schemaVersion)) {
            try StateStore(readingAt: tmp.path)
        }
    }

    @Test func otherRequestsAreRefused() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        do {
            // The first run ends (its lock is released) before the second opens.
            let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            _ = try feedDurable(run, storeTestStream(count: 10, seed: 1)[...])
            try run.commit()
        }
        #expect(throws: StateStoreError.requestsChanged(path: tmp.path)) {
            try DurableRun(evaluator: makeEvaluator(circleRequest("only")), store: StateStore(path: tmp.path))
        }
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(StateStoreError.notAStore(path: "x.db").description.contains("not a TriggerKit state file"))
        #expect(StateStoreError.newerSchema(path: "x.db", version: 3, supported: 1).description.contains("version 3"))
    }

    @Test func blobsRoundTripAndRejectTruncatedData() {
        let ints: [Int32] = [0, 1, -5, .max, .min]
        let longs: [Int64] = [0, -1, .max, .min, 1_795_770_000_000]
        #expect(BlobCoding.decodeInt32s(BlobCoding.encode(ints)) == ints)
        #expect(BlobCoding.decodeInt64s(BlobCoding.encode(longs)) == longs)
        #expect(BlobCoding.decodeInt32s(Data([1, 2, 3])) == nil)
    }
}
