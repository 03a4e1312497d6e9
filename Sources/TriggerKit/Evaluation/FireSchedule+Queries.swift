import Foundation

// What the schedule answers without changing its queue: how much a step would deliver, and
// the soonest fires.

extension FireSchedule {
    /// How many values ``popDue(until:coalescingBefore:window:into:limit:)`` would return
    /// without a limit (one per trigger for its fires before `horizon`, one per fire after),
    /// counted up to `limit`: past it the answer is `limit`. The queue is not changed. (A
    /// trigger whose coalesced count stops at its cap makes a line more there, or several for
    /// a catch-up window of more than ``TimeRule/coalescingCap`` fires: counted as one.)
    ///
    /// - Complexity: O(d + min(limit, f)) next-date computations for d triggers due and f
    ///   fires after the horizon: a subtree of the heap whose root is later than `t` is not
    ///   walked.
    func countDue(until t: Int64, coalescingBefore horizon: Int64, limit: Int) -> Int {
        guard limit > 0, let first = queue.min, first.date <= t else { return 0 }
        let nodes = queue.nodes
        var n = 0
        var stack = [0]
        while let i = stack.popLast() {
            let top = nodes[i]
            guard top.date <= t else { continue }
            for c in [2 * i + 1, 2 * i + 2] where c < nodes.count { stack.append(c) }
            let entry = entries[Int(top.slot)]
            guard entry.live else { continue }
            n += Self.countDue(entry, from: top.date, until: t, coalescingBefore: horizon, limit: limit - n)
            if n >= limit { return limit }
        }
        return n
    }

    /// ``countDue(until:coalescingBefore:limit:)`` for one trigger whose next fire is
    /// `first`: also what adding it would deliver at once, when `first` is in the past.
    static func countDue(_ entry: Entry, from first: Int64, until t: Int64, coalescingBefore horizon: Int64, limit: Int) -> Int {
        var n = 0
        var date: Int64? = first
        if first < horizon, first <= t {
            n += 1
            if n >= limit { return limit }
            // Its first fire at or after the horizon (the coalesced one's `next`).
            date = horizon > t ? nil : entry.fire(after: horizon - 1)
        }
        while let d = date, d <= t {
            n += 1
            if n >= limit { return limit }
            date = entry.fire(after: d)
        }
        return n
    }

    /// The `k` soonest fires across all triggers, in date order (ties by identifier),
    /// counting each repeating trigger's later fires too. The queue is not changed.
    ///
    /// Walks the heap's implicit tree with a small frontier heap: a node's children can only
    /// come after it, so at most 2k nodes are looked at.
    ///
    /// - Complexity: O(k log k) heap work plus one next-date computation per repeat (for
    ///   triggers in other calendars than the Gregorian, Foundation's: 0.3 ms to over 100 ms
    ///   each; ``soonest(_:otherCalendarBudget:)`` bounds them).
    public func soonest(_ k: Int) -> [ScheduledFire] {
        soonest(k, otherCalendarBudget: .max).fires
    }

    /// Later fires of other-calendar triggers that one query of the center computes at most
    /// (``TriggerCenter/upcomingFires(limit:device:)``): 40 ms for a daily Chinese trigger;
    /// rare patterns are bounded by ``TimeRule/otherCalendarHorizon`` first.
    static let otherCalendarRepeatBudget = 128
    /// Later fires of Gregorian triggers that Foundation answers
    /// (``TimeRule/isAnsweredByFoundation(after:)``, 0.03-0.1 ms each, up to about 0.8 ms for
    /// a month-relative pattern Foundation searches far for) one such query computes at most:
    /// about 0.1 s, and about 1 s for such patterns. Before 1583, where Foundation searches
    /// without the zone tables, a `weekOfMonth` with a `day` it does not hold (week 6 with day
    /// 2) takes it 7 ms a fire (median of 682, up to 23 ms; `make fuzz`, seed 1): seconds.
    static let foundationRepeatBudget = 1_000

    /// ``soonest(_:)`` computing at most `otherCalendarBudget` later fires of triggers in
    /// other calendars, none after a fire more than `otherCalendarHorizon` ms past the first
    /// one listed, and at most `foundationBudget` later fires that Foundation answers in
    /// the Gregorian calendar. When a budget is spent the list ends at the fire that spent it
    /// (that trigger's next fire is not known, so nothing after it may be listed): it may
    /// be shorter than `k`, and `cut` says so. What it lists is always the true beginning of
    /// the sequence.
    func soonest(_ k: Int, otherCalendarBudget: Int, otherCalendarHorizon: Int64 = .max,
                 foundationBudget: Int = .max) -> (fires: [ScheduledFire], cut: Bool) {
        guard k > 0, !queue.isEmpty else { return ([], false) }
        let nodes = queue.nodes
        // Frontier items: a heap node (index >= 0) or a later fire of an emitted trigger (-1).
        struct Item: Comparable {
            var fire: ScheduledFire
            var node: Int
            static func < (a: Item, b: Item) -> Bool { a.fire < b.fire }
        }
        var frontier: [Item] = [Item(fire: nodes[0], node: 0)]
        var out: [ScheduledFire] = []
        out.reserveCapacity(k)
        func push(_ item: Item) {
            frontier.append(item)
            var i = frontier.count - 1
            while i > 0, frontier[i] < frontier[(i - 1) / 2] {
                frontier.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }
        func pop() -> Item {
            let top = frontier[0]
            let last = frontier.removeLast()
            if !frontier.isEmpty {
                frontier[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1
                    guard l < frontier.count else { break }
                    var m = l
                    if l + 1 < frontier.count, frontier[l + 1] < frontier[l] { m = l + 1 }
                    guard frontier[m] < frontier[i] else { break }
                    frontier.swapAt(i, m)
                    i = m
                }
            }
            return top
        }
        var budget = otherCalendarBudget, gregorianBudget = foundationBudget
        while out.count < k, !frontier.isEmpty {
            let item = pop()
            let slot = Int(item.fire.slot)
            let live = entries[slot].live
            if live { out.append(item.fire) }
            if item.node >= 0 {
                for c in [2 * item.node + 1, 2 * item.node + 2] where c < nodes.count {
                    push(Item(fire: nodes[c], node: c))
                }
            }
            guard live, out.count < k else { continue }
            if entries[slot].rule.isOtherCalendar {
                // This trigger's next fire is not known past here, so nothing later may be
                // listed: the list ends. (Supported dates are within 4e14 ms of each other:
                // the difference cannot overflow.)
                guard budget > 0, item.fire.date - out[0].date <= otherCalendarHorizon else { return (out, true) }
                budget -= 1
            } else if entries[slot].rule.isAnsweredByFoundation(after: item.fire.date) {
                guard gregorianBudget > 0 else { return (out, true) }
                gregorianBudget -= 1
            }
            if let next = entries[slot].fire(after: item.fire.date) {
                push(Item(fire: ScheduledFire(date: next, rank: item.fire.rank, slot: item.fire.slot), node: -1))
            }
        }
        return (out, false)
    }
}
