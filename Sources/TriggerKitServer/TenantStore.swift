import Foundation
import GRDB
import TriggerKit

/// One tenant's durable state in its own SQLite file (WAL):
///
/// - `journal`: every accepted input, in the order the center applied it, with the clock
///   time it was applied at. Written in the same transaction as the events it produced,
///   before the HTTP response: what a client was told is accepted survives a crash.
/// - `outbox`: every event, numbered (`seq`, the SSE id), unique by eventId.
/// - `snapshot`: the center's snapshot and the journal position it covers; a restart
///   restores it and replays the journal after it.
///
/// Bounds: the journal is truncated up to each snapshot; the outbox keeps the last
/// ``outboxLimit`` events, and at most 1,023 more between prunings (older ones are deleted: an
/// SSE resume from before them starts at the oldest kept, and says so with a `gap` event).
final class TenantStore: Sendable {
    /// An error's text for the log and for a tenant that cannot be opened, naming the process
    /// limit behind an SQLite I/O error or a file that cannot be opened (``ProcessLimits``):
    /// SQLite says only `disk I/O error` past `ulimit -f`.
    static func describe(_ error: any Error) -> String {
        guard let e = error as? DatabaseError else { return "\(error)" }
        return "\(e)" + ProcessLimits.hint(ioError: e.resultCode == .SQLITE_IOERR, cannotOpen: e.resultCode == .SQLITE_CANTOPEN)
    }

    let queue: DatabaseQueue
    private let lock = WriterLock()
    /// How long opening waits for the tenant file's lock before it says another server has it.
    static let lockWait = Duration.seconds(2)
    let outboxLimit: Int

    struct JournalRow: Sendable {
        var seq: Int64
        var at: Int64
        var kind: Int
        var body: Data
    }

    struct OutboxRow: Sendable {
        var seq: Int64
        var device: String?
        var body: Data
    }

    /// How long an open or a write waits for a lock held by another connection to the same
    /// file (SQLite's busy timeout) before it fails. Without one it failed at once: a server
    /// started on a directory just after another let go of it (the last connection closing
    /// checkpoints the write-ahead log under a lock) failed to open the tenant, and so did
    /// any write while a backup tool or `sqlite3` read the file.
    static let busyTimeout: TimeInterval = 10

    /// The tables every tenant file has had from the first release on, with their columns.
    static let tables: [(name: String, columns: [String])] = [
        ("journal", ["seq", "at", "kind", "body"]),
        ("outbox", ["seq", "eventId", "device", "body"]),
        ("snapshot", ["id", "journalSeq", "body"]),
        ("webhook_cursor", ["url", "seq"]),
        ("webhook_dead", ["id", "url", "fromSeq", "toSeq", "attempts", "reason", "at", "body"]),
    ]

    /// What a file that has tables lacks of ``tables`` (tables only, not views); nothing for a
    /// file without any table (a new one).
    private static func schemaProblems(_ db: Database) throws -> [String] {
        let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard !existing.isEmpty else { return [] }
        var problems: [String] = []
        for (table, columns) in tables {
            guard existing.contains(table) else { problems.append("table \(table) is missing"); continue }
            let have = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
            problems += columns.filter { !have.contains($0) }.map { "column \(table).\($0) is missing" }
        }
        return problems
    }

