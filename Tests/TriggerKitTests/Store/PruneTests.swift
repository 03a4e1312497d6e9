import Foundation
import GRDB
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

/// `prune` on a delivered log longer than one read (it read the whole log into memory), and
/// on a disk without room to rewrite the file: the removal is committed before the shrink,
/// which failed with an error every time after (a helper filling a disk).
@Suite("State store: prune")
struct PruneTests {
    static let full = DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")

    /// A store whose delivered log has `batches` batches of three events, an hour apart
    /// (batch b's events at 2026-11-01 + b hours, + 20 min, + 40 min), each line padded to
    /// 2 KB so removed batches free whole pages.
    static func store(_ tmp: TempStorePath, batches: Int) throws -> StateStore {
        let store = try StateStore(path: tmp.path)
        let start = Timestamp.millis(Date(timeIntervalSince1970: 1_793_491_200))  // 2026-11-01T00:00:00Z
        let pad = String(repeating: "x", count: 2_000)
        try store.dbQueue.write { db in
            for b in 0..<batches {
                let lines: String = (0..<3).map { (i: Int) -> String in
                    let date = Timestamp.string(millis: start + Int64(b) * 3_600_000 + Int64(i) * 1_200_000)
                    return "{\"identifier\":\"r\(b)\",\"date\":\"\(date)\",\"trigger\":\"timeInterval\",\"pad\":\"\(pad)\"}\n"
                }.joined()
                try db.execute(sql: "INSERT INTO delivered (count, lines) VALUES (?, ?)", arguments: [3, Data(lines.utf8)])
            }
        }
        return store
    }

    static func dates(_ store: StateStore) throws -> [String] {
        try store.dbQueue.read { db in
            try Data.fetchAll(db, sql: "SELECT lines FROM delivered ORDER BY seq").flatMap { data in
                data.split(separator: 0x0A).compactMap { line -> String? in
                    StateStore.date(of: line).map { Timestamp.string(millis: $0) }
                }
            }
        }
    }

    /// More batches than one chunk: every batch is read, the ones straddling the cutoff are
    /// rewritten, the kept events are exactly those at or after it, in order.
    @Test func aLogLongerThanOneReadIsPrunedWhole() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let batches = StateStore.pruneChunk * 3 + 7
        let store = try Self.store(tmp, batches: batches)
        let all = try Self.dates(store)
        #expect(all.count == batches * 3)
        // Inside batch 150: its first event is removed, the other two kept.
        let cutoff = Date(timeIntervalSince1970: 1_793_491_200 + 150 * 3_600 + 600)
        let summary = try store.pruneDelivered(before: cutoff)
        #expect(summary.removed == 150 * 3 + 1 && summary.kept == batches * 3 - 150 * 3 - 1)
        #expect(summary.notShrunk == nil)
        let cut = Timestamp.string(millis: Timestamp.millis(cutoff))
        #expect(try Self.dates(store) == all.filter { $0 >= cut })
        let rows = try store.dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM delivered") }
        #expect(rows == batches - 150)
        let free = try store.dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") }
        #expect(free == 0, "the file is shrunk")
    }

    /// A shrink that fails leaves the removal committed and says why; the next prune (nothing
    /// left to remove) tries the shrink again and, with room, frees the pages.
    @Test func aShrinkThatFailsKeepsTheRemovalAndTheNextPruneTriesAgain() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let store = try Self.store(tmp, batches: 40)
        let cutoff = Date(timeIntervalSince1970: 1_793_491_200 + 20 * 3_600)
        let first = try store.pruneDelivered(before: cutoff) { _ in throw Self.full }
        #expect(first.removed == 60 && first.kept == 60)
        #expect(first.notShrunk?.contains("disk is full") == true, "\(String(describing: first.notShrunk))")
        #expect(try Self.dates(store).count == 60)
        let freed = try store.dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") } ?? 0
        #expect(freed > 0)

        var shrinks = 0
        let again = try store.pruneDelivered(before: cutoff) { db in
            shrinks += 1
            try db.execute(sql: "VACUUM")
        }
        #expect(again.removed == 0 && again.kept == 60 && again.notShrunk == nil && shrinks == 1)
        #expect(try store.dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") } == 0)

        // Nothing freed: no rewrite of the file at all.
        let third = try store.pruneDelivered(before: cutoff) { _ in
            shrinks += 1
            throw Self.full
        }
        #expect(third.notShrunk == nil && shrinks == 1)
    }

    /// Only a full disk is a warning: another failure of the shrink (I/O, a damaged file) is
    /// an error, after the removal was committed (a reviewer's point).
    @Test func aShrinkThatFailsOtherwiseIsAnError() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let store = try Self.store(tmp, batches: 10)
        let error = #expect(throws: StateStoreError.self) {
            try store.pruneDelivered(before: Date(timeIntervalSince1970: 1_793_491_200 + 5 * 3_600)) { _ in
                throw DatabaseError(resultCode: .SQLITE_IOERR, message: "disk I/O error")
            }
        }
        guard case .database(_, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("disk I/O error"))
        #expect(try Self.dates(store).count == 15, "the removal was committed")
    }
}
