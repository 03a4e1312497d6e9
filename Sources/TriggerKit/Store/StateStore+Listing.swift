import Foundation
import GRDB

extension StateStore {
    /// The contract JSON (one line) of every request still pending, in requests-file order.
    /// O(requests).
    public func pendingRequestsJSON() throws(StateStoreError) -> [String] {
        try run { db in try String.fetchAll(db, sql: "SELECT json FROM request WHERE pending = 1 ORDER BY position") }
    }

    /// Every delivered event, in delivery order. O(delivered).
    public func deliveredEvents() throws(StateStoreError) -> [DeliveredEvent] {
        let path = self.path
        let rows: [DeliveredEvent?] = try run { db in
            try Row.fetchAll(db, sql: "SELECT * FROM delivered ORDER BY seq").map { row in
                guard let trigger = TriggerKind(rawValue: row["trigger"]) else { return nil }
                let event: String? = row["event"]
                return DeliveredEvent(eventId: row["eventId"], identifier: row["identifier"], date: row["date"],
                                      trigger: trigger, event: event.flatMap(Crossing.init(rawValue:)),
                                      device: row["device"], region: row["region"],
                                      presentation: Presentation(rawValue: UInt8(truncatingIfNeeded: row["presentation"] as Int)))
            }
        }
        var out: [DeliveredEvent] = []
        out.reserveCapacity(rows.count)
        for r in rows {
            guard let r else { throw .database(path: path, reason: "damaged delivered row") }
            out.append(r)
        }
        return out
    }

    /// Input lines the saved run covers (0 for a store without a run).
    public func inputPosition() throws(StateStoreError) -> Int {
        try run { db in try Int.fetchOne(db, sql: "SELECT inputPosition FROM meta WHERE id = 1") ?? 0 }
    }
}
