import Foundation
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

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
