import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

extension StateStore {
    /// The contract JSON (one line) of every request still pending, in requests-file order.
    /// O(requests).
    public func pendingRequestsJSON() throws(StateStoreError) -> [String] {
        try run { db in try String.fetchAll(db, sql: "SELECT json FROM request WHERE pending = 1 ORDER BY position") }
    }

    /// The delivered log: every fire so far, in delivery order, as the lines of `run`'s JSON
    /// output (eventIds, stored implicitly, put back). O(delivered).
    public func deliveredLog() throws(StateStoreError) -> [UInt8] {
        let blobs: [Data] = try run { db in try Data.fetchAll(db, sql: "SELECT lines FROM delivered ORDER BY seq") }
        var out: [UInt8] = []
        out.reserveCapacity(blobs.reduce(0) { $0 + $1.count })
        for b in blobs { out.append(contentsOf: b) }
        return DeliveredLog.restore(out)
    }

    /// Every delivered event, in delivery order, read back from the log. O(delivered).
    @_spi(Engine) public func deliveredEvents() throws(StateStoreError) -> [DeliveredEvent] {
        let log = try deliveredLog()
        var out: [DeliveredEvent] = []
        for line in log.split(separator: 0x0A) {
            guard let json = try? Array(line).withUnsafeBufferPointer({ try JSONValue.parse($0) }),
                  let e = DeliveredEvent(json: json) else {
                throw .database(path: path, reason: "damaged delivered log")
            }
            out.append(e)
        }
        return out
    }

    /// Input lines the saved run covers (0 for a store without a run).
    public func inputPosition() throws(StateStoreError) -> Int {
        try run { db in try Int.fetchOne(db, sql: "SELECT inputPosition FROM meta WHERE id = 1") ?? 0 }
    }
}
