import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

extension StateStore {
    /// Saves a center's snapshot (replacing the previous one) in one transaction: a crash
    /// leaves the previous snapshot or this one. Stored in its byte form
    /// (`CenterSnapshot.serialized()`). O(size of the snapshot).
    public func saveCenter(_ snapshot: CenterSnapshot) throws(StateStoreError) {
        let data: Data
        do throws(SnapshotError) {
            data = try snapshot.serialized()
        } catch {
            throw .database(path: path, reason: "cannot encode the center: \(error.reason)")
        }
        let now = Timestamp.millis(Date())
        try transaction { db in
            try db.execute(sql: "INSERT OR REPLACE INTO center_snapshot (id, savedAt, json) VALUES (1, ?, ?)", arguments: [now, data])
        }
    }

    /// The saved center snapshot, or `nil` when none was saved. Reads the byte form and the
    /// JSON that earlier versions saved (the column is still named `json`).
    public func loadCenter() throws(StateStoreError) -> CenterSnapshot? {
        let data: Data? = try run { db in try Data.fetchOne(db, sql: "SELECT json FROM center_snapshot WHERE id = 1") }
        guard let data else { return nil }
        do throws(SnapshotError) {
            return try CenterSnapshot(serialized: data)
        } catch {
            throw .database(path: path, reason: "damaged center snapshot: \(error.reason)")
        }
    }
}
