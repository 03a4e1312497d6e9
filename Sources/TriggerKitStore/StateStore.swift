import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

/// The durable state of a run (`triggerkit run --state FILE`) in one SQLite file: pending
/// requests, per-device state, time-trigger cursors, the input position and the delivered
/// log. ``DurableRun`` drives it; `pending` and `delivered` read it.
///
/// The file is opened in WAL mode: a commit appends to the write-ahead log, so a process
/// killed at any instant leaves either the whole transaction or none of it, and readers
/// (`triggerkit delivered`) never block the writer.
///
/// Thread safety: the queue serialises every access; one writer process per file.
public final class StateStore: Sendable {
    /// How hard a commit pushes its data to disk.
    public enum Durability: Sendable, Hashable {
        /// `synchronous=NORMAL`: a commit is written to the WAL but not fsynced. It survives
        /// the process being killed (the data is in the OS page cache), and the database stays
        /// consistent after a power loss, which may however roll back the last commits (so
        /// more than one batch could be repeated after a power cut).
        case processCrash
        /// `synchronous=FULL`: every commit is fsynced, so it also survives a power loss;
        /// costs one fsync per batch.
        case powerLoss
    }

    /// The schema version this build writes and reads (2: input digest, options and holder
    /// of the run; 3: the state of fences with rules; 4: that state as a binary blob). Older
    /// stores are migrated when a run opens them.
    public static let schemaVersion = 4
    /// SQLite `application_id` marking a TriggerKit state file ("TRKS"): tells our files
    /// from any other SQLite database before anything is written.
    static let applicationID: Int32 = 0x5452_4B53

    /// The state file, as given.
    public let path: String
    let dbQueue: DatabaseQueue
    /// Whether the store was opened only to read (``init(readingAt:)``).
    public let isReadOnly: Bool
    /// The exclusive writer lock (see ``lockForWriting()``); -1 when not held.
    private let lock = WriterLock()

