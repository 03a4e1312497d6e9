import Foundation
@_spi(Engine) import TriggerKit
import GRDB

extension StateStore {
    /// Removes from the delivered log every event dated before `date` (to the millisecond):
    /// the bound the log otherwise lacks. Takes the writer lock (a running `run --state` holds
    /// it: ``StateStoreError/locked(path:holder:)``), rewrites the batches in one transaction
    /// and reclaims the space. A line whose date cannot be read is kept.
    ///
    /// - Returns: how many events were removed and how many are kept.
    /// - Complexity: O(delivered bytes).
    /// - Throws: ``StateStoreError/invalidArgument(path:reason:)`` for a date that is NaN or
    ///   outside years 1-9999 (clamped, a date after 9999 removed everything).
    public func pruneDelivered(before date: Date) throws(StateStoreError) -> (removed: Int, kept: Int) {
        guard let before = RequestLimits.millis(date) else {
            throw .invalidArgument(path: path, reason: "prune date \(date.timeIntervalSince1970) s since 1970 is outside the supported dates (years 1-9999)")
        }
        try lockForWriting()
        var removed = 0, kept = 0
        try transaction { db in
            var rows: [(seq: Int64, lines: Data)] = []
            let cursor = try Row.fetchCursor(db, sql: "SELECT seq, lines FROM delivered ORDER BY seq")
            while let row = try cursor.next()?.copy() { rows.append((try row.decode(atIndex: 0), try row.decode(atIndex: 1))) }
            let update = try db.makeStatement(sql: "UPDATE delivered SET count = ?, lines = ? WHERE seq = ?")
            let delete = try db.makeStatement(sql: "DELETE FROM delivered WHERE seq = ?")
            for row in rows {
                var out: [UInt8] = []
                var count = 0, dropped = 0
                for line in row.lines.split(separator: 0x0A) {
                    if let date = Self.date(of: line), date < before {
                        dropped += 1
                        continue
                    }
                    out.append(contentsOf: line)
                    out.append(0x0A)
                    count += 1
                }
                removed += dropped
                kept += count
                guard dropped > 0 else { continue }
                if count == 0 {
                    try delete.execute(arguments: [row.seq])
                } else {
                    try update.execute(arguments: [count, Data(out), row.seq])
                }
            }
        }
        // Outside the transaction: the file shrinks by what was removed.
        try run { db in try db.execute(sql: "VACUUM") }
        return (removed, kept)
    }

    /// The `"date"` of one line of `run`'s JSON output (it follows `"identifier"`).
    static func date<C: Collection<UInt8>>(of line: C) -> Int64? {
        let key = Array(#""date":""#.utf8)
        let bytes = Array(line)
        guard bytes.count > key.count else { return nil }
        for i in 0...(bytes.count - key.count) where bytes[i] == key[0] && Array(bytes[i..<(i + key.count)]) == key {
            let start = i + key.count
            guard let end = bytes[start...].firstIndex(of: 0x22) else { return nil }
            return Timestamp.parseMillis(String(decoding: bytes[start..<end], as: UTF8.self))
        }
        return nil
    }
}
