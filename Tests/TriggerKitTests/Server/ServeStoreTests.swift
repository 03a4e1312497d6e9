import Foundation
import GRDB
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// A new directory under the temporary one, named from `prefix`.
func freshDirectory(_ prefix: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// The tenant store waits for a lock another connection holds (its busy timeout) instead of
/// failing at once. Found as an intermittent failure of the restart test above: the second
/// server opened the file while the first one's last connection was closing it ("database is
/// locked").
@Suite("serve: the tenant store waits for a lock")
struct TenantStoreLockTests {
    @Test(.timeLimit(.minutes(1))) func openingAndWritingWhileAnotherConnectionWritesWaitForIt() throws {
        let dir = try freshDirectory("tk-lock")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("acme.sqlite").path
        _ = try TenantStore(path: path, outboxLimit: 100)
        // Another connection writes, holding the write lock for 300 ms.
        let other = try DatabaseQueue(path: path)
        let holding = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.write { db in
                try db.execute(sql: "INSERT INTO webhook_cursor (url, seq) VALUES ('x', 1)")
                holding.signal()
                Thread.sleep(forTimeInterval: 0.3)
            }
            done.signal()
        }
        holding.wait()
        let start = Date()
        let store = try TenantStore(path: path, outboxLimit: 100)
        _ = try store.record(at: 0, inputs: [(Tenant.journalKindTick, Data())], events: [])
        #expect(Date().timeIntervalSince(start) >= 0.15, "the write did not wait for the other connection's lock")
        done.wait()
        #expect(try store.journal(after: 0).count == 1)
        #expect(try store.webhookCursor(url: "x") == 1)
    }
}

/// One server per tenant file: a second `serve` on the same data directory started, journaled
/// beside the first, and what one of them acknowledged was gone after both stopped (found by a
/// helper). The file is locked while its store lives.
@Suite("serve: one server per tenant file")
struct TenantStoreOwnerTests {
    @Test(.timeLimit(.minutes(1))) func aSecondStoreOnTheSameFileIsRefusedUntilTheFirstIsGone() throws {
        let dir = try freshDirectory("tk-owner")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("acme.sqlite").path
        var first: TenantStore? = try TenantStore(path: path, outboxLimit: 100)
        let error = #expect(throws: TenantStoreInUse.self) { _ = try TenantStore(path: path, outboxLimit: 100) }
        #expect(error?.description.contains("in use by another triggerkit serve") == true, "\(String(describing: error))")
        // Another tenant's file in the same directory is no conflict.
        _ = try TenantStore(path: dir.appendingPathComponent("bolt.sqlite").path, outboxLimit: 100)
        #expect(first != nil)
        first = nil
        _ = try TenantStore(path: path, outboxLimit: 100)
    }
}

/// The outbox keeps its bound whatever the batches' sizes: it was pruned only when a batch
/// ended exactly on a multiple of 1,024, which batches of two events after an odd start never
/// do (2,201 events kept against a limit of 10).
@Suite("serve: the outbox bound")
struct OutboxBoundTests {
    @Test(arguments: [1, 2, 3, 7, 1500])
    func theOutboxStaysWithinItsBound(batch: Int) throws {
        let dir = try freshDirectory("tk-outbox")
        defer { try? FileManager.default.removeItem(at: dir) }
        let limit = 10
        let store = try TenantStore(path: dir.appendingPathComponent("acme.sqlite").path, outboxLimit: limit)
        var n = 0
        // An odd start, then batches of `batch` events.
        _ = try store.record(at: 0, inputs: [], events: [("e\(n)", nil, Data("x".utf8))])
        n += 1
        while n < 6000 {
            let events = (0..<batch).map { k in (eventId: "e\(n + k)", device: String?.none, body: Data("x".utf8)) }
            _ = try store.record(at: 0, inputs: [], events: events)
            n += batch
            let kept = try store.queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
            #expect(kept <= limit + 1023 + batch, "after \(n) events, \(kept) kept")
            if kept > limit + 1023 + batch { return }
        }
        // The newest are kept.
        #expect(try store.events(after: Int64(n - limit), device: nil, limit: 100).count == limit)
    }
}

