import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import GRDB

extension StateStore {
    /// The contract JSON (one line) of every request still pending, in requests-file order.
    /// O(requests).
    package func pendingRequestsJSON() throws(StateStoreError) -> [String] {
        try run { db in try String.fetchAll(db, sql: "SELECT json FROM request WHERE pending = 1 ORDER BY position") }
    }

    /// Every request still pending, in requests-file order, as its contract JSON with what
    /// the run gave it: `addedAt` filled in when the request had none (the run's default, once
    /// the stream started), and `"nextFire"`: the queued next fire of a time-based trigger
    /// (`null` for location triggers, which fire on fixes). O(requests).
    public func pendingRequestsDetailed() throws(StateStoreError) -> [JSONValue] {
        let path = self.path
        let rows: (defaultAddedAt: Int64?, requests: [(json: String, pending: Bool)], cursors: [Int32: Int64]) = try run { db in
            // (A copied row decodes strictly: `Int64.fetchOne` read a text as 0.)
            let added: Int64? = try Row.fetchOne(db, sql: "SELECT defaultAddedAt FROM meta WHERE id = 1")?.decode(forColumn: "defaultAddedAt")
            var requests: [(String, Bool)] = []
            let cursor = try Row.fetchCursor(db, sql: "SELECT json, pending FROM request ORDER BY position")
            while let row = try cursor.next()?.copy() { requests.append((try row.decode(atIndex: 0), try row.decode(atIndex: 1))) }
            var cursors: [Int32: Int64] = [:]
            let c = try Row.fetchCursor(db, sql: "SELECT slot, nextDate FROM schedule_cursor")
            while let row = try c.next()?.copy() { cursors[try row.decode(atIndex: 0)] = try row.decode(atIndex: 1) }
            return (added, requests, cursors)
        }
        // Dates as `run` would refuse them damaged (``StreamEvaluator/damage(in:)``): written
        // out, one past year 9999 trapped.
        for (name, ms) in [("defaultAddedAt", rows.defaultAddedAt)] + rows.cursors.map({ ("the queued fire of slot \($0.key)", $0.value) }) {
            if let ms, let why = RequestLimits.damagedDate(ms, name) { throw .database(path: path, reason: "damaged saved state: \(why)") }
        }
        var out: [JSONValue] = []
        // Schedule slots number the time-based requests in file order (FireSchedule's rule).
        var slot: Int32 = 0
        for r in rows.requests {
            guard case .object(var o)? = try? JSONValue.parse(r.json) else {
                throw .database(path: path, reason: "damaged request row")
            }
            let isLocation: Bool = {
                if case .object(let t)? = o["trigger"], case .string("location")? = t["type"] { return true }
                return false
            }()
            let mySlot: Int32? = isLocation ? nil : slot
            if !isLocation { slot += 1 }
            guard r.pending else { continue }
            if o["addedAt"] == nil, let added = rows.defaultAddedAt { o["addedAt"] = .string(Timestamp.string(millis: added)) }
            o["nextFire"] = mySlot.flatMap { rows.cursors[$0] }.map { .string(Timestamp.string(millis: $0)) } ?? .null
            out.append(.object(o))
        }
        return out
    }

    /// The delivered log: every fire so far, in delivery order, as the lines of `run`'s JSON
    /// output (eventIds, stored implicitly, put back). O(delivered).
    package func deliveredLog() throws(StateStoreError) -> [UInt8] {
        let blobs: [Data] = try run { db in try Data.fetchAll(db, sql: "SELECT lines FROM delivered ORDER BY seq") }
        for b in blobs where !DeliveredLog.isWellFormed(b) { throw .database(path: path, reason: "damaged delivered log") }
        var out: [UInt8] = []
        out.reserveCapacity(blobs.reduce(0) { $0 + $1.count })
        for b in blobs { out.append(contentsOf: b) }
        return DeliveredLog.restore(out)
    }

    /// The delivered log as ``deliveredLog()`` gives it, one run batch at a time (the events
    /// of at most 50,000 input lines), so the log's size does not bound what can be listed;
    /// `body` returning false stops the walk (a closed pipe).
    @_spi(Engine) public func forEachDeliveredBatch(_ body: ([UInt8]) -> Bool) throws(StateStoreError) {
        try run { db in
            let batches = try Data.fetchCursor(db, sql: "SELECT lines FROM delivered ORDER BY seq")
            while let b = try batches.next() {
                // Not written out as it stands: `delivered` printed a flipped byte's garbage as
                // an event (found by a helper).
                guard DeliveredLog.isWellFormed(b) else { throw DatabaseError(message: "damaged delivered log") }
                guard body(DeliveredLog.restore([UInt8](b))) else { return }
            }
        }
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
    package func inputPosition() throws(StateStoreError) -> Int {
        try run { db in try Int.fetchOne(db, sql: "SELECT inputPosition FROM meta WHERE id = 1") ?? 0 }
    }
}
