import Foundation
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

    /// The schema version this build writes and reads.
    public static let schemaVersion = 1
    /// SQLite `application_id` marking a TriggerKit state file ("TRKS"): tells our files
    /// from any other SQLite database before anything is written.
    static let applicationID: Int32 = 0x5452_4B53

    public let path: String
    let dbQueue: DatabaseQueue

    /// Opens the state file at `path`, creating it (and its schema) when it does not exist
    /// or is empty.
    ///
    /// - Throws: ``StateStoreError/notAStore(path:)`` for a file that is not a TriggerKit
    ///   store (it is left untouched), ``StateStoreError/newerSchema(path:version:supported:)``
    ///   for a store written by a newer build, ``StateStoreError/cannotOpen(path:reason:)``
    ///   when the file cannot be opened.
    public init(path: String, durability: Durability = .processCrash) throws(StateStoreError) {
        self.path = path
        var config = Configuration()
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
    }

    /// Refuses a file whose `application_id` is not ours, unless it is a brand-new empty
    /// database. Runs before any write.
    private func checkIdentity() throws(StateStoreError) {
        let (appID, objects): (Int32, Int)
        do {
            (appID, objects) = try dbQueue.read { db in
                (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notAStore(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        guard appID == Self.applicationID || (appID == 0 && objects == 0) else { throw .notAStore(path: path) }
        try run { db in
            // WAL: commits append to the log (a killed process loses nothing committed) and
            // readers do not block the writer. Must run outside a transaction.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
    }

    private func migrate() throws(StateStoreError) {
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
    public func storedSchemaVersion() throws(StateStoreError) -> Int {
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

    static func reason(_ error: any Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e.resultCode)" }
        return "\(error)"
    }
}