    init(path: String, outboxLimit: Int) throws {
        var config = Configuration()
        config.busyMode = .timeout(Self.busyTimeout)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        // One server per tenant file: a second `serve` on the same data directory journaled
        // beside the first, and what one of them acknowledged was lost (found by a helper).
        // A `flock` on a file of its own beside the tenant's (SQLite never opens it: opening
        // and closing the database file itself would drop this process's POSIX locks on it,
        // SQLite's), taken before the database is opened and held while this store lives. A
        // holder is waited for up to ``lockWait``, polling: a restart in the same process
        // (the tests') may open the file while the last server's store is being let go of.
        switch lock.acquire(path + ".lock", creating: true, waiting: Self.lockWait) {
        case .acquired: break
        case .busy: throw TenantStoreInUse(path: path, reason: nil)
        case .failed(let why): throw TenantStoreInUse(path: path, reason: why)
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        self.outboxLimit = outboxLimit
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        // A file with tables must have all of ours with their columns: else it was damaged (a
        // table dropped by hand or by a tool) or is another program's. Created again empty, a
        // dropped snapshot lost everything before it (the journal is truncated up to each
        // snapshot), a dropped journal everything after it, and a dropped outbox numbered
        // events again from 1 (the ids SSE clients resume from). Only a file without any
        // table is new.
        let problems = try queue.read { db in try Self.schemaProblems(db) }
        if !problems.isEmpty { throw TenantStoreDamage(path: path, problems: problems) }
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, kind INTEGER NOT NULL, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, eventId TEXT NOT NULL UNIQUE, device TEXT, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), journalSeq INTEGER NOT NULL, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS webhook_cursor (url TEXT PRIMARY KEY, seq INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS webhook_dead (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL, fromSeq INTEGER NOT NULL,
                    toSeq INTEGER NOT NULL, attempts INTEGER NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL, body BLOB NOT NULL);
                """)
        }
    }

    /// Records accepted inputs and their events in one transaction; returns the events'
    /// outbox numbers (0 for an event already there: a replay after a crash).
    func record(at: Int64, inputs: [(kind: Int, body: Data)], events: [(eventId: String, device: String?, body: Data)]) throws -> [Int64] {
        try queue.write { db in
            for i in inputs {
                try db.execute(sql: "INSERT INTO journal (at, kind, body) VALUES (?, ?, ?)", arguments: [at, i.kind, i.body])
            }
            var seqs: [Int64] = []
            seqs.reserveCapacity(events.count)
            // An event already there (a replay after a crash) is skipped before the insert: an
            // INSERT OR IGNORE refused by the unique eventId still used up an AUTOINCREMENT
            // number, so event numbers jumped by a whole replay's events after a restart.
            let stmt = try db.cachedStatement(sql: """
                INSERT INTO outbox (eventId, device, body) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM outbox WHERE eventId = ?)
                """)
            for e in events {
                try stmt.execute(arguments: [e.eventId, e.device, e.body, e.eventId])
                seqs.append(db.changesCount > 0 ? db.lastInsertedRowID : 0)
            }
            // Pruned whenever the numbers pass a multiple of 1,024 (not only when a batch ends on
            // one: batches of two events after an odd start never did, and the outbox grew
            // without bound), so it holds at most `outboxLimit` + 1,023 events.
            if let first = seqs.first(where: { $0 > 0 }), let last = seqs.last(where: { $0 > 0 }),
               last > Int64(outboxLimit), last / 1024 > (first - 1) / 1024 {
                try db.execute(sql: "DELETE FROM outbox WHERE seq <= ?", arguments: [last - Int64(outboxLimit)])
            }
            return seqs
        }
    }

    /// Events after `seq` (optionally one device's, and the shared ones), oldest first.
    func events(after seq: Int64, device: String?, limit: Int) throws -> [OutboxRow] {
        try queue.read { db in try Self.events(db, after: seq, device: device, limit: limit) }
    }

    private static func events(_ db: Database, after seq: Int64, device: String?, limit: Int) throws -> [OutboxRow] {
        let rows: [Row]
        if let device {
            rows = try Row.fetchAll(db, sql: "SELECT seq, device, body FROM outbox WHERE seq > ? AND (device = ? OR device IS NULL) ORDER BY seq LIMIT ?",
                                    arguments: [seq, device, limit])
        } else {
            rows = try Row.fetchAll(db, sql: "SELECT seq, device, body FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [seq, limit])
        }
        // `decode`, not subscripts: a value of another type in a damaged file throws (a
        // subscript traps, stopping every tenant).
        return try rows.map { OutboxRow(seq: try $0.decode(forColumn: "seq"), device: try $0.decode(forColumn: "device"),
                                        body: try $0.decode(forColumn: "body")) }
    }

    /// The oldest event still kept (0 when empty).
    /// ``events(after:device:limit:)`` and ``oldestEvent()`` read together (no pruning between
    /// them): a reader whose position fell behind the outbox's oldest event learns of the gap
    /// with the page that follows it.
    func eventsPage(after seq: Int64, device: String?, limit: Int) throws -> (rows: [OutboxRow], oldest: Int64) {
        try queue.read { db in
            (try Self.events(db, after: seq, device: device, limit: limit),
             try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM outbox") ?? 0)
        }
    }

    func oldestEvent() throws -> Int64 {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM outbox") ?? 0 }
    }

    /// The newest event (0 when none).
    func lastEventSeq() throws -> Int64 {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM outbox") ?? 0 }
    }

    /// The journal's rows after `seq`, in order, a page at a time: at most `rows` of them, and
    /// none after the one whose body brings the page to `bytes` (a page holds at least one row).
    func journal(after seq: Int64, rows: Int = journalPageRows, bytes: Int = journalPageBytes) throws -> [JournalRow] {
        try queue.read { db in
            var page: [JournalRow] = []
            var total = 0
            let cursor = try Row.fetchCursor(db, sql: "SELECT seq, at, kind, body FROM journal WHERE seq > ? ORDER BY seq LIMIT ?",
                                             arguments: [seq, rows])
            while page.isEmpty || total < bytes, let r = try cursor.next() {
                let row = JournalRow(seq: try r.decode(forColumn: "seq"), at: try r.decode(forColumn: "at"),
                                     kind: try r.decode(forColumn: "kind"), body: try r.decode(forColumn: "body"))
                total += row.body.count
                page.append(row)
            }
            return page
        }
    }

    /// A page of ``journal(after:rows:bytes:)``: a restart holds one page of the journal at a
    /// time, not all of it (the default `--snapshot-every` lets 5,000,000 fixes pile up, about
    /// 400 MB of journal).
    static let journalPageRows = 1024
    static let journalPageBytes = 16 << 20

    func lastJournalSeq() throws -> Int64 {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM journal") ?? 0 }
    }

    /// The size of the snapshot stored at `path` in bytes, read without opening the store for
    /// writing; 0 when there is none (or no store yet: opening it reports what is wrong).
    static func snapshotBytes(path: String) -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        guard let queue = try? DatabaseQueue(path: path, configuration: config) else { return 0 }
        return ((try? queue.read { db in try Int.fetchOne(db, sql: "SELECT length(body) FROM snapshot WHERE id = 1") }) ?? nil) ?? 0
    }

    /// Saves a snapshot covering the journal up to `journalSeq` and drops those entries.
    func saveSnapshot(_ body: Data, journalSeq: Int64) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO snapshot (id, journalSeq, body) VALUES (1, ?, ?)", arguments: [journalSeq, body])
            try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [journalSeq])
        }
    }

    // MARK: webhooks

    /// The last event delivered (or dead-lettered) to a webhook; a new webhook starts at the
    /// newest event (it gets what happens from now on).
    func webhookCursor(url: String) throws -> Int64 {
        try queue.write { db in
            if let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM webhook_cursor WHERE url = ?", arguments: [url]) { return seq }
            let newest = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM outbox") ?? 0
            try db.execute(sql: "INSERT INTO webhook_cursor (url, seq) VALUES (?, ?)", arguments: [url, newest])
            return newest
        }
    }

    func setWebhookCursor(url: String, seq: Int64) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO webhook_cursor (url, seq) VALUES (?, ?)", arguments: [url, seq])
        }
    }

    /// The dead letters kept per webhook: its newest 1,000 (each with its batch's body, up to
    /// 100 events); an older one is deleted as a new one comes (a receiver down for weeks grew
    /// the list without bound; a helper's find). Per webhook, so that one receiver down does
    /// not push out another's (a reviewer's find). Their events stay in the outbox while it
    /// holds them.
    static let deadLetterLimit = 1_000

    /// Deletes `url`'s dead letters older than its newest ``deadLetterLimit``.
    private static func pruneDeadLetters(_ db: Database, url: String) throws {
        try db.execute(sql: """
            DELETE FROM webhook_dead WHERE url = ?1 AND id NOT IN
                (SELECT id FROM webhook_dead WHERE url = ?1 ORDER BY id DESC LIMIT ?2)
            """, arguments: [url, deadLetterLimit])
    }

    /// Records a batch that could not be delivered and moves the cursor past it.
    func deadLetter(url: String, from: Int64, to: Int64, attempts: Int, reason: String, at: Int64, body: Data) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT INTO webhook_dead (url, fromSeq, toSeq, attempts, reason, at, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [url, from, to, attempts, reason, at, body])
            try Self.pruneDeadLetters(db, url: url)
            try db.execute(sql: "INSERT OR REPLACE INTO webhook_cursor (url, seq) VALUES (?, ?)", arguments: [url, to])
        }
    }

    /// Records events pruned from the outbox before webhook `url` got them (0 attempts), once
    /// per range, leaving the cursor where it is: the next batch delivered carries the gap and
    /// moves it (a restart before that finds the range again and tells the receiver then).
    /// A range starting where a recorded one starts extends it (more was pruned before the
    /// restart: `1-1190` then `1-2390` were two entries, 1-1190 listed twice and counted twice
    /// in the metric; a helper's find). Returns the events newly recorded.
    @discardableResult
    func recordPruned(url: String, from: Int64, to: Int64, reason: String, at: Int64) throws -> Int64 {
        try queue.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT id, toSeq FROM webhook_dead WHERE url = ? AND fromSeq = ? AND attempts = 0 ORDER BY id DESC LIMIT 1",
                                          arguments: [url, from]) {
                let id: Int64 = try row.decode(forColumn: "id"), known: Int64 = try row.decode(forColumn: "toSeq")
                guard to > known else { return 0 }
                try db.execute(sql: "UPDATE webhook_dead SET toSeq = ?, at = ? WHERE id = ?", arguments: [to, at, id])
                return to - known
            }
            try db.execute(sql: "INSERT INTO webhook_dead (url, fromSeq, toSeq, attempts, reason, at, body) VALUES (?, ?, ?, 0, ?, ?, ?)",
                           arguments: [url, from, to, reason, at, Data()])
            try Self.pruneDeadLetters(db, url: url)
            return to - from + 1
        }
    }

    struct DeadLetter: Sendable {
        var id: Int64, url: String, fromSeq: Int64, toSeq: Int64, attempts: Int, reason: String, at: Int64
    }

    func deadLetters(limit: Int) throws -> [DeadLetter] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, url, fromSeq, toSeq, attempts, reason, at FROM webhook_dead ORDER BY id DESC LIMIT ?", arguments: [limit])
                .map { DeadLetter(id: try $0.decode(forColumn: "id"), url: try $0.decode(forColumn: "url"),
                                  fromSeq: try $0.decode(forColumn: "fromSeq"), toSeq: try $0.decode(forColumn: "toSeq"),
                                  attempts: try $0.decode(forColumn: "attempts"), reason: try $0.decode(forColumn: "reason"),
                                  at: try $0.decode(forColumn: "at")) }
        }
    }

    func loadSnapshot() throws -> (body: Data, journalSeq: Int64)? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT journalSeq, body FROM snapshot WHERE id = 1")
                .map { (try $0.decode(forColumn: "body"), try $0.decode(forColumn: "journalSeq")) }
        }
    }
}

/// A tenant file missing some of its tables: refused when the tenant opens (the server does
/// not start), so that nothing it held is silently started over.
/// A tenant file another process serves (its lock is held), or one that cannot be locked.
struct TenantStoreInUse: Error, CustomStringConvertible {
    var path: String
    var reason: String?
    var description: String {
        if let reason { return "\(path): cannot lock the tenant file (\(reason))" }
        return "\(path): in use by another triggerkit serve (one server per data directory)"
    }
}

struct TenantStoreDamage: Error, CustomStringConvertible {
    var path: String
    var problems: [String]
    var description: String {
        "\(path): damaged tenant file, or another program's: \(problems.joined(separator: ", ")) "
            + "(restore the file from a backup, or move it away to start the tenant empty)"
    }
}

