import Foundation

/// The schedule index: the next fire of every time-based trigger (calendar, time interval,
/// immediate) in one priority queue.
///
/// Answers "pop everything due until T" (the stream evaluator's step) and "the K soonest
/// fires" (iOS's 64-pending view) without disturbing the queue.
///
/// Memory: one ``ScheduledFire`` (16 bytes) in the queue plus one ``Entry`` per trigger;
/// ``bytesPerTrigger`` states the figure for the current build.
@_spi(Engine) public struct FireSchedule: Sendable {
    /// One time-based trigger in the schedule.
    public struct Entry: Sendable {
        /// How its dates are produced.
        public var rule: TimeRule
        /// Index of its request in the caller's request array.
        public var request: Int32
        /// Its request's position in identifier order (tie-breaker of equal dates);
        /// ``appendedRank`` for triggers appended after the build (their ties are sorted by
        /// identifier when popped).
        public var rank: Int32
        /// False once removed in place: its queued fire is dropped when it comes up.
        public var live = true
        /// Its request's `expiresAt` (epoch ms): no fire at or after it. `Int64.max`: none.
        public var expiresAt = Int64.max

        /// The fire after `date`, unless the request has expired by then.
        @inline(__always)
        func fire(after date: Int64) -> Int64? {
            guard let n = rule.fire(after: date), n < expiresAt else { return nil }
            return n
        }
    }

    /// The rank of triggers appended in place.
    static let appendedRank = Int32.max
    /// Whether some trigger was appended in place (then equal-date runs need sorting).
    public private(set) var hasAppended = false

    /// The triggers, by slot.
    public private(set) var entries: [Entry]
    private(set) var queue: FireQueue

    /// Builds the schedule of the time-based requests among `requests`.
    ///
    /// - Parameters:
    ///   - requests: all requests; location ones are left out.
    ///   - defaultAddedAt: epoch ms used for requests without `addedAt`.
    ///   - floatingTimeZone: the zone of floating calendar triggers.
    ///   - after: when set, each trigger's first queued fire is its first one strictly
    ///     later than this instant (used to resume, or to plan from a reference date).
    /// - Complexity: O(n) plus one next-date computation per trigger.
    public init(requests: [NotificationRequest], defaultAddedAt: Int64, floatingTimeZone: TimeZone, after: Int64? = nil) {
        self.init(requests: requests, defaultAddedAt: defaultAddedAt, floatingTimeZone: floatingTimeZone, after: after, ranks: nil)
    }

    /// ``init(requests:defaultAddedAt:floatingTimeZone:after:)`` with the requests' positions in
    /// identifier order (``IdentifierOrder/ranks``) when the caller has them already.
    init(requests: [NotificationRequest], defaultAddedAt: Int64, floatingTimeZone: TimeZone, after: Int64?, ranks known: [Int32]?) {
        let ranks = known ?? IdentifierOrder(requests).ranks
        var entries: [Entry] = []
        var fires: [ScheduledFire] = []
        entries.reserveCapacity(requests.count)
        fires.reserveCapacity(requests.count)
        for (i, r) in requests.enumerated() {
            let added = r.addedAt.map(Timestamp.millis) ?? defaultAddedAt
            guard let rule = TimeRule(r.trigger, addedAt: added, floatingTimeZone: floatingTimeZone) else { continue }
            let slot = Int32(entries.count)
            let expires = r.expiresAt.flatMap(RequestLimits.millis) ?? .max
            entries.append(Entry(rule: rule, request: Int32(i), rank: ranks[i], expiresAt: expires))
            let first = after.map { rule.nextFire(strictlyAfter: $0) } ?? rule.firstFire
            if let first, first < expires { fires.append(ScheduledFire(date: first, rank: ranks[i], slot: slot)) }
        }
        self.entries = entries
        self.queue = FireQueue(fires)
    }

    /// Adds a trigger in place (request index `request`), its first fire queued unless it is
    /// at or after `expiresAt` (as a build queues it). O(log n).
    /// Entries stay sorted by request index when `request` exceeds every earlier one.
    mutating func append(request: Int32, rule: TimeRule, expiresAt: Int64 = .max) {
        let slot = Int32(entries.count)
        entries.append(Entry(rule: rule, request: request, rank: Self.appendedRank, expiresAt: expiresAt))
        hasAppended = true
        if let first = rule.firstFire, first < expiresAt { queue.insert(ScheduledFire(date: first, rank: Self.appendedRank, slot: slot)) }
    }

