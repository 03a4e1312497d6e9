import Foundation
import GRDB
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// The journal a restart replays: added requests are kept as contract records (read without
/// `Codable`), rows written by earlier versions are still read, and what a restart replayed
/// counts towards the next snapshot.
@Suite("serve: journal replay")
struct ServeJournalTests {
    static let requests = [
        Sample.every("tick", 60),
        Sample.circle("home", device: "d1"),
        #"{"identifier":"cal","content":{"title":"c","userInfo":{"k":[1,null,true]}},"addedAt":"2026-11-23T08:00:00Z","trigger":{"type":"calendar","dateMatching":{"hour":9,"minute":30,"timeZone":"Asia/Tokyo"},"repeats":true}}"#,
        #"{"identifier":"poly","content":{"body":"b","badge":2},"addedAt":"2026-11-23T08:00:00Z","trigger":{"type":"location","repeats":false,"region":{"identifier":"p","geometry":{"type":"Polygon","coordinates":[[[-74,40.7],[-73.99,40.7],[-73.99,40.71],[-74,40.7]]]}}}}"#,
        // No addedAt: the server's clock gives it, and the journal keeps it.
        #"{"identifier":"later","content":{"title":"l"},"trigger":{"type":"timeInterval","timeInterval":90,"repeats":false}}"#,
    ]

    /// A serve configuration that takes no snapshot by itself in these tests.
    static func serve() -> Serve {
        var s = Serve()
        s.configuration.snapshotEvery = 1_000_000
        return s
    }

    /// A stop without its closing snapshot, as after `kill -9`: the next start replays the
    /// journal (a graceful stop saves a snapshot of whatever was journaled since the last).
    static func asIfKilled(_ state: ServerState) {
        for t in state.tenants { t.sinceSnapshot.withLock { $0 = 0 } }
    }

    @Test func addedRequestsAreJournaledAsRecordsAndComeBackOnRestart() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        let before = Mutex("")
        try await serve.run { c, state async throws in
            for r in Self.requests { #expect(try await c.call(.post, "/v1/requests", body: r).status == 201) }
            let listed = try await c.call(.get, "/v1/requests")
            before.withLock { $0 = listed.body }
            let rows = try state.tenants[0].store.journal(after: 0)
            #expect(rows.map(\.kind) == Array(repeating: Tenant.journalKindAdd, count: Self.requests.count))
            Self.asIfKilled(state)
        }
        try await serve.run { c, state async throws in
            #expect(try state.tenants[0].store.loadSnapshot() == nil, "the restart must replay the journal")
            let listed = try await c.call(.get, "/v1/requests")
            #expect(listed.json?.objectValue?["requests"]?.arrayValue?.count == Self.requests.count)
            #expect(listed.body == before.withLock { $0 })
        }
    }

