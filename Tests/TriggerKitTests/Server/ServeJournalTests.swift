import Foundation
import Synchronization
import HummingbirdTesting
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

    /// After a crash the journal is replayed; its events were recorded with it. Those pruned
    /// from the outbox since (past `outboxEvents`) were recorded again under new numbers, and
    /// event streams and webhooks got them twice (found by a helper: 3,000 duplicates).
    @Test func aReplayRecordsNoEventAgainEvenPrunedOnes() async throws {
        var serve = Self.serve()
        var limits = TenantLimits()
        limits.outboxEvents = 100
        serve.configuration.limits = limits
        serve.configuration.tenants = serve.configuration.tenants.map { var t = $0; t.limits = limits; return t }
        defer { serve.remove() }
        let before = Mutex<(newest: Int64, oldest: Int64)>((0, 0))
        try await serve.run { c, state async throws in
            let batch = "[" + (0..<100).map { Sample.every("r\($0)", 60) }.joined(separator: ",") + "]"
            #expect(try await c.call(.post, "/v1/requests", body: batch).status < 300)
            for m in 1...30 {
                let t = String(format: "2026-11-23T08:%02d:00Z", m)
                #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"\#(t)"}"#).status == 200)
            }
            let store = state.tenants[0].store
            before.withLock { $0 = (try! store.lastEventSeq(), try! store.oldestEvent()) }
            Self.asIfKilled(state)
        }
        #expect(before.withLock { $0.newest } == 3000)
        try await serve.run { _, state async throws in
            let store = state.tenants[0].store
            #expect(try store.lastEventSeq() == before.withLock { $0.newest })
            #expect(try store.oldestEvent() == before.withLock { $0.oldest })
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

    /// A journaled add that these rules refuse (an earlier version accepted a ring around a
    /// pole) is kept by the replay, as a snapshot's restore keeps it, and both say why it can
    /// never fire. (The replay dropped it, logging the refusal, while the restore kept it.)
    @Test func aStoredRequestTheRulesNowRefuseIsKeptByReplayAndRestoreAlike() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        try FileManager.default.createDirectory(at: serve.directory, withIntermediateDirectories: true)
        let t0 = Timestamp.date(millis: Timestamp.parseMillis(Serve.t0)!)
        var pole = PolygonLongitudeTests.request("pole", [PolygonLongitudeTests.poleTriangle])
        pole.addedAt = t0
        do {
            let store = try TenantStore(path: serve.directory.path + "/acme.sqlite", outboxLimit: 1000)
            var warnings: [String] = []
            var tick = try NotificationRequest(json: JSONValue.parse(Sample.every("tick", 60)), warnings: &warnings)
            tick.addedAt = t0
            let rows = [pole, tick].map { (kind: Tenant.journalKindAdd, body: Data($0.contractRecord)) }
            _ = try store.record(at: Timestamp.parseMillis(Serve.t0)!, inputs: rows, events: [])
        }
        @Sendable func check(_ c: any TestClientProtocol, _ state: ServerState) async throws {
            let listed = try await c.call(.get, "/v1/requests")
            let ids = listed.json?.objectValue?["requests"]?.arrayValue?.compactMap { $0.objectValue?["identifier"]?.stringValue }
            #expect(ids == ["pole", "tick"])
            let refused = await state.tenants[0].withCenter { c in c.refusedRequests().map { "\($0.identifier) \($0.error.code)" } }
            #expect(refused == ["pole invalidRegion"])
        }
        // The journal replayed; then, after a graceful stop's snapshot, restored from it.
        try await serve.run { c, state async throws in
            #expect(try state.tenants[0].store.loadSnapshot() == nil)
            try await check(c, state)
        }
        try await serve.run { c, state async throws in
            #expect(try state.tenants[0].store.loadSnapshot() != nil)
            try await check(c, state)
        }
    }

    /// A change weighs 100 fixes towards the next snapshot, plus one per 4 bytes of its
    /// journaled body past 4 KiB: counted by number alone, 20 category lists of 7.3 MB were
    /// 2,000 of the default 5,000,000, and a restart after a crash replayed them for 24 s
    /// (found by a helper). The same weight live and when a restart replays the row.
    @Test func aLargeChangeWeighsByItsSizeTowardsTheNextSnapshot() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        let list = "[" + (0..<400).map { #"{"identifier":"category-\#($0)","actions":[{"identifier":"later","effect":{"snooze":60}}]}"# }
            .joined(separator: ",") + "]"
        let weight = Mutex(0)
        try await serve.run { c, state async throws in
            #expect(try await c.call(.put, "/v1/categories", body: list).status < 300)
            let rows = try state.tenants[0].store.journal(after: 0)
            #expect(rows.count == 1)
            let expected = 100 + (rows[0].body.count - 4096) / 4
            #expect(expected > 2_000, "a list of \(rows[0].body.count) bytes")
            #expect(state.tenants[0].sinceSnapshot.withLock { $0 } == expected)
            weight.withLock { $0 = expected }
            Self.asIfKilled(state)
        }
        try await serve.run { _, state async throws in
            #expect(try state.tenants[0].store.loadSnapshot() == nil, "the restart must replay the journal")
            #expect(state.tenants[0].sinceSnapshot.withLock { $0 } == weight.withLock { $0 })
        }
    }

    /// An add that makes something due now (a catch-up, an immediate request) delivers it
    /// before the batch's next input, as `run` delivers an add line's before the next line: a
    /// replacement later in the same batch lost it live, while a replay (a row per step)
    /// delivered it, so a restart changed the delivered history (found by a helper).
    @Test func whatAnAddMakesDueIsDeliveredBeforeTheBatchGoesOn() async throws {
        let serve = Self.serve()
        defer { serve.remove() }
        let batch = #"[{"identifier":"b","content":{"title":"old"},"addedAt":"2026-11-23T07:59:00Z","trigger":{"type":"timeInterval","timeInterval":30,"repeats":false}},"#
            + #"{"identifier":"b","content":{"title":"new"},"trigger":{"type":"timeInterval","timeInterval":600,"repeats":false}}]"#
        let before = Mutex("")
        try await serve.run { c, state async throws in
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:00:00Z"}"#).status == 200)
            #expect(try await c.call(.post, "/v1/requests", body: batch).status < 300)
            let delivered = try await c.call(.get, "/v1/delivered")
            let titles = delivered.json?.objectValue?["delivered"]?.arrayValue?.compactMap { $0.objectValue?["date"]?.stringValue }
            #expect(titles == ["2026-11-23T07:59:30Z"], "\(delivered.body)")
            before.withLock { $0 = delivered.body }
            Self.asIfKilled(state)
        }
        try await serve.run { c, state async throws in
            #expect(try state.tenants[0].store.loadSnapshot() == nil, "the restart must replay the journal")
            #expect(try await c.call(.get, "/v1/delivered").body == before.withLock { $0 })
        }
    }
}
