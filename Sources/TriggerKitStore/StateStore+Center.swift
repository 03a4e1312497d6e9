import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

extension StateStore {
    /// Saves a center's snapshot (replacing the previous one) in one transaction: a crash
    /// leaves the previous snapshot or this one. O(size of the snapshot).
    public func saveCenter(_ snapshot: CenterSnapshot) throws(StateStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(snapshot)
        } catch {
            throw .database(path: path, reason: "cannot encode the center: \(error)")
        }
        let now = Timestamp.millis(Date())
        try transaction { db in
            try db.execute(sql: "INSERT OR REPLACE INTO center_snapshot (id, savedAt, json) VALUES (1, ?, ?)", arguments: [now, data])
        }
    }

    /// The saved center snapshot, or `nil` when none was saved.
    public func loadCenter() throws(StateStoreError) -> CenterSnapshot? {
        let data: Data? = try run { db in try Data.fetchOne(db, sql: "SELECT json FROM center_snapshot WHERE id = 1") }
        guard let data else { return nil }
        do {
            return try JSONDecoder().decode(CenterSnapshot.self, from: data)
        } catch {
            throw .database(path: path, reason: "damaged center snapshot: \(error)")
        }
    }
}