    @Test func addRowsWrittenThroughCodableByEarlierVersionsAreStillReplayed() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        try FileManager.default.createDirectory(at: serve.directory, withIntermediateDirectories: true)
        // The journal as an earlier version wrote it: each add a `TenantChange` through `Codable`.
        do {
            let store = try TenantStore(path: serve.directory.path + "/acme.sqlite", outboxLimit: 1000)
            var rows: [(kind: Int, body: Data)] = []
            for text in Self.requests.prefix(4) {
                var warnings: [String] = []
                let r = try NotificationRequest(json: JSONValue.parse(text), warnings: &warnings)
                rows.append((Tenant.journalKindEntry, try JSONEncoder().encode(TenantChange.add(r))))
            }
            _ = try store.record(at: Timestamp.parseMillis(Serve.t0)!, inputs: rows, events: [])
        }
        try await serve.run { c, _ async throws in
            let listed = try await c.call(.get, "/v1/requests")
            let ids = listed.json?.objectValue?["requests"]?.arrayValue?.compactMap { $0.objectValue?["identifier"]?.stringValue }
            #expect(ids.map(Set.init) == ["tick", "home", "cal", "poly"])
        }
    }

    /// A restart reads the journal a page at a time (at most 1,024 rows, or 16 MiB of bodies),
    /// not all at once: the default `--snapshot-every` lets about 400 MB of fixes pile up.
    /// Every row still comes back, in order, across the pages' boundaries.
    @Test func theJournalIsReadAndReplayedAPageAtATime() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        try FileManager.default.createDirectory(at: serve.directory, withIntermediateDirectories: true)
        let rowCount = 2 * TenantStore.journalPageRows + 100
        @Sendable func identifier(_ i: Int) -> String { i % 500 == 0 || i == TenantStore.journalPageRows ? "same" : "r\(i)" }
        do {
            let store = try TenantStore(path: serve.directory.path + "/acme.sqlite", outboxLimit: 1000)
            var rows: [(kind: Int, body: Data)] = []
            for i in 0..<rowCount {
                // "same" is replaced now and then, and at a page boundary: the last one must win.
                let r = NotificationRequest(identifier: identifier(i), content: NotificationContent(title: "row \(i)"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 3600, repeats: true)),
                                            addedAt: Timestamp.date(millis: Timestamp.parseMillis(Serve.t0)!))
                rows.append((Tenant.journalKindAdd, Data(r.contractRecord)))
            }
            _ = try store.record(at: Timestamp.parseMillis(Serve.t0)!, inputs: rows, events: [])
            // The pages: bounded in rows and in bytes, and together the whole journal in order.
            var seqs: [Int64] = []
            var page = try store.journal(after: 0)
            while let last = page.last {
                #expect(page.count <= TenantStore.journalPageRows)
                seqs += page.map(\.seq)
                page = try store.journal(after: last.seq)
            }
            #expect(seqs == Array(1...Int64(rowCount)))
            let small = try store.journal(after: 0, rows: 100, bytes: rows[0].body.count + rows[1].body.count + rows[2].body.count - 1)
            #expect(small.map(\.seq) == [1, 2, 3], "the row that reaches the byte bound ends the page")
            #expect(try store.journal(after: 0, rows: 2, bytes: 1 << 30).count == 2)
            #expect(try store.journal(after: 0, rows: 5, bytes: 0).map(\.seq) == [1], "a page holds at least one row")
        }
        try await serve.run { c, _ async throws in
            let listed = try await c.call(.get, "/v1/requests")
            let requests = listed.json?.objectValue?["requests"]?.arrayValue ?? []
            #expect(requests.count == Set((0..<rowCount).map(identifier)).count)
            let same = requests.first { $0.objectValue?["identifier"]?.stringValue == "same" }
            let lastSame = (0..<rowCount).last { identifier($0) == "same" }!
            #expect(same?.objectValue?["content"]?.objectValue?["title"]?.stringValue == "row \(lastSame)")
        }
    }

    @Test func whatARestartReplayedCountsTowardsTheNextSnapshot() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        try await serve.run { c, state async throws in
            for r in Self.requests { #expect(try await c.call(.post, "/v1/requests", body: r).status == 201) }
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(count: 6)).status == 200)
            Self.asIfKilled(state)
        }
        try await serve.run { _, state async throws in
            let tenant = state.tenants[0]
            // Five changes (100 each) and six fixes: still in the journal, not yet in a snapshot.
            #expect(tenant.sinceSnapshot.withLock { $0 } == 5 * 100 + 6)
            await tenant.snapshotIfDue(every: 506)
            #expect(try tenant.store.loadSnapshot() != nil)
            #expect(tenant.sinceSnapshot.withLock { $0 } == 0)
        }
    }
}

/// The tenant store waits for a lock another connection holds (its busy timeout) instead of
/// failing at once. Found as an intermittent failure of the restart test above: the second
/// server opened the file while the first one's last connection was closing it ("database is
/// locked").
@Suite("serve: the tenant store waits for a lock")
struct TenantStoreLockTests {
    @Test(.timeLimit(.minutes(1))) func openingAndWritingWhileAnotherConnectionWritesWaitForIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("acme.sqlite").path
        _ = try TenantStore(path: path, outboxLimit: 100)
        // Another connection writes, holding the write lock for 300 ms.
        let other = try DatabaseQueue(path: path)
        let holding = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.write { db in
                try db.execute(sql: "INSERT INTO webhook_cursor (url, seq) VALUES ('x', 1)")
                holding.signal()
                Thread.sleep(forTimeInterval: 0.3)
            }
            done.signal()
        }
        holding.wait()
        let start = Date()
        let store = try TenantStore(path: path, outboxLimit: 100)
        _ = try store.record(at: 0, inputs: [(Tenant.journalKindTick, Data())], events: [])
        #expect(Date().timeIntervalSince(start) >= 0.15, "the write did not wait for the other connection's lock")
        done.wait()
        #expect(try store.journal(after: 0).count == 1)
        #expect(try store.webhookCursor(url: "x") == 1)
    }
}

/// The outbox keeps its bound whatever the batches' sizes: it was pruned only when a batch
/// ended exactly on a multiple of 1,024, which batches of two events after an odd start never
/// do (2,201 events kept against a limit of 10).
@Suite("serve: the outbox bound")
struct OutboxBoundTests {
    @Test(arguments: [1, 2, 3, 7, 1500])
    func theOutboxStaysWithinItsBound(batch: Int) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let limit = 10
        let store = try TenantStore(path: dir.appendingPathComponent("acme.sqlite").path, outboxLimit: limit)
        var n = 0
        // An odd start, then batches of `batch` events.
        _ = try store.record(at: 0, inputs: [], events: [("e\(n)", nil, Data("x".utf8))])
        n += 1
        while n < 6000 {
            let events = (0..<batch).map { k in (eventId: "e\(n + k)", device: String?.none, body: Data("x".utf8)) }
            _ = try store.record(at: 0, inputs: [], events: events)
            n += batch
            let kept = try store.queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
            #expect(kept <= limit + 1023 + batch, "after \(n) events, \(kept) kept")
            if kept > limit + 1023 + batch { return }
        }
        // The newest are kept.
        #expect(try store.events(after: Int64(n - limit), device: nil, limit: 100).count == limit)
    }
}