    /// The slot of a request's trigger, by binary search (entries are sorted by request
    /// index). O(log n).
    func slot(ofRequest request: Int32) -> Int32? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].request < request { lo = mid + 1 } else { hi = mid }
        }
        return lo < entries.count && entries[lo].request == request ? Int32(lo) : nil
    }

    /// Room for `extra` more triggers without reallocating.
    mutating func reserveCapacity(_ extra: Int) {
        entries.reserveCapacity(entries.count + extra)
        queue.reserveCapacity(extra)
    }

    /// Removes a trigger in place: its queued fire is dropped when it reaches the top. O(1).
    mutating func kill(slot: Int32) {
        guard entries[Int(slot)].live else { return }
        entries[Int(slot)].live = false
        killedCount += 1
    }

    /// Triggers removed in place.
    private(set) var killedCount = 0

    /// Number of triggers that still have a fire queued.
    public var pendingCount: Int { queue.count }

    /// The soonest queued fire. O(1).
    public var soonestFire: ScheduledFire? { queue.min }

    /// Removes and returns, in date order (ties by identifier), every fire with date <= `t`,
    /// queueing each repeating trigger's following fire (which is returned too when also due).
    ///
    /// - Complexity: O((m + 1) log n) for m fires returned.
    public mutating func popDue(until t: Int64, into out: inout [ScheduledFire]) {
        while let top = queue.min, top.date <= t {
            guard entries[Int(top.slot)].live else { queue.replaceMin(with: nil); continue }
            out.append(top)
            let next = entries[Int(top.slot)].fire(after: top.date)
            queue.replaceMin(with: next.map { ScheduledFire(date: $0, rank: top.rank, slot: top.slot) })
        }
    }

    /// One due fire as the evaluator emits it: `count` > 1 when it stands for several
    /// coalesced fires of its trigger (dated at the latest of them).
    struct DueFire {
        var date: Int64
        var slot: Int32
        var count: Int
        /// Whether it is its trigger's last fire (nothing queued after it: a one-shot, a
        /// repeating trigger that ran out, one whose expiry comes first).
        var last = false
    }

    /// ``popDue(until:into:)`` with bounded catch-up: fires dated before `horizon` are
    /// coalesced per trigger into one ``DueFire`` (at the latest of them before the horizon,
    /// with their count); the rest come one by one. `horizon` = `t + 1` coalesces every due
    /// fire (``CatchUpPolicy/coalesced``); `Int64.min` coalesces none. `window`: the catch-up
    /// window's start, where a count stopped at its cap (``TimeRule/coalesce(from:before:resumeAt:)``)
    /// resumes: the window's fires are then coalesced into a second fire of the trigger.
    ///
    /// With `limit`, it stops once `out` holds that many and the next fire, one by one (not
    /// coalesced), is dated later than the last one appended: never inside one date's fires,
    /// whose ties are ordered as a whole. (Coalesced fires, one per trigger, are not split.)
    /// Call again for the rest.
    ///
    /// - Complexity: O((m + 1) log n) for m values returned, plus per coalesced trigger O(1)
    ///   for intervals and at most ``TimeRule/coalescingCap`` date steps for calendars.
    mutating func popDue(until t: Int64, coalescingBefore horizon: Int64, window: Int64 = .min, into out: inout [DueFire],
                         limit: Int = .max) {
        while let top = queue.min, top.date <= t {
            if out.count >= limit, top.date >= horizon, let last = out.last, last.date != top.date { return }
            guard entries[Int(top.slot)].live else { queue.replaceMin(with: nil); continue }
            let entry = entries[Int(top.slot)]
            if top.date < horizon {
                let limit = Swift.min(horizon, t == .max ? t : t + 1, entry.expiresAt)
                let c = entry.rule.coalesce(from: top.date, before: limit, resumeAt: window)
                let next = c.next.flatMap { $0 < entry.expiresAt ? $0 : nil }
                out.append(DueFire(date: c.last, slot: top.slot, count: c.count, last: next == nil))
                queue.replaceMin(with: next.map { ScheduledFire(date: $0, rank: top.rank, slot: top.slot) })
            } else {
                let next = entry.fire(after: top.date)
                out.append(DueFire(date: top.date, slot: top.slot, count: 1, last: next == nil))
                queue.replaceMin(with: next.map { ScheduledFire(date: $0, rank: top.rank, slot: top.slot) })
            }
        }
    }

    /// Re-plans floating calendar triggers for a new zone: each one's next fire becomes its
    /// first in the new zone strictly after `now`, and never at or before its start (with no
    /// stream time yet, `now` is `Int64.min`: the first match since year 1 was queued, far in
    /// the past). O(n).
    public mutating func setFloatingTimeZone(_ zone: TimeZone, now: Int64, requests: [NotificationRequest]) {
        var fires: [ScheduledFire] = []
        var queued = [Int64?](repeating: nil, count: entries.count)
        for f in queue.nodes { queued[Int(f.slot)] = f.date }
        for slot in entries.indices {
            let old = entries[slot].rule
            let new = old.replanned(floatingTimeZone: zone, trigger: requests[Int(entries[slot].request)].trigger)
            entries[slot].rule = new
            var date = queued[slot]
            if case .calendar(let s, let start, _) = old, s.isFloating, date != nil {
                date = new.nextFire(strictlyAfter: Swift.max(now, start))
            }
            if let date, date < entries[slot].expiresAt { fires.append(ScheduledFire(date: date, rank: entries[slot].rank, slot: Int32(slot))) }
        }
        queue = FireQueue(fires)
    }

    /// Replaces the queue with saved cursors (slot, next date); slots out of range are
    /// ignored. O(n).
    public mutating func restoreQueue(_ cursors: [(slot: Int32, date: Int64)]) {
        queue = FireQueue(cursors.compactMap { c in
            entries.indices.contains(Int(c.slot)) ? ScheduledFire(date: c.date, rank: entries[Int(c.slot)].rank, slot: c.slot) : nil
        })
    }

    /// The queued next fire of every trigger (the cursors a durable store keeps). O(n).
    public var queuedFires: [ScheduledFire] { killedCount > 0 ? queue.nodes.filter { entries[Int($0.slot)].live } : queue.nodes }

    /// Approximate bytes held per scheduled trigger (entry + queue node), excluding shared
    /// zone tables.
    public static var bytesPerTrigger: Int { MemoryLayout<Entry>.stride + MemoryLayout<ScheduledFire>.stride }
}