/// The dead-letter list keeps each webhook's newest 1,000 (it grew by one per given-up batch,
/// for as long as a receiver stayed down: a helper's find).
@Suite("serve: the dead-letter bound")
struct DeadLetterBoundTests {
    @Test func theNewestThousandAreKept() throws {
        let dir = try freshDirectory("tk-dead")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try TenantStore(path: dir.appendingPathComponent("acme.sqlite").path, outboxLimit: 100)
        for k in 1...1_010 {
            if k % 2 == 0 {
                try store.deadLetter(url: "http://127.0.0.1:9/", from: Int64(k), to: Int64(k), attempts: 3, reason: "refused", at: 1, body: Data("[]".utf8))
            } else {
                try store.recordPruned(url: "http://127.0.0.1:9/", from: Int64(k), to: Int64(k), reason: "pruned", at: 1)
            }
        }
        // Another webhook's few are not pushed out by the first one's many.
        try store.deadLetter(url: "http://127.0.0.1:8/", from: 1, to: 1, attempts: 3, reason: "refused", at: 1, body: Data("[]".utf8))
        try store.deadLetter(url: "http://127.0.0.1:9/", from: 1_011, to: 1_011, attempts: 3, reason: "refused", at: 1, body: Data("[]".utf8))
        let kept = try store.queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhook_dead") ?? 0 }
        #expect(kept == 1_001)
        let listed = try store.deadLetters(limit: 2_000).filter { $0.url == "http://127.0.0.1:9/" }
        #expect(listed.count == 1_000)
        #expect(listed.first?.fromSeq == 1_011 && listed.last?.fromSeq == 12, "\(listed.first.map(\.fromSeq) ?? -1) ... \(listed.last.map(\.fromSeq) ?? -1)")
    }
}

/// A restart before a gap's batch is delivered finds the pruned range again, longer by what
/// was pruned since: it extends the recorded range (`1-1190` then `1-2390` were two entries,
/// events 1-1190 listed and counted twice; a helper's find).
@Suite("serve: a pruned range found again")
struct PrunedRangeAgainTests {
    @Test func aLongerRangeFromTheSameStartExtendsTheEntry() throws {
        let dir = try freshDirectory("tk-pruned")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try TenantStore(path: dir.appendingPathComponent("acme.sqlite").path, outboxLimit: 100)
        let url = "http://127.0.0.1:9/"
        #expect(try store.recordPruned(url: url, from: 1, to: 1_190, reason: "pruned", at: 1) == 1_190)
        #expect(try store.recordPruned(url: url, from: 1, to: 1_190, reason: "pruned", at: 2) == 0)
        #expect(try store.recordPruned(url: url, from: 1, to: 2_390, reason: "pruned", at: 3) == 1_200)
        #expect(try store.recordPruned(url: url, from: 1, to: 2_000, reason: "pruned", at: 4) == 0)
        // Another webhook's range and a later range of this one are entries of their own.
        #expect(try store.recordPruned(url: "http://127.0.0.1:8/", from: 1, to: 10, reason: "pruned", at: 5) == 10)
        #expect(try store.recordPruned(url: url, from: 2_401, to: 2_500, reason: "pruned", at: 6) == 100)
        let listed = try store.deadLetters(limit: 10).filter { $0.url == url }.map { [$0.fromSeq, $0.toSeq] }
        #expect(listed == [[2_401, 2_500], [1, 2_390]])
    }
}

/// Events a replay records again are skipped without using up a number: after a kill -9
/// restart the next event's number follows the last one (it jumped by the replay's events).
@Suite("serve: event numbers across a replay")
struct EventNumberTests {
    @Test func aReplayedEventUsesNoNumber() throws {
        let dir = try freshDirectory("tk-seq")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try TenantStore(path: dir.appendingPathComponent("acme.sqlite").path, outboxLimit: 1000)
        func events(_ ids: [String]) -> [(eventId: String, device: String?, body: Data)] { ids.map { ($0, nil, Data($0.utf8)) } }
        #expect(try store.record(at: 0, inputs: [], events: events(["a", "b", "c"])) == [1, 2, 3])
        // The replay records b and c again: already there.
        #expect(try store.record(at: 0, inputs: [], events: events(["b", "c"])) == [0, 0])
        #expect(try store.record(at: 0, inputs: [], events: events(["d"])) == [4])
        #expect(try store.events(after: 0, device: nil, limit: 10).map(\.seq) == [1, 2, 3, 4])
    }
}

/// A tenant's file holding a value of another type than its column's (a hand edit, a damaged
/// page) is an error of that tenant's store, not a trap: the store read its rows with GRDB's
/// subscripts, which stop the process on a conversion failure, and with it every tenant.
@Suite("serve: a damaged tenant store throws, never traps")
struct DamagedTenantStoreTests {
    static func directory() throws -> URL { try freshDirectory("tk-damaged-tenant") }

