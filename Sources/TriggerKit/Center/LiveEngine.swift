import Foundation

/// The evaluator behind a ``TriggerCenter``, taking changes one request at a time.
///
/// In place, without rebuilding: adding a time-based request (calendar, interval,
/// immediate) appends it to the evaluator's requests and schedule in O(log n); adding a
/// location request appends it to the requests and the region index's overlay (O(1) for a
/// circle); removing any request marks it dead in O(log n) (its queued fire is dropped when
/// it comes up; a location slot stops firing); a replacement is both. Changes before the
/// stream starts, and a region the index refuses, are recorded in O(1) and applied together
/// by one migration of the evaluator (O(n + devices), keeping every other request's state)
/// before the next step or query. A migration also compacts: once dead entries pass half of
/// the evaluator's requests, or appended ones an eighth (amortised O(1) per change).
final class LiveEngine {
    private(set) var evaluator: StreamEvaluator
    /// Live requests by exact identifier, with their add sequence (the order of pending
    /// lists and of the next migration). Not swift-collections' `OrderedDictionary`: a
    /// replaced request moves to the end and a removal leaves a gap, each O(n) there (the
    /// latency of one change with a million requests); here both are O(1), and the order is
    /// sorted out once per migration.
    private var live: [ExactKey: (seq: Int, request: NotificationRequest)] = [:]
    private var nextSeq = 0
    /// Evaluator request index of each live request (valid while not ``dirty``).
    private var indexOf: [ExactKey: Int32] = [:]
    /// Identifiers whose state must start afresh at the next migration (replaced requests).
    private var fresh: Set<String> = []
    private var dirty = false
    /// Requests removed in place and still in the evaluator.
    private var deadCount = 0
    /// Their identifiers: one added again before the next migration starts afresh (the dead
    /// entry's state must not be carried over to it by identifier).
    private var killed: Set<ExactKey> = []
    /// Time-based requests appended in place since the last migration.
    private var appendedCount = 0

    init(options: StreamOptions, start: Int64) {
        evaluator = StreamEvaluator(requests: [], options: options)
        evaluator.start(defaultAddedAt: start)
    }

    /// The evaluator with every recorded change applied.
    var current: StreamEvaluator {
        // Compaction: dead entries past half, or many appended triggers (they have no
        // identifier rank, so their ties are sorted by string at every pop).
        if dirty || deadCount > Swift.max(1024, evaluator.requests.count / 2)
            || appendedCount > Swift.max(64, evaluator.requests.count / 8) {
            let ordered = live.values.sorted { $0.seq < $1.seq }.map(\.request)
            evaluator = evaluator.migrated(to: ordered, fresh: fresh)
            indexOf.removeAll(keepingCapacity: true)
            for (i, r) in evaluator.requests.enumerated() { indexOf[ExactKey(r.identifier)] = Int32(i) }
            // Appends until the next compaction never reallocate nor rehash (see the
            // compaction bound): growing a 1M-entry table took 15 ms, the latency of one add.
            let room = Swift.max(64, evaluator.requests.count / 8) + 1
            evaluator.reserveForAppends(room)
            live.reserveCapacity(live.count + room)
            indexOf.reserveCapacity(indexOf.count + room)
            fresh.removeAll()
            dirty = false
            deadCount = 0
            appendedCount = 0
            killed.removeAll()
        }
        return evaluator
    }

    /// The evaluator without requests removed in place (for snapshots, which name requests
    /// by position).
    var compacted: StreamEvaluator {
        if deadCount > 0 { dirty = true }
        return current
    }

