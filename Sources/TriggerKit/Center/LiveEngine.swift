import Foundation

/// The evaluator behind a ``TriggerCenter``, taking changes one request at a time.
///
/// Changes are recorded in O(1) and applied together, by one migration of the evaluator that
/// keeps every unchanged request's state, before the next step or query: a burst of changes
/// between two steps costs one O(n + devices) rebuild, not one per change. (Applying each
/// change in place in O(log n) needs a region index and a fire schedule that take single
/// inserts and removals; that is the open part of the live-center work.)
final class LiveEngine {
    private(set) var evaluator: StreamEvaluator
    /// Requests in add order (a replacement moves to the end, as a new add).
    private var requests: [NotificationRequest] = []
    private var positions: [ExactKey: Int] = [:]
    /// Identifiers whose state must start afresh at the next migration (replaced requests).
    private var fresh: Set<String> = []
    private var dirty = false

    init(options: StreamOptions, start: Int64) {
        evaluator = StreamEvaluator(requests: [], options: options)
        evaluator.start(defaultAddedAt: start)
    }

    /// The evaluator with every recorded change applied.
    var current: StreamEvaluator {
        if dirty {
            evaluator = evaluator.migrated(to: requests, fresh: fresh)
            fresh.removeAll()
            dirty = false
        }
        return evaluator
    }

    /// Adds or replaces (by exact identifier) a validated request. O(1) amortised, plus O(n)
    /// for a replacement (its old position is removed).
    func add(_ r: NotificationRequest) {
        let key = ExactKey(r.identifier)
        if let old = positions[key] {
            requests.remove(at: old)
            reindex(from: old)
            fresh.insert(r.identifier)
        }
        positions[key] = requests.count
        requests.append(r)
        dirty = true
    }

    /// Removes requests by exact identifier; returns how many were there.
    @discardableResult
    func remove(identifiers ids: [String]) -> Int {
        let gone = Set(ids.map(ExactKey.init)).filter { positions[$0] != nil }
        guard !gone.isEmpty else { return 0 }
        requests.removeAll { gone.contains(ExactKey($0.identifier)) }
        positions.removeAll()
        reindex(from: 0)
        for g in gone { fresh.remove(g.string) }
        dirty = true
        return gone.count
    }

    func removeAll() {
        requests.removeAll()
        positions.removeAll()
        fresh.removeAll()
        dirty = true
    }

    private func reindex(from start: Int) {
        for i in start..<requests.count { positions[ExactKey(requests[i].identifier)] = i }
    }

    func request(identifier: String) -> NotificationRequest? {
        positions[ExactKey(identifier)].map { requests[$0] }
    }

    /// Pending requests in add order; with a device, those it sees (its own and shared ones).
    func pendingRequests(device: String?) -> [NotificationRequest] {
        let e = current
        let flags = e.pendingFlags()
        return e.requests.indices.filter { i in
            flags[i] && (device == nil || e.requests[i].device == nil || e.requests[i].device!.isExactly(device!))
        }.map { e.requests[$0] }
    }

    var pendingCount: Int { current.pendingFlags().count(where: { $0 }) }

    /// The queued next fire of a request's time trigger. O(n).
    func nextFireDate(identifier: String) -> Int64? {
        let e = current
        guard let s = e.schedule, let i = positions[ExactKey(identifier)] else { return nil }
        for f in s.queuedFires where s.entries[Int(f.slot)].request == Int32(i) { return f.date }
        return nil
    }

    var soonestFireDate: Int64? { current.schedule?.soonestFire?.date }

    /// The `limit` soonest fires, optionally only those a device gets. Without a device
    /// O(k log k); with one, the walk widens until it has `limit` or runs out (bounded by
    /// ``RequestLimits/maximumQueryCount`` fires looked at).
    func soonestFires(limit: Int, device: String?) -> [(identifier: String, device: String?, date: Int64)] {
        let e = current
        guard let s = e.schedule, limit > 0 else { return [] }
        var k = limit
        while true {
            let fires = s.soonest(k)
            let out = fires.compactMap { f -> (identifier: String, device: String?, date: Int64)? in
                let r = e.requests[Int(s.entries[Int(f.slot)].request)]
                if let device, let own = r.device, !own.isExactly(device) { return nil }
                return (r.identifier, r.device, f.date)
            }
            if out.count >= limit || fires.count < k || k >= RequestLimits.maximumQueryCount { return Array(out.prefix(limit)) }
            k = Swift.min(k * 4, RequestLimits.maximumQueryCount)
        }
    }
}

@_spi(Engine) extension StreamEvaluator {
    /// The public value of a fire.
    func delivered(value e: FiredEvent) -> DeliveredNotification {
        DeliveredNotification(request: requests[Int(e.request)], date: Timestamp.date(millis: e.date), trigger: e.kind,
                              crossing: e.crossing, device: deviceName(of: e), region: regionIdentifier(of: e),
                              presentation: e.presentation, fireCount: e.count, eventId: eventId(of: e))
    }
}
