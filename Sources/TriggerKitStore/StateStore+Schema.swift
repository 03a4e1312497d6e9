@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

extension StateStore {
    /// The schema, one migration per version. A file migrated by a newer build carries
    /// migration identifiers this list does not know: ``StateStoreError/newerSchema(path:version:supported:)``.
    static let migrator: DatabaseMigrator = {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                PRAGMA application_id = \(StateStore.applicationID);
                CREATE TABLE schema_info (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    application TEXT NOT NULL,
                    version INTEGER NOT NULL);
                INSERT INTO schema_info (id, application, version) VALUES (1, 'TriggerKit', 1);
                -- One row; absent until the run's requests are recorded.
                CREATE TABLE meta (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    requestsFingerprint TEXT NOT NULL,
                    inputPosition INTEGER NOT NULL,   -- input lines fully processed and committed
                    defaultAddedAt INTEGER,           -- epoch ms; NULL before the first line
                    streamTime INTEGER,               -- epoch ms; NULL before the first line
                    stats TEXT NOT NULL);             -- StreamStats as JSON
                CREATE TABLE request (
                    position INTEGER PRIMARY KEY,     -- index in the requests file
                    identifier TEXT NOT NULL,
                    json TEXT NOT NULL,               -- contract JSON
                    pending INTEGER NOT NULL);
                CREATE TABLE schedule_cursor (
                    slot INTEGER PRIMARY KEY,         -- time-trigger slot of the schedule
                    nextDate INTEGER NOT NULL);       -- epoch ms of its next fire
                CREATE TABLE device_state (
                    name TEXT PRIMARY KEY,
                    lastAccepted INTEGER NOT NULL,
                    lastUsed INTEGER NOT NULL,
                    inside BLOB NOT NULL,             -- Int32 LE location slots
                    pendingSlots BLOB NOT NULL,       -- Int32 LE
                    pendingSince BLOB NOT NULL,       -- Int64 LE epoch ms
                    firedOnce BLOB NOT NULL,          -- Int32 LE
                    settings INTEGER                  -- NotificationSettings.packed; NULL = default
                ) WITHOUT ROWID;
                CREATE TABLE done_location_slot (slot INTEGER PRIMARY KEY);
                -- Every delivered fire, in delivery order. Rows are inserted in the same
                -- transaction as the input position, so a fire repeated after a crash was
                -- never logged: no unique index on eventId is needed. Not having one matters:
                -- eventIds are hashes, and a random-key index dirties a page per insert
                -- (it multiplied the bytes written per commit by ~10 on a 1M-line run).
                CREATE TABLE delivered (
                    seq INTEGER PRIMARY KEY,          -- one row per committed batch
                    count INTEGER NOT NULL,           -- fires in the batch
                    lines BLOB NOT NULL);             -- their lines of run's JSON output
                """)
        }
        m.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE meta ADD COLUMN inputDigest TEXT;      -- hash of the consumed input lines
                ALTER TABLE meta ADD COLUMN options TEXT;          -- result-changing options, key=value;...
                ALTER TABLE meta ADD COLUMN holder TEXT;           -- the run holding the writer lock
                -- An embedding service's TriggerCenter, saved whole (CenterSnapshot as JSON).
                CREATE TABLE center_snapshot (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    savedAt INTEGER NOT NULL,         -- epoch ms
                    json BLOB NOT NULL);
                UPDATE schema_info SET version = 2;
                """)
        }
        m.registerMigration("v3") { db in
            try db.execute(sql: """
                -- Fences with rules (dwell, accuracy, window, crossings): FenceSnapshot as
                -- JSON, rewritten whole by each batch; NULL when no request has rules.
                ALTER TABLE meta ADD COLUMN fences BLOB;
                UPDATE schema_info SET version = 3;
                """)
        }
        m.registerMigration("v4") { db in
            try db.execute(sql: """
                -- meta.fences is written as FenceSnapshot's binary blob (magic "TKF1") from
                -- here on; a JSON one left by version 3 is still read. The version moves so
                -- that an older build refuses the file as newer instead of misreading it.
                UPDATE schema_info SET version = 4;
                """)
        }
        return m
    }()

    /// Every table and column of the current schema. A file missing one (dropped by hand or by
    /// a tool) is refused when it is opened, naming it, rather than at the first read or commit
    /// that needs it: a dropped `delivered` table was found only at a commit, after that
    /// batch's events had been written out.
    static let tables: [(name: String, columns: [String])] = [
        ("schema_info", ["id", "application", "version"]),
        ("meta", ["id", "requestsFingerprint", "inputPosition", "defaultAddedAt", "streamTime", "stats",
                  "inputDigest", "options", "holder", "fences"]),
        ("request", ["position", "identifier", "json", "pending"]),
        ("schedule_cursor", ["slot", "nextDate"]),
        ("device_state", ["name", "lastAccepted", "lastUsed", "inside", "pendingSlots", "pendingSince", "firedOnce", "settings"]),
        ("done_location_slot", ["slot"]),
        ("delivered", ["seq", "count", "lines"]),
        ("center_snapshot", ["id", "savedAt", "json"]),
    ]

    /// Refuses a file whose record of applied migrations was lost (`grdb_migrations` dropped
    /// or emptied) while the schema they made is there: each migration records itself in the
    /// transaction that makes its part, so a file being created never looks so. The reader
    /// called it unfinished ("the next run finishes it"), and the next run failed on
    /// `table schema_info already exists`.
    func checkMigrationRecord() throws(StateStoreError) {
        let lost: Bool
        do {
            lost = try dbQueue.read { db -> Bool in
                let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
                guard tables.contains("schema_info") else { return false }
                let version = try Int.fetchOne(db, sql: "SELECT version FROM schema_info") ?? 0
                let applied = tables.contains("grdb_migrations") ? try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") ?? 0 : 0
                // (A version past this build's is a newer build's file, refused as such.)
                return applied < min(version, StateStore.schemaVersion)
            }
        } catch {
            throw .database(path: path, reason: Self.reason(error))
        }
        if lost { throw .database(path: path, reason: "damaged state file: its record of schema migrations (table grdb_migrations) is missing or short") }
    }

    /// Refuses a file whose schema lacks a table or column of ``tables`` (after migrating).
    func checkTables() throws(StateStoreError) {
        let missing: String?
        do {
            missing = try dbQueue.read { db -> String? in
                // Tables only: a view of the same name reads, but a commit cannot write it.
                let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
                for (table, columns) in Self.tables {
                    guard tables.contains(table) else { return "table \(table) is missing" }
                    let have = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
                    if have.isEmpty { return "table \(table) is missing" }
                    if let c = columns.first(where: { !have.contains($0) }) { return "column \(table).\(c) is missing" }
                }
                return nil
            }
        } catch {
            throw .database(path: path, reason: Self.reason(error))
        }
        if let missing { throw .database(path: path, reason: "damaged state file: \(missing)") }
    }
}
