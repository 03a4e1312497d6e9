import Foundation
@_spi(Engine) import TriggerKit
import GRDB

/// What ``StateStore/pruneDelivered(before:)`` did.
public struct PruneSummary: Sendable, Hashable {
    /// Events removed from the delivered log (committed).
    public let removed: Int
    /// Events kept.
    public let kept: Int
    /// Why the file was not shrunk after the removal was committed (the disk is full), or
    /// nil. Shrinking rewrites the file and needs about its size in free disk space; without
    /// it the removal still stands and the freed space is reused by later writes (the next
    /// prune tries again).
    public let notShrunk: String?
}

extension StateStore {
    /// Removes from the delivered log every event dated before `date` (to the millisecond):
    /// the bound the log otherwise lacks. Takes the writer lock (a running `run --state` holds
    /// it: ``StateStoreError/locked(path:holder:)``), rewrites the batches in one transaction,
    /// then shrinks the file by the space freed (now or by an earlier prune). A line whose date
    /// cannot be read is kept.
    ///
    /// A shrink that fails for want of disk space (room to rewrite the file) does not undo the
    /// removal: it is reported in ``PruneSummary/notShrunk``, not thrown. Any other failure of
    /// the shrink is thrown, after the removal was committed.
    ///
    /// - Returns: how many events were removed and kept, and whether the file was shrunk.
    /// - Complexity: O(delivered bytes) time; memory for ``pruneChunk`` batches at a time.
    /// - Throws: ``StateStoreError/invalidArgument(path:reason:)`` for a date that is NaN or
    ///   outside years 1-9999 (clamped, a date after 9999 removed everything);
    ///   ``StateStoreError/database(path:reason:)`` when the removal could not be committed
    ///   (nothing is removed then), or the shrink failed otherwise than for space.
    public func pruneDelivered(before date: Date) throws(StateStoreError) -> PruneSummary {
        try pruneDelivered(before: date) { db in try db.execute(sql: "VACUUM") }
    }

    /// Batches read at a time by a prune (a batch is one commit of `run`: at most a few MB).
    static let pruneChunk = 64

    /// ``pruneDelivered(before:)`` with the shrinking step given (a test makes it fail).
    package func pruneDelivered(before date: Date, shrink: (Database) throws -> Void) throws(StateStoreError) -> PruneSummary {
        guard let before = RequestLimits.millis(date) else {
            throw .invalidArgument(path: path, reason: "prune date \(date.timeIntervalSince1970) s since 1970 is outside the supported dates (years 1-9999)")
        }
        try lockForWriting()
        var removed = 0, kept = 0
        try transaction { db in
            let read = try db.makeStatement(sql: "SELECT seq, lines FROM delivered WHERE seq > ? ORDER BY seq LIMIT ?")
            let update = try db.makeStatement(sql: "UPDATE delivered SET count = ?, lines = ? WHERE seq = ?")
            let delete = try db.makeStatement(sql: "DELETE FROM delivered WHERE seq = ?")
            var after = Int64.min
            while true {
                // A chunk read whole before any of it is changed (no cursor open across writes).
                let rows = try Row.fetchAll(read, arguments: [after, Self.pruneChunk])
                    .map { (seq: try $0.decode(atIndex: 0) as Int64, lines: try $0.decode(atIndex: 1) as Data) }
                guard let last = rows.last else { break }
                after = last.seq
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
        }
        // Outside the transaction, and only when there is free space to give back. A disk
        // without room for the rewrite leaves the file as it is (a warning); any other failure
        // (I/O, a damaged file) is an error, as everywhere.
        var notShrunk: String?
        do {
            try dbQueue.writeWithoutTransaction { db in
                if try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 > 0 { try shrink(db) }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            notShrunk = Self.reason(error)
        } catch {
            throw .database(path: path, reason: Self.reason(error))
        }
        return PruneSummary(removed: removed, kept: kept, notShrunk: notShrunk)
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
