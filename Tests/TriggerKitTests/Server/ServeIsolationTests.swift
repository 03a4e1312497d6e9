import Dispatch
import Foundation
import Synchronization
import Testing
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

@Suite struct ServeIsolationTests {
    /// More tenants than the machine has cores each hold their center (as a batch that takes
    /// seconds would): another tenant still answers meanwhile. Their work runs on their own
    /// threads (``TenantThread``); on Swift's cooperative pool, one thread per core, they
    /// would hold every thread and the other tenant's request would wait for them.
    @Test func tenantsThatBlockDoNotHoldOthers() async throws {
        var serve = Serve()
        defer { serve.remove() }
        let busy = ProcessInfo.processInfo.activeProcessorCount + 1
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
        }
    }
}
