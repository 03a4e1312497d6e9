import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

/// The saved progress of a run: the evaluator's state and how much input it covers.
@_spi(Engine) public struct SavedRun: Sendable {
    public var snapshot: EvaluatorSnapshot
    /// Input lines fully processed (the restarted run skips them).
    public var inputPosition: Int
    /// Digest of those lines (see ``InputDigest``); `nil` in a store from before schema 2.
    public var inputDigest: String?
    /// The result-changing options the run was started with (`key=value` list).
    public var options: String?
}

extension StateStore {
    static func hex(_ fingerprint: UInt64) -> String {
        let s = String(fingerprint, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The saved run, or `nil` for a store that has not recorded any run yet.
    ///
    /// - Throws: ``StateStoreError/requestsChanged(path:)`` when it was saved with requests
    ///   whose fingerprint differs from `fingerprint`, unless the saved options differ
    ///   (`optionsDiffer` of them is not empty): then ``StateStoreError/optionsChanged(path:differences:)``,
    ///   which names the cause (other `--settings` refuse other requests, and so change the
    ///   fingerprint: a helper found that reported as other requests).
    /// - Complexity: O(devices + cursors + done slots).
    @_spi(Engine) public func loadRun(fingerprint: UInt64, optionsDiffer: (String) -> [String] = { _ in [] }) throws(StateStoreError) -> SavedRun? {
        let path = self.path
        enum Outcome { case fresh, mismatch(String?), damaged(String), saved(SavedRun) }
        let outcome: Outcome = try run { db in
            guard let meta = try Row.fetchOne(db, sql: "SELECT * FROM meta WHERE id = 1") else { return .fresh }
            // Read with `decode`, which throws for a value of another type (a subscript traps),
            // from copied rows (a cursor's row reads a text as the integer 0): a hand-edited
            // or damaged file is refused as damaged.
            guard try meta.decode(String.self, forColumn: "requestsFingerprint") == Self.hex(fingerprint) else {
                return .mismatch(try? meta.decode(String?.self, forColumn: "options"))
            }
            let statsJSON = try meta.decode(String.self, forColumn: "stats")
            guard let stats = try? JSONDecoder().decode(StreamStats.self, from: Data(statsJSON.utf8)) else {
                return .damaged("unreadable stats")
            }
            var cursors: [EvaluatorSnapshot.QueuedFire] = []
            let cursorRows = try Row.fetchCursor(db, sql: "SELECT slot, nextDate FROM schedule_cursor")
            while let cursorRow = try cursorRows.next() {
                // A copy decodes strictly (a cursor's row reads a text as the integer 0).
                let row = cursorRow.copy()
                cursors.append(.init(slot: try row.decode(atIndex: 0), date: try row.decode(atIndex: 1)))
            }
            let done = try Int32.fetchAll(db, sql: "SELECT slot FROM done_location_slot ORDER BY slot")
            var devices: [DeviceSnapshot] = []
            let deviceRows = try Row.fetchCursor(db, sql: "SELECT * FROM device_state")
            while let deviceRow = try deviceRows.next() {
                let row = deviceRow.copy()
                guard let inside = BlobCoding.decodeInt32s(try row.decode(forColumn: "inside")),
                      let pendingSlots = BlobCoding.decodeInt32s(try row.decode(forColumn: "pendingSlots")),
                      let pendingSince = BlobCoding.decodeInt64s(try row.decode(forColumn: "pendingSince")),
                      let firedOnce = BlobCoding.decodeInt32s(try row.decode(forColumn: "firedOnce")),
                      pendingSlots.count == pendingSince.count
                else { return .damaged("damaged device row") }
                var settings: NotificationSettings?
                if let packed: Int = try row.decode(forColumn: "settings") {
                    guard let s = NotificationSettings(packed: packed) else { return .damaged("damaged device settings") }
                    settings = s
                }
                devices.append(DeviceSnapshot(name: try row.decode(forColumn: "name"), lastAccepted: try row.decode(forColumn: "lastAccepted"),
                                              lastUsed: try row.decode(forColumn: "lastUsed"),
                                              inside: inside, pendingSlots: pendingSlots, pendingSince: pendingSince,
                                              firedOnce: firedOnce, settings: settings))
            }
            var fences: FenceSnapshot?
            if let blob: Data = try meta.decode(forColumn: "fences") {
                // Binary since the fourth release's eleventh pass; JSON (an object) before.
                let read = blob.first == UInt8(ascii: "{") ? try? JSONDecoder().decode(FenceSnapshot.self, from: blob) : FenceSnapshot(binary: blob)
                guard let f = read else { return .damaged("unreadable fence state") }
                fences = f
            }
            let snapshot = EvaluatorSnapshot(
                requestsFingerprint: fingerprint, defaultAddedAt: try meta.decode(forColumn: "defaultAddedAt"),
                streamTime: try meta.decode(forColumn: "streamTime"),
                stats: stats, queuedFires: cursors, doneLocationSlots: done, devices: devices, fences: fences)
            let position: Int = try meta.decode(forColumn: "inputPosition")
            guard position >= 0 else { return .damaged("inputPosition is \(position)") }
            // The delivered log's counts (read without its lines): a negative one was resumed
            // from (found by a helper), though such a file is documented as refused.
            if let bad = try String.fetchOne(db, sql: "SELECT quote(count) FROM delivered WHERE typeof(count) <> 'integer' OR count < 0 LIMIT 1") {
                return .damaged("damaged saved state: a delivered batch's count is \(bad)")
            }
            return .saved(SavedRun(snapshot: snapshot, inputPosition: position,
                                   inputDigest: try meta.decode(forColumn: "inputDigest"), options: try meta.decode(forColumn: "options")))
        }
        switch outcome {
        case .fresh: return nil
        case .mismatch(let options):
            if let options {
                let diff = optionsDiffer(options)
                if !diff.isEmpty { throw .optionsChanged(path: path, differences: diff) }
            }
            throw .requestsChanged(path: path)
        case .damaged(let why): throw .database(path: path, reason: why)
        case .saved(let saved): return saved
        }
    }

    /// Whether the store holds a run: its meta row, written in one transaction with the
    /// requests' rows (``startRun(evaluator:pending:options:)``).
    package func hasRun() throws(StateStoreError) -> Bool {
        let found: (meta: Bool, progress: Int) = try run { db in
            (try Row.fetchOne(db, sql: "SELECT id FROM meta WHERE id = 1") != nil,
             try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM delivered) + (SELECT COUNT(*) FROM device_state)") ?? 0)
        }
        // Progress without its meta row is no unfinished initialisation (those write no
        // progress) but a damaged file: taken as new, its delivered log was wiped.
        if !found.meta && found.progress > 0 {
            throw .database(path: path, reason: "damaged saved state: delivered events or device states but no run record (meta)")
        }
        return found.meta
    }

    /// Records a new run: the evaluator's requests (with their pending flags), their
    /// fingerprint, and an empty progress. Replaces whatever an earlier, unfinished
    /// initialisation left.
    ///
    /// Each request is rendered once, for its row and for the fingerprint together
    /// (``StreamEvaluator/renderRequests(_:)``), which the evaluator keeps.
    /// - Returns: the requests' fingerprint (``StreamEvaluator/requestsFingerprint``).
    @_spi(Engine) @discardableResult public func startRun(evaluator: StreamEvaluator, pending: [Bool], options: String = "")
        throws(StateStoreError) -> UInt64 {
        let statsJSON = Self.json(StreamStats())
        let requests = evaluator.requests
        var fingerprint: UInt64 = 0
        try transaction { db in
            for table in ["meta", "request", "schedule_cursor", "device_state", "done_location_slot", "delivered"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            let insert = try db.makeStatement(sql: "INSERT INTO request (position, identifier, json, pending) VALUES (?, ?, ?, ?)")
            fingerprint = try evaluator.renderRequests { first, window in
                for (k, json) in window.enumerated() {
                    let i = first + k
                    try insert.execute(arguments: [i, requests[i].identifier, String(decoding: json, as: UTF8.self),
                                                   i < pending.count ? pending[i] : true])
                }
            }
            // (In the same transaction as the rows: a store has a meta row only with all of them.)
            try db.execute(sql: "INSERT INTO meta (id, requestsFingerprint, inputPosition, stats, inputDigest, options) VALUES (1, ?, 0, ?, ?, ?)",
                           arguments: [Self.hex(fingerprint), statsJSON, InputDigest().description, options])
        }
        return fingerprint
    }

    /// Commits one batch in a single transaction.
    ///
    /// Call it only once the batch's events have reached their destination (stdout
    /// flushed): a crash before the commit then repeats the batch, never loses it.
    /// - Complexity: O(changes in the batch) statements.
    @_spi(Engine) public func commit(_ batch: StateBatch) throws(StateStoreError) {
        let statsJSON = Self.json(batch.stats)
        try transaction { db in
            try db.cachedStatement(sql: """
                UPDATE meta SET inputPosition = ?, defaultAddedAt = ?, streamTime = ?, stats = ?, inputDigest = ? WHERE id = 1
                """).execute(arguments: [batch.inputPosition, batch.defaultAddedAt, batch.streamTime, statsJSON, batch.inputDigest])
            if let fences = batch.fences {
                try db.cachedStatement(sql: "UPDATE meta SET fences = ? WHERE id = 1").execute(arguments: [fences.binary])
            }
            if !batch.devices.isEmpty {
                let upsert = try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO device_state
                        (name, lastAccepted, lastUsed, inside, pendingSlots, pendingSince, firedOnce, settings)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for d in batch.devices {
                    try upsert.execute(arguments: [
                        d.name, d.lastAccepted, d.lastUsed, BlobCoding.encode(d.inside), BlobCoding.encode(d.pendingSlots),
                        BlobCoding.encode(d.pendingSince), BlobCoding.encode(d.firedOnce),
                        d.settings.map(\.packed)])
                }
            }
            if !batch.cursors.isEmpty {
                let set = try db.cachedStatement(sql: "INSERT OR REPLACE INTO schedule_cursor (slot, nextDate) VALUES (?, ?)")
                for c in batch.cursors { try set.execute(arguments: [c.slot, c.date]) }
            }
            if !batch.finishedCursors.isEmpty {
                let delete = try db.cachedStatement(sql: "DELETE FROM schedule_cursor WHERE slot = ?")
                for s in batch.finishedCursors { try delete.execute(arguments: [s]) }
            }
            if !batch.doneLocationSlots.isEmpty {
                let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO done_location_slot (slot) VALUES (?)")
                for s in batch.doneLocationSlots { try insert.execute(arguments: [s]) }
            }
            if !batch.finishedRequests.isEmpty {
                let update = try db.cachedStatement(sql: "UPDATE request SET pending = 0 WHERE position = ?")
                for r in batch.finishedRequests { try update.execute(arguments: [r]) }
            }
            if batch.deliveredCount > 0 {
                try db.cachedStatement(sql: "INSERT INTO delivered (count, lines) VALUES (?, ?)")
                    .execute(arguments: [batch.deliveredCount, Data(batch.deliveredLines)])
            }
        }
    }

    static func json(_ stats: StreamStats) -> String {
        // Encoding a struct of integers cannot fail; the fallback keeps the path total.
        (try? JSONEncoder().encode(stats)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