    /// A tenant file in `dir` with a row in every table, then `sql` run on it; its path.
    static func usedStore(in dir: URL, edited sql: String) throws -> String {
        let path = dir.appendingPathComponent("acme.sqlite").path
        do {
            let store = try TenantStore(path: path, outboxLimit: 100)
            _ = try store.record(at: 1, inputs: [(kind: 1, body: Data("{}".utf8))], events: [("e1", "d1", Data("{\"a\":1}".utf8))])
            try store.saveSnapshot(Data("snap".utf8), journalSeq: 1)
            try store.deadLetter(url: "http://127.0.0.1:9/", from: 1, to: 1, attempts: 3, reason: "refused", at: 1, body: Data("[]".utf8))
        }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
        return path
    }

    static func tables(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
    }

    /// Each edit, and whether the read must throw: SQLite converts some values itself (a
    /// blob read as text, a journal row read through a cursor), which must only not trap;
    /// the replay of such a journal row refuses what it holds.
    @Test(arguments: [
        ("UPDATE outbox SET body = 5", true),
        ("UPDATE snapshot SET journalSeq = 'late'", true),
        ("UPDATE snapshot SET body = 12", true),
        ("UPDATE webhook_dead SET attempts = 'many'", true),
        ("UPDATE webhook_dead SET url = 7", false),  // TEXT affinity: stored as "7"
        ("UPDATE outbox SET device = x'00'", false),
        ("UPDATE journal SET body = 2.5", false),
        ("UPDATE journal SET kind = 'fix'", false),
    ])
    func aValueOfAnotherTypeThrows(edit: String, mustThrow: Bool) throws {
        let dir = try Self.directory(); defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.usedStore(in: dir, edited: edit)
        let store = try TenantStore(path: path, outboxLimit: 100)
        // Every read of the edited table throws (and the others still work).
        var threw = 0
        do { _ = try store.events(after: 0, device: nil, limit: 10) } catch { threw += 1 }
        do { _ = try store.events(after: 0, device: "d1", limit: 10) } catch { threw += 1 }
        do { _ = try store.journal(after: 0) } catch { threw += 1 }
        do { _ = try store.loadSnapshot() } catch { threw += 1 }
        do { _ = try store.deadLetters(limit: 10) } catch { threw += 1 }
        #expect(!mustThrow || threw >= 1, "\(edit) was read without an error")
    }

    /// A table dropped from a tenant's file refuses the open, naming it: created again empty,
    /// a dropped snapshot lost the state before it, a dropped journal the inputs after it, a
    /// dropped outbox restarted the event ids.
    @Test(arguments: ["snapshot", "journal", "outbox", "webhook_dead"])
    func aMissingTableRefusesTheOpen(table: String) throws {
        let dir = try Self.directory(); defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.usedStore(in: dir, edited: "DROP TABLE \(table)")
        let error = #expect(throws: TenantStoreDamage.self) { _ = try TenantStore(path: path, outboxLimit: 100) }
        #expect(error?.description.contains("table \(table) is missing") == true, "\(String(describing: error))")
        // Nothing was created again meanwhile: the file still lacks it.
        #expect(try !Self.tables(path).contains(table))
        // A new file is made whole.
        let fresh = dir.appendingPathComponent("fresh.sqlite").path
        _ = try TenantStore(path: fresh, outboxLimit: 100)
        #expect(try Set(TenantStore.tables.map(\.name)).isSubset(of: Set(Self.tables(fresh))))
    }

    /// A dropped column, every table dropped (SQLite's own bookkeeping left), a view in a
    /// table's place, or another program's database: each refused at open, naming what is
    /// missing (a dropped column was found at the first write, a fix's events already listed
    /// as delivered; the others were taken as a new tenant).
    @Test(arguments: [("ALTER TABLE outbox DROP COLUMN device", "column outbox.device is missing"),
                      ("ALTER TABLE snapshot DROP COLUMN journalSeq", "column snapshot.journalSeq is missing"),
                      ("DROP TABLE journal; DROP TABLE outbox; DROP TABLE snapshot; DROP TABLE webhook_cursor; DROP TABLE webhook_dead",
                       "table journal is missing"),
                      ("ALTER TABLE outbox RENAME TO o2; CREATE VIEW outbox AS SELECT * FROM o2", "table outbox is missing"),
                      ("FOREIGN", "table journal is missing")])
    func aDamagedOrForeignFileRefusesTheOpen(edit: String, words: String) throws {
        let dir = try Self.directory(); defer { try? FileManager.default.removeItem(at: dir) }
        var path = dir.appendingPathComponent("foreign.sqlite").path
        if edit == "FOREIGN" {
            try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)") }
        } else {
            path = try Self.usedStore(in: dir, edited: edit)
        }
        let error = #expect(throws: TenantStoreDamage.self) { _ = try TenantStore(path: path, outboxLimit: 100) }
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
    }
}