    /// Opens the state file at `path`, creating it (and its schema) when it does not exist
    /// or is empty.
    ///
    /// - Throws: ``StateStoreError/notAStore(path:)`` for a file that is not a TriggerKit
    ///   store (it is left untouched), ``StateStoreError/newerSchema(path:version:supported:)``
    ///   for a store written by a newer build, ``StateStoreError/cannotOpen(path:reason:)``
    ///   when the file cannot be opened, ``StateStoreError/database(path:reason:)`` for one
    ///   missing a table or column of its schema (`damaged state file: table delivered is missing`).
    public init(path: String, durability: Durability = .processCrash) throws(StateStoreError) {
        self.path = path
        self.isReadOnly = false
        // A device, a pipe or a directory is no state file: SQLite would write its journal
        // beside it (`/dev/null-journal`) before failing.
        try Self.refuseIfNotRegular(path)
        var config = Configuration()
        config.busyMode = .timeout(Self.busyTimeout)
        // Left at `.default` on purpose: `.wal` would switch the journal mode at open, i.e.
        // write to a foreign database before we could tell it is not ours.
        config.journalMode = .default
        config.label = "TriggerKit.StateStore"
        let sync = durability == .powerLoss ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            // Per-connection setting; writes nothing to the file.
            try db.execute(sql: "PRAGMA synchronous = \(sync)")
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notAStore(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        dbQueue = queue
        try checkIdentity()
        try migrate()
        try checkTables()
    }

    /// Opens an existing state file only to read it (`triggerkit pending` and `delivered`):
    /// SQLite's read-only mode, no journal-mode change, no migration, so nothing is written
    /// and no file is created next to it. Works in a read-only directory when the last run
    /// ended cleanly (it leaves the file in rollback-journal mode, self-contained), and
    /// beside a running writer (whose write-ahead log it reads).
    ///
    /// - Throws: ``StateStoreError/cannotOpen(path:reason:)`` for a missing file,
    ///   ``StateStoreError/notAStore(path:)`` for another kind of file,
    ///   ``StateStoreError/database(path:reason:)`` for one missing a table or column.
    public init(readingAt path: String) throws(StateStoreError) {
        self.path = path
        self.isReadOnly = true
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        try Self.refuseIfNotRegular(path)
        // An empty file is one a run was creating when it stopped (the next run finishes it).
        if ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue == 0 {
            throw .cannotOpen(path: path, reason: Self.unfinished)
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(Self.busyTimeout)
        config.journalMode = .default
        config.label = "TriggerKit.StateStore.reader"
        do {
            dbQueue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notAStore(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        let appID: Int32
        do {
            appID = try dbQueue.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0 }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notAStore(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        guard appID == Self.applicationID else { throw .notAStore(path: path) }
        // A newer build's file is refused here too, not misread (`pending`, `delivered`).
        let superseded: Bool
        do {
            superseded = try dbQueue.read { db in try Self.migrator.hasBeenSuperseded(db) }
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        if superseded {
            let version = (try? dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT version FROM schema_info") }) ?? nil
            throw .newerSchema(path: path, version: version ?? -1, supported: Self.schemaVersion)
        }
        try checkMigrationRecord()
        // Ours but without its whole schema yet: a run is creating it (or stopped while it
        // did). Said so, not as SQLite's "no such table: meta" at the first read.
        let complete = (try? dbQueue.read { db in try Self.migrator.hasCompletedMigrations(db) }) ?? false
        guard complete else { throw .cannotOpen(path: path, reason: Self.unfinished) }
        try checkTables()
    }

    /// Why a reader cannot use a state file a run has not finished creating.
    package static let unfinished = "the state file is not complete: a run is creating it, or stopped while creating it (the next run finishes it)"

    /// How long a read or write waits for a lock another connection holds (a reader beside
    /// a running `run --state`, whose write-ahead log checkpoints take one) before failing.
    static let busyTimeout: TimeInterval = 10

    /// Throws ``StateStoreError/cannotOpen(path:reason:)`` when something other than a regular
    /// file (or a symbolic link to one) is at `path`; nothing there is fine (a new store).
    private static func refuseIfNotRegular(_ path: String) throws(StateStoreError) {
        // Names SQLite reads as "no file" (an empty path: a temporary database; `:memory:`):
        // a store there kept nothing, and said nothing (found by a helper).
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
            throw .cannotOpen(path: path, reason: "not a file path (SQLite would keep the state in memory or a temporary file)")
        }
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            let kind = (st.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw .cannotOpen(path: path, reason: "\(kind): a state file must be a regular file")
        }
    }

    /// Takes the exclusive writer lock for this process's lifetime (released when the store
    /// is deinitialised or the process ends, also by `kill -9`): one `run --state` at a time.
    /// A `flock` on the database file, independent of SQLite's own POSIX locks. Does not wait
    /// for another process; see below for this one.
    ///
    /// A `flock` belongs to the open file, which a child forked by this process shares until it
    /// execs: a store let go of here while another thread was starting a child stays locked for
    /// that moment (seen in the test suite, which starts processes while it reopens stores, as
    /// "in use by another run (pid <its own>)"). So when this process held the file's lock
    /// before (``WriterLock/releasedHere``), the lock is tried again for up to ``ownLockWait``.
    ///
    /// - Throws: ``StateStoreError/locked(path:holder:)`` naming the holder recorded in the
    ///   store (see ``recordHolder()``) when another process holds it.
    package func lockForWriting() throws(StateStoreError) {
        switch lock.acquire(path, waiting: Self.ownLockWait, while: { WriterLock.wasReleasedHere(path) }) {
        case .acquired:
            return
        case .busy:
            let holder = (try? dbQueue.read { db in try String.fetchOne(db, sql: "SELECT holder FROM meta WHERE id = 1") }) ?? nil
            throw .locked(path: path, holder: holder ?? "another process")
        case .failed(let why):
            throw .cannotOpen(path: path, reason: "cannot lock: \(why)")
        }
    }

    /// How long ``lockForWriting()`` waits for a lock this process let go of (a child being
    /// started shares it until it execs; see there).
    static let ownLockWait = Duration.seconds(2)

    /// Records this process as the lock's holder (shown to a second writer). Call after the
    /// run's meta row exists.
    package func recordHolder() throws(StateStoreError) {
        let me = "pid \(getpid()), started \(Timestamp.string(millis: Timestamp.millis(Date())))"
        try run { db in try db.execute(sql: "UPDATE meta SET holder = ? WHERE id = 1", arguments: [me]) }
    }

    /// Leaves the file self-contained: checkpoints the write-ahead log into it and switches
    /// back to a rollback journal, so readers need no `-wal`/`-shm` files (a read-only
    /// directory works). The next run switches to WAL again. Call at the end of a run.
    public func closeCleanly() throws(StateStoreError) {
        try run { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
        }
    }

    /// Refuses a file whose `application_id` is not ours, unless it is a brand-new empty
    /// database, which it marks as ours first of all. Runs before any other write.
    ///
    /// The mark comes first because a run can be killed at any moment, also while it creates
    /// the file: marked before GRDB's migration table and the schema exist, a file left
    /// half-made is ours and is finished by the next run. (Made the other way round, a run
    /// killed about 30 ms after start left a file every later run refused as not a state
    /// file.) A file that an earlier release left that way, holding nothing but an empty
    /// migration table, is taken as new too: there is nothing in it to protect.
    private func checkIdentity() throws(StateStoreError) {
        let (appID, objects, migrations): (Int32, [String], Int)
        do {
            (appID, objects, migrations) = try dbQueue.read { db in
                let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master")
                let applied = names.contains("grdb_migrations") ? try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") ?? 0 : 0
                return (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0, names, applied)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notAStore(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        if appID != Self.applicationID {
            let bookkeepingOnly = objects.allSatisfy { $0 == "grdb_migrations" || $0 == "sqlite_autoindex_grdb_migrations_1" }
            guard appID == 0 && bookkeepingOnly && migrations == 0 else { throw .notAStore(path: path) }
            try run { db in try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)") }
        }
        try run { db in
            // WAL: commits append to the log (a killed process loses nothing committed) and
            // readers do not block the writer. Must run outside a transaction.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
    }

    private func migrate() throws(StateStoreError) {
        try checkMigrationRecord()
        let migrator = Self.migrator
        let superseded = try run { db in try migrator.hasBeenSuperseded(db) }
        if superseded {
            let version = (try? dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT version FROM schema_info") }) ?? nil
            throw .newerSchema(path: path, version: version ?? -1, supported: Self.schemaVersion)
        }
        do {
            try migrator.migrate(dbQueue)
        } catch {
            throw .database(path: path, reason: Self.reason(error))
        }
    }

    /// The schema version recorded in the file.
    package func storedSchemaVersion() throws(StateStoreError) -> Int {
        try run { db in try Int.fetchOne(db, sql: "SELECT version FROM schema_info") ?? 0 }
    }

    /// Runs `body` on the connection (no implicit transaction), mapping SQLite errors to
    /// ``StateStoreError/database(path:reason:)``.
    func run<T>(_ body: (Database) throws -> T) throws(StateStoreError) -> T {
        do {
            return try dbQueue.writeWithoutTransaction(body)
        } catch {
            throw .database(path: path, reason: Self.reason(error))
        }
    }

    /// Runs `body` in one immediate transaction: all of it is committed or none.
    func transaction(_ body: (Database) throws -> Void) throws(StateStoreError) {
        do {
            try dbQueue.inTransaction(.immediate) { db in
                try body(db)
                return .commit
            }
        } catch {
            throw .database(path: path, reason: Self.reason(error))
        }
    }

    /// SQLite's message, naming the process limit behind an I/O error or a file that cannot
    /// be opened (``ProcessLimits``): SQLite says only `disk I/O error` past `ulimit -f`.
    static func reason(_ error: any Error) -> String {
        if let e = error as? DatabaseError {
            return (e.message ?? "\(e.resultCode)")
                + ProcessLimits.hint(ioError: e.resultCode == .SQLITE_IOERR, cannotOpen: e.resultCode == .SQLITE_CANTOPEN)
        }
        return "\(error)"
    }
}
