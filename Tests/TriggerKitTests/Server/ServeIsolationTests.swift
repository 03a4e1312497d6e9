import Dispatch
import Foundation
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// A gate that blocking work waits at, opened once (by the test, or by a deadline on a
/// Dispatch thread, so a test whose every cooperative thread is held still ends).
private final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let state = Mutex((open: false, waiters: 0, started: 0))

    /// Blocks the calling thread until the gate opens.
    func wait() {
        let open = state.withLock { s -> Bool in
            s.started += 1
            if !s.open { s.waiters += 1 }
            return s.open
        }
        if !open { semaphore.wait() }
    }

    var started: Int { state.withLock { $0.started } }
    var isOpen: Bool { state.withLock { $0.open } }

    func open() {
        let waiters = state.withLock { s -> Int in
            guard !s.open else { return 0 }
            s.open = true
            return s.waiters
        }
        for _ in 0..<waiters { semaphore.signal() }
    }
}

/// Serialized: one test holds a center's executor on a blocking gate for up to 20 s, and the
/// others load the cooperative pool (two threads here); run together with them, three tests
/// of this suite passed their minute in one clean-clone CI run.
@Suite(.serialized) struct ServeIsolationTests {
    /// More tenants than the machine has cores each hold their center (as a batch that takes
    /// seconds would): another tenant still answers meanwhile. Their work runs on their own
    /// threads (``TenantThread``); on Swift's cooperative pool, one thread per core, they
    /// would hold every thread and the other tenant's request would wait for them.
    @Test func tenantsThatBlockDoNotHoldOthers() async throws {
        var serve = Serve()
        defer { serve.remove() }
        // More than the pool's threads: Swift sizes it by the online cores, which the count
        // Foundation reports can be below (a container's CPU quota).
        let busy = max(16, ProcessInfo.processInfo.activeProcessorCount + 1)
        serve.configuration.tenants = (0..<busy).map { TenantConfiguration(id: "busy\($0)", tokenHashes: [tokenHash("token-busy-\($0)")]) }
            + [TenantConfiguration(id: "probe", tokenHashes: [tokenHash("token-probe")])]
        try await serve.run { c, state in
            let gate = Gate()
            // The deadline: without it, a failure would hang the run (nothing could open it).
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { gate.open() }
            var holders: [Task<Void, Never>] = []
            for t in state.tenants where t.id.hasPrefix("busy") {
                holders.append(Task.detached { await t.withCenter { _ in gate.wait() } })
            }
            while gate.started < busy && !gate.isOpen { try await Task.sleep(for: .milliseconds(5)) }
            let a = try await c.call(.get, "/v1/requests", token: "token-probe")
            let answeredWhileHeld = !gate.isOpen
            gate.open()
            for h in holders { await h.value }
            #expect(a.status == 200)
            #expect(gate.started == busy)
            #expect(answeredWhileHeld, "the probe tenant answered only after the busy tenants let go")
            // And each tenant's center ran on its own queue, not another's.
            for t in state.tenants {
                #expect(await t.withCenter { _ in t.thread.isCurrent })
                #expect(!t.thread.isCurrent)
            }
        }
    }