    /// Adds or replaces (by exact identifier) a validated request with `addedAt` set.
    /// O(log n) for a time-based request; otherwise O(1) now and a migration at the next step.
    func add(_ r: NotificationRequest) {
        let key = ExactKey(r.identifier)
        let replaced = live[key] != nil || killed.contains(key)
        live[key] = (nextSeq, r)
        nextSeq += 1
        if !dirty {
            if let old = indexOf.removeValue(forKey: key) {
                evaluator.kill(request: old)
                deadCount += 1
                killed.insert(key)
            }
            let appended: Int32?
            if case .location = r.trigger {
                appended = evaluator.appendLocationRequest(r)
            } else {
                appended = evaluator.appendTimeRequest(r)
            }
            if let i = appended {
                indexOf[key] = i
                appendedCount += 1
                return
            }
        }
        if replaced { fresh.insert(r.identifier) }
        dirty = true
    }

    /// Removes requests by exact identifier; returns how many were there. O(k log n).
    @discardableResult
    func remove(identifiers ids: [String]) -> Int {
        var count = 0
        for id in ids {
            let key = ExactKey(id)
            guard live.removeValue(forKey: key) != nil else { continue }
            count += 1
            fresh.remove(id)
            if !dirty, let i = indexOf.removeValue(forKey: key) {
                evaluator.kill(request: i)
                deadCount += 1
                killed.insert(key)
            } else {
                dirty = true
            }
        }
        return count
    }

    func removeAll() {
        live.removeAll()
        indexOf.removeAll()
        fresh.removeAll()
        dirty = true
    }

    var requestCount: Int { live.count }

    func request(identifier: String) -> NotificationRequest? {
        live[ExactKey(identifier)]?.request
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

    /// The queued next fire of a request's time trigger. O(n) (a scan of the queue).
    func nextFireDate(identifier: String) -> Int64? {
        let e = current
        guard let s = e.schedule, let i = indexOf[ExactKey(identifier)], let slot = s.slot(ofRequest: i) else { return nil }
        for f in s.queuedFires where f.slot == slot { return f.date }
        return nil
    }

    /// The soonest instant a fire or a fence's clock event (dwell, window, expiry) is due.
    var soonestFireDate: Int64? { current.soonestClockInstant }

    /// The `limit` soonest fires, optionally only those a device gets. Without a device
    /// O(k log k); with one, the walk widens until it has `limit` or runs out (bounded by
    /// ``RequestLimits/maximumQueryCount`` fires looked at, and by
    /// ``FireSchedule/otherCalendarRepeatBudget`` and ``FireSchedule/foundationRepeatBudget``).
    func soonestFires(limit: Int, device: String?) -> [(identifier: String, device: String?, date: Int64)] {
        let e = current
        guard let s = e.schedule, limit > 0 else { return [] }
        var k = limit
        while true {
            let (fires, cut) = s.soonest(k, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget,
                                        foundationBudget: FireSchedule.foundationRepeatBudget)
            let out = fires.compactMap { f -> (identifier: String, device: String?, date: Int64)? in
                let r = e.requests[Int(s.entries[Int(f.slot)].request)]
                if let device, let own = r.device, !own.isExactly(device) { return nil }
                return (r.identifier, r.device, f.date)
            }
            if out.count >= limit || fires.count < k || cut || k >= RequestLimits.maximumQueryCount { return Array(out.prefix(limit)) }
            k = Swift.min(k * 4, RequestLimits.maximumQueryCount)
        }
    }
}

@_spi(Engine) extension StreamEvaluator {
    /// The public value of a fire.
    func delivered(value e: FiredEvent) -> DeliveredNotification {
        let r = Int(e.request)
        if sharedRequests.count < requests.count {
            sharedRequests += Array(repeating: nil, count: requests.count - sharedRequests.count)
        }
        let shared: SharedRequest
        if let s = sharedRequests[r] { shared = s } else {
            shared = SharedRequest(requests[r])
            sharedRequests[r] = shared
        }
        return DeliveredNotification(shared: shared, date: Timestamp.date(millis: e.date), trigger: e.kind,
                                     crossing: e.crossing, device: deviceName(of: e), region: regionIdentifier(of: e),
                                     presentation: e.presentation, fireCount: e.count, id: .bits(eventIdBits(of: e)))
    }
}
