import Foundation

// What a center asks of its engine without changing it: the requests it holds, pages of the
// pending list, and the next fires.

extension LiveEngine {
    var requestCount: Int { live.count }

    func request(identifier: String) -> NotificationRequest? {
        live[ExactKey(identifier)]?.request
    }

    /// The evaluator's pending flags (``StreamEvaluator/pendingFlags()``), with the requests
    /// held whose region it refused (``refused(_:)``): they never fire but stay listed, so that
    /// they can be seen and replaced or removed.
    func pendingFlags(_ e: StreamEvaluator) -> [Bool] {
        var flags = e.pendingFlags()
        for r in refused(e) { flags[Int(r.request)] = true }
        return flags
    }

    /// The requests of `e` (the current evaluator) whose region its build refused, by
    /// position, with why, that the engine still holds (not removed or replaced since): held
    /// requests that never fire. Only requests that skipped the validator (restored from
    /// storage) can be among them.
    func refused(_ e: StreamEvaluator) -> [(request: Int32, reason: String)] {
        e.refusedRegions.filter { indexOf[ExactKey(e.requests[Int($0.request)].identifier)] == $0.request }
    }

    /// Pending requests in add order; with a device, those it sees (its own and shared ones).
    func pendingRequests(device: String?) -> [NotificationRequest] {
        let e = current
        let flags = pendingFlags(e)
        return e.requests.indices.filter { i in
            flags[i] && Self.sees(device, e.requests[i])
        }.map { e.requests[$0] }
    }

    /// Whether `device` (nil: any) sees request `r`: its own and the shared ones.
    @inline(__always)
    private static func sees(_ device: String?, _ r: NotificationRequest) -> Bool {
        device == nil || r.device == nil || r.device!.isExactly(device!)
    }

    /// Up to `limit` (>= 1) pending requests that came after add number `after` (-1: from the
    /// first), in add order, as ``pendingRequests(device:)`` lists them; the add number of the
    /// last one listed, and whether another pending request follows it.
    ///
    /// A walk page by page, each starting after the last one's number, lists every request
    /// that stays pending and unchanged throughout exactly once. A request added meanwhile is
    /// listed on a later page; one replaced meanwhile takes a new number at the end (listed
    /// again there if it was already); one removed or finished is not listed after that.
    ///
    /// - Complexity: O(log n) to find the page's start, O(n) for which requests are pending
    ///   (as ``pendingRequests(device:)``), then O(requests looked at).
    func pendingPage(device: String?, after: Int, limit: Int) -> (requests: [NotificationRequest], last: Int?, more: Bool) {
        let e = current
        assert(seqs.count == e.requests.count, "sequence numbers out of step with the requests")
        let flags = pendingFlags(e)
        // The first position whose number is past `after` (the numbers ascend).
        var lo = 0, hi = seqs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if seqs[mid] <= after { lo = mid + 1 } else { hi = mid }
        }
        var out: [NotificationRequest] = []
        out.reserveCapacity(Swift.min(limit, 1024))
        var last: Int?
        for i in lo..<e.requests.count where flags[i] && Self.sees(device, e.requests[i]) {
            if out.count >= limit { return (out, last, true) }
            out.append(e.requests[i])
            last = seqs[i]
        }
        return (out, last, false)
    }


    var pendingCount: Int { pendingFlags(current).count(where: { $0 }) }

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
    /// ``FireSchedule/otherCalendarRepeatBudget``, ``TimeRule/otherCalendarHorizon`` and
    /// ``FireSchedule/foundationRepeatBudget``).
    func soonestFires(limit: Int, device: String?) -> [(identifier: String, device: String?, date: Int64)] {
        let e = current
        guard let s = e.schedule, limit > 0 else { return [] }
        var k = limit
        while true {
            let (fires, cut) = s.soonest(k, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget,
                                        otherCalendarHorizon: TimeRule.otherCalendarHorizon,
                                        foundationBudget: FireSchedule.foundationRepeatBudget)
            var out = fires.compactMap { f -> (identifier: String, device: String?, date: Int64)? in
                let r = e.requests[Int(s.entries[Int(f.slot)].request)]
                if let device, let own = r.device, !own.isExactly(device) { return nil }
                return (r.identifier, r.device, f.date)
            }
            let exhausted = fires.count < k || cut || k >= RequestLimits.maximumQueryCount
            // Ties by identifier, as documented: the schedule orders same-date fires by slot,
            // and requests added in place take slots after the others (they came out in the
            // order added until a snapshot compacted them; a restore-equivalence fuzz found
            // it). Every fire of the date at the cut must be in hand before cutting.
            if out.count >= limit && !exhausted, let lastFetched = fires.last?.date, out[limit - 1].date == lastFetched {
                k = Swift.min(k * 4, RequestLimits.maximumQueryCount)
                continue
            }
            if out.count >= limit || exhausted {
                out.sort { $0.date != $1.date ? $0.date < $1.date : ExactKey($0.identifier) < ExactKey($1.identifier) }
                return Array(out.prefix(limit))
            }
            k = Swift.min(k * 4, RequestLimits.maximumQueryCount)
        }
    }
}