/// Events a replay records again are skipped without using up a number: after a kill -9
/// restart the next event's number follows the last one (it jumped by the replay's events).
@Suite("serve: event numbers across a replay")
struct EventNumberTests {
    @Test func aReplayedEventUsesNoNumber() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-seq-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try TenantStore(path: dir.appendingPathComponent("acme.sqlite").path, outboxLimit: 1000)
        func events(_ ids: [String]) -> [(eventId: String, device: String?, body: Data)] { ids.map { ($0, nil, Data($0.utf8)) } }
        #expect(try store.record(at: 0, inputs: [], events: events(["a", "b", "c"])) == [1, 2, 3])
        // The replay records b and c again: already there.
        #expect(try store.record(at: 0, inputs: [], events: events(["b", "c"])) == [0, 0])
        #expect(try store.record(at: 0, inputs: [], events: events(["d"])) == [4])
        #expect(try store.events(after: 0, device: nil, limit: 10).map(\.seq) == [1, 2, 3, 4])
    }
}

/// Tenants restore side by side within a budget of snapshot bytes (``RestorePlan``).
@Suite("serve: restoring tenants within a memory budget")
struct RestoreBudgetTests {
    /// Starts tenants of the given snapshot sizes in order, finishing the oldest first, and
    /// returns the plan's peaks.
    static func simulate(_ weights: [Int], width: Int, budget: Int) -> (most: Int, mostBytes: Int, order: [Int]) {
        var plan = RestorePlan(width: width, budget: budget)
        var running: [Int] = [], order: [Int] = []
        var next = 0
        while next < weights.count || !running.isEmpty {
            while next < weights.count && plan.canStart(weights[next]) {
                plan.start(weights[next])
                running.append(next)
                order.append(next)
                next += 1
            }
            let done = running.removeFirst()
            plan.finish(weights[done])
        }
        #expect(plan.inFlight == 0 && plan.bytes == 0)
        return (plan.mostInFlight, plan.mostBytes, order)
    }

    @Test func theBudgetAndTheWidthBoundWhatRestoresAtOnce() {
        // Small snapshots: the width bounds.
        #expect(Self.simulate([1, 1, 1, 1, 1, 1], width: 4, budget: 100).most == 4)
        // Two fit the budget at a time.
        let two = Self.simulate([40, 40, 40, 40], width: 4, budget: 100)
        #expect(two.most == 2 && two.mostBytes == 80)
        // Each larger than half: one at a time; one larger than the budget restores alone.
        #expect(Self.simulate([60, 60, 60], width: 4, budget: 100).most == 1)
        let big = Self.simulate([10, 500, 10], width: 4, budget: 100)
        #expect(big.mostBytes == 500 && big.most <= 2)
        // Every tenant, in order.
        #expect(big.order == [0, 1, 2])
        // Tenants without a snapshot cost nothing against the budget.
        #expect(Self.simulate([0, 0, 0, 200], width: 3, budget: 100).most == 3)
    }

    /// Snapshots saved at a graceful stop are restored with a budget smaller than any of them:
    /// one tenant at a time, every one of them whole.
    @Test func tenantsLargerThanTheBudgetRestoreOneAfterAnother() async throws {
        var serve = Serve()
        defer { serve.remove() }
        let n = 8000
        try await serve.run { c, _ async throws in
            for token in [Serve.tokenA, Serve.tokenB] {
                let body = "[" + (0..<n).map { Sample.every("r\($0)", 60) }.joined(separator: ",") + "]"
                #expect(try await c.call(.post, "/v1/requests", token: token, body: body).status == 200)
            }
        }
        for id in ["acme", "bolt"] {
            #expect(TenantStore.snapshotBytes(path: serve.directory.path + "/\(id).sqlite") > 1 << 20, "\(id): no snapshot larger than the budget")
        }
        serve.configuration.restoreBudgetMiB = 1
        try await serve.run { c, _ async throws in
            for token in [Serve.tokenA, Serve.tokenB] {
                let listed = try await c.call(.get, "/v1/requests?limit=10000", token: token)
                #expect(listed.json?.objectValue?["requests"]?.arrayValue?.count == n)
            }
        }
    }
}
