import CoreMetrics
import Foundation
import Metrics
import Prometheus
import Synchronization

/// The server's own metrics, per tenant, in a Prometheus registry served at `/metrics`
/// (with Hummingbird's request counters and latency histograms when the process bootstrapped
/// the metrics system with the same registry).
///
/// - `triggerkit_requests_total{tenant,result}`: request adds (accepted / rejected)
/// - `triggerkit_fixes_total{tenant,result}`: fixes (accepted / rejected)
/// - `triggerkit_events_total{tenant}`: events recorded
/// - `triggerkit_suppressed_total{tenant}`: fires not shown (device not authorized)
/// - `triggerkit_webhook_attempts_total{tenant,result}`: webhook POSTs (ok / failed / dead)
/// - `triggerkit_fix_batch_seconds{tenant}`: time to apply and record one fix batch
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[String: Metrics.Timer]>([:])

    init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = PrometheusMetricsFactory(registry: registry)
    }

    func counter(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        let key = name + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        return counters.withLock { table in
            if let c = table[key] { return c }
            let c = CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
            table[key] = c
            return c
        }
    }

    func requests(tenant: String, accepted: Int, rejected: Int) {
        if accepted > 0 { counter("triggerkit_requests_total", [("tenant", tenant), ("result", "accepted")]).increment(by: accepted) }
        if rejected > 0 { counter("triggerkit_requests_total", [("tenant", tenant), ("result", "rejected")]).increment(by: rejected) }
    }

    func fixes(tenant: String, accepted: Int, rejected: Int) {
        if accepted > 0 { counter("triggerkit_fixes_total", [("tenant", tenant), ("result", "accepted")]).increment(by: accepted) }
        if rejected > 0 { counter("triggerkit_fixes_total", [("tenant", tenant), ("result", "rejected")]).increment(by: rejected) }
    }

    func events(tenant: String, count: Int) {
        counter("triggerkit_events_total", [("tenant", tenant)]).increment(by: count)
    }

    func suppressed(tenant: String, count: Int) {
        if count > 0 { counter("triggerkit_suppressed_total", [("tenant", tenant)]).increment(by: count) }
    }

    func webhook(tenant: String, result: String) {
        counter("triggerkit_webhook_attempts_total", [("tenant", tenant), ("result", result)]).increment()
    }

    /// Events pruned from the outbox before a webhook got them.
    func webhookPruned(tenant: String, events: Int) {
        counter("triggerkit_webhook_pruned_events_total", [("tenant", tenant)]).increment(by: events)
    }

    func fixBatch(tenant: String, seconds: Double) {
        let t = timers.withLock { table in
            if let t = table[tenant] { return t }
            let t = Metrics.Timer(label: "triggerkit_fix_batch_seconds", dimensions: [("tenant", tenant)], factory: factory)
            table[tenant] = t
            return t
        }
        t.recordNanoseconds(Int64(seconds * 1e9))
    }
}