    /// Batches applied at once from several connections: live subscribers (SSE) get their
    /// events in the order recorded. (They were published after the center's step, so two
    /// batches' events could cross on the way, and the event stream skips an event older than
    /// one it sent: 21,000 of 168,000 went missing in `tools/serve-load.py`.)
    @Test(.timeLimit(.minutes(1))) func liveEventsKeepTheirOrderAcrossConcurrentBatches() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, state in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("zone")).status == 201)
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            let live = try #require(acme.hub.subscribe(device: nil))
            let writers = 16, fixesEach = 100
            await withTaskGroup(of: Void.self) { group in
                for w in 0..<writers {
                    group.addTask {
                        for i in 0..<fixesEach {
                            // In and out of the 100 m circle at every fix: one event each.
                            let t = Timestamp.string(millis: Timestamp.parseMillis(Serve.t0)! + Int64(i) * 1000)
                            let line = Array(#"{"device":"w\#(w)","t":"\#(t)","lat":\#(i % 2 == 0 ? 40.7 : 40.71),"lon":-74}"#.utf8)
                            guard case .fix(let f)? = try? FixReader.parse(line[...]) else { return }
                            _ = await acme.apply([.fix(f, line: line[...])])
                        }
                    }
                }
            }
            let recorded = try acme.store.lastEventSeq()
            #expect(recorded >= Int64(writers * fixesEach / 2))
            var seqs: [Int64] = []
            for await e in live {
                seqs.append(e.seq)
                if seqs.count == Int(recorded) { break }
            }
            // (Compared by the first step back, so a failure prints two numbers, not the list.)
            let stepBack = zip(seqs, seqs.dropFirst()).first { $0 >= $1 }
            #expect(stepBack == nil, "event \(stepBack?.1 ?? 0) came after \(stepBack?.0 ?? 0)")
            #expect(Set(seqs) == Set(1...recorded))
        }
    }

    /// A tenant that cannot be opened stops the start with an error that names it.
    @Test func aTenantThatCannotBeOpenedIsNamed() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try FileManager.default.createDirectory(at: serve.directory, withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 4096).write(to: serve.directory.appendingPathComponent("bolt.sqlite"))
        do {
            try await serve.run { _, _ in Issue.record("the server started with a tenant file that is not SQLite") }
        } catch let error as TenantOpenError {
            #expect(error.tenant == "bolt")
            #expect(error.description.hasPrefix("tenant bolt: "))
        }
    }

    /// After its store fails, a tenant changes nothing more: an apply already waiting for the
    /// center when the write failed is refused too, instead of changing the center with what
    /// the journal will never hold.
    @Test(.timeLimit(.minutes(1))) func nothingWaitingChangesTheCenterAfterTheStoreFailed() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { _, state in
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            func add(_ id: String) throws -> TenantInput {
                var warnings: [String] = []
                return .add(try NotificationRequest(json: try JSONValue.parse(Sample.every(id, 60)), warnings: &warnings))
            }
            let first = try add("x1"), second = try add("x2")
            // The center held; two applies wait for it; then the store breaks under them.
            let gate = Gate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { gate.open() }
            let holder = Task.detached { await acme.withCenter { _ in gate.wait() } }
            while gate.started < 1 { try await Task.sleep(for: .milliseconds(2)) }
            let a = Task.detached { await acme.apply([first]) }
            try await Task.sleep(for: .milliseconds(50))
            let b = Task.detached { await acme.apply([second]) }
            try await Task.sleep(for: .milliseconds(50))
            try await acme.store.queue.write { db in try db.execute(sql: "DROP TABLE journal") }
            gate.open()
            await holder.value
            let outcomes = [await a.value, await b.value]
            for o in outcomes {
                guard case .rejected(let e)? = o.first else { Issue.record("accepted after the store failed: \(o)"); continue }
                #expect(e.code == "storeFailed")
            }
            // One step ran into the failure; the one behind it changed nothing.
            let held = await acme.withCenter { c in ["x1", "x2"].filter { c.request(withIdentifier: $0) != nil } }
            #expect(held.count == 1, "the center holds \(held)")
        }
    }

    /// A change whose record failed (the store broke: a full disk) was answered 503 but stayed
    /// in the live center, so reads showed it until a restart dropped it (found by a helper):
    /// "a refused input changes nothing". Once the store failed, the tenant answers every
    /// request 503; the other tenant is untouched.
    @Test(.timeLimit(.minutes(1))) func aTenantWhoseStoreFailedServesNothingItCouldNotRecord() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, state in
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("kept", 60)).status == 201)
            let stream = try #require(acme.hub.subscribe(device: nil))
            #expect(acme.hub.subscriberCount == 1)
            try await acme.store.queue.write { db in try db.execute(sql: "DROP TABLE journal") }
            let refused = try await c.call(.post, "/v1/requests", body: Sample.every("refused", 60))
            #expect(refused.status == 503 && refused.errorCode == "storeFailed", "\(refused)")
            for uri in ["/v1/requests/refused", "/v1/requests", "/v1/delivered", "/v1/stats"] {
                let read = try await c.call(.get, uri)
                #expect(read.status == 503 && read.errorCode == "storeFailed", "\(uri): \(read)")
            }
            #expect(try await c.call(.get, "/v1/requests", token: Serve.tokenB).status == 200)
            // Health says so (it said "ok"), and the tenant's open event streams were ended.
            let health = try await c.call(.get, "/healthz", token: nil)
            #expect(health.status == 503 && health.json?.objectValue?["tenants"] == .array([.string("acme")]), "\(health)")
            #expect(acme.hub.subscriberCount == 0)
            var ended = stream.makeAsyncIterator()
            #expect(await ended.next() == nil)
        }
    }
}
