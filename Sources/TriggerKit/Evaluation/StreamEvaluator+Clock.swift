import Foundation

// Stream time: each line's clock step, the due time fires (catch-up policy and bounds), and
// their delivery.

@_spi(Engine) extension StreamEvaluator {
    /// What every line does first: count it, start the schedule on the first line, advance the
    /// stream time and emit the time fires due by then.
    @inline(__always)
    func begin(_ t: Int64, into events: inout [FiredEvent]) {
        stats.lines += 1
        if schedule == nil { start(defaultAddedAt: options.now.map(Timestamp.millis) ?? t) }
        if let s = streamTime { streamTime = Swift.max(s, t) } else { streamTime = t }
        advanceClock(to: streamTime ?? t, into: &events)
    }

    /// The first valid line fixes the default `addedAt`: build the schedule then.
    func start(defaultAddedAt defaultAdded: Int64) {
        starts += 1
        defaultAddedAt = defaultAdded
        // The ranks from the build hold while no request was added since (requests are only
        // ever appended).
        let ranks = initialRanks?.count == requests.count ? initialRanks : nil
        initialRanks = nil
        schedule = FireSchedule(requests: requests, defaultAddedAt: defaultAdded, floatingTimeZone: options.floatingTimeZone,
                                after: nil, ranks: ranks)
        // (Only requests with their own `addedAt` are read: in identifier order, reading every
        // request was a cache miss each.)
        for s in locations.indices {
            locations[s].addedAt = locations[s].ownAddedAt
                ? requests[Int(locations[s].request)].addedAt.map(Timestamp.millis) ?? defaultAdded : defaultAdded
        }
        sortedAddedAts = locations.map(\.addedAt).sorted()
        guarded?.start(addedAt: { self.requests[Int($0)].addedAt.map(Timestamp.millis) ?? defaultAdded },
                       device: { self.requests[Int($0)].device.map { self.device(named: $0) } ?? -1 },
                       now: streamTime ?? defaultAdded)
    }

    /// Emits every time fire with date <= `t`, in date order (ties by identifier), coalesced
    /// as ``StreamOptions/catchUp`` and ``StreamOptions/maxClockJump`` say.
    func advanceClock(to t: Int64, into events: inout [FiredEvent]) {
        if let g = guarded, g.soonest <= t {
            // (The fences' events are merged with the time fires by date: a catch-up is held
            // whole here.)
            advanceGuardedClock(g, to: t, into: &events)
            return
        }
        emitScheduleFires(upTo: t, into: &events, sink: catchUpSink)
    }

    /// The time triggers' fires due by `t`, delivered in date order (ties by identifier).
    /// With a `sink`, taken from the schedule ``catchUpChunk`` at a time (never splitting one
    /// date's fires), and `events` handed to it whenever it holds that many: a catch-up of
    /// millions of fires (per-second triggers after a clock step of days) is never held whole.
    func emitScheduleFires(upTo t: Int64, into events: inout [FiredEvent], sink: CatchUpSink? = nil) {
        guard let soonest = schedule?.soonestFire, soonest.date <= t else { return }
        let horizon = catchUpHorizon(t)
        let limit = sink == nil ? Int.max : Swift.max(1, catchUpChunk)
        repeat {
            due.removeAll(keepingCapacity: true)
            // Mutated in place through the optional: a `var s = schedule` copy would share the
            // heap's buffer with `schedule` and copy the whole heap on its first change.
            schedule?.popDue(until: t, coalescingBefore: horizon, window: t &- catchUpWindowMillis, into: &due, limit: limit)
            guard let entries = schedule?.entries else { return }
            // Coalesced fires come first (dated before the horizon, every other fire after it;
            // a trigger whose count stopped at its cap may have two, the second for the catch-up
            // window), popped by their earliest fire but dated at their latest: put in date
            // order, ties by identifier, as every fire is. (They came in the order of their earliest fires:
            // not in date order, and in another order once a trigger was added in place; found
            // by a helper comparing `run`'s control lines with rebuilding.)
            var coalesced = 0
            while coalesced < due.count, due[coalesced].date < horizon { coalesced += 1 }
            if coalesced > 1 { sortCoalesced(coalesced, entries: entries) }
            // Triggers appended in place carry no identifier rank: order their ties now.
            if schedule?.hasAppended == true { sortTies(entries: entries) }
            for f in due {
                let ri = entries[Int(f.slot)].request
                // Its last fire (delivered, suppressed or past its expiry): the request is finished.
                if recordsFinished, f.last { finishedRequests.append(ri) }
                // Requests appended in place after the fences were built without an `expiresAt`
                // are past the end of their expiry table (indexing it crashed `serve`); those
                // with one extended it (``GuardedFences/appendExpiry(request:at:)``).
                if let g = guarded, Int(ri) < g.expiresAt.count, f.date >= g.expiresAt[Int(ri)] { continue }
                let r = requests[Int(ri)]
                var e = FiredEvent(request: ri, date: f.date, kind: r.trigger.kind, crossing: nil,
                                   device: r.device.map { firedDevice(named: $0) } ?? -1)
                e.count = f.count
                deliver(e, into: &events)
            }
            if let sink, events.count >= limit { sink(self, &events) }
        } while sink != nil && (schedule?.soonestFire.map { $0.date <= t } ?? false)
    }

    /// Fires dated before this are coalesced per trigger when the clock moves to `t`
    /// (``StreamOptions/catchUp``).
    private func catchUpHorizon(_ t: Int64) -> Int64 {
        Self.catchUpHorizon(t, policy: options.catchUp, windowMillis: catchUpWindowMillis)
    }

    static func catchUpHorizon(_ t: Int64, policy: CatchUpPolicy, windowMillis: Int64) -> Int64 {
        switch policy {
        case .coalesced: t == .max ? .max : t + 1
        // Without a jump limit the window is still the default's: catch-up stays bounded.
        case .everyFire: t &- windowMillis
        }
    }

    /// The catch-up window of `options`, milliseconds: its own, else the one its clock-jump
    /// limit implies (``ClockJumpRule/catchUpWindowMillis(limit:)``).
    static func catchUpWindowMillis(_ options: StreamOptions) -> Int64 {
        if let w = options.catchUpWindow, w.isFinite, w >= 0 { return DurationMillis.atMost(Swift.min(w, 1e15)) }
        return ClockJumpRule.catchUpWindowMillis(limit: ClockJumpRule.limitMillis(options.maxClockJump))
    }

    /// How many time-trigger deliveries moving the clock to `t` would make (a coalesced one
    /// counts 1; suppressed ones and those past an expiry that a fence table knows count too),
    /// up to `limit`. Changes nothing. A service bounds one step's work with it.
    ///
    /// - Complexity: ``FireSchedule/countDue(until:coalescingBefore:limit:)``.
    package func dueFireCount(upTo t: Int64, limit: Int) -> Int {
        guard let s = schedule, let soonest = s.soonestFire, soonest.date <= t else { return 0 }
        return s.countDue(until: t, coalescingBefore: catchUpHorizon(t), limit: limit)
    }

    /// How many time-trigger deliveries adding `r` would make at once with the clock at `t`
    /// under `options` (its fires due by then, an `addedAt` in the past, caught up as a step
    /// would: a coalesced one counts 1), up to `limit`. Static: it needs no evaluator (the
    /// center's may be waiting to be rebuilt, which reading it would do at each add).
    package static func catchUpFireCount(of r: NotificationRequest, upTo t: Int64, options: StreamOptions, limit: Int) -> Int {
        let added = r.addedAt.flatMap(RequestLimits.millis) ?? t
        guard limit > 0, let rule = TimeRule(r.trigger, addedAt: added, floatingTimeZone: options.floatingTimeZone),
              let first = rule.firstFire, first <= t else { return 0 }
        let expires = r.expiresAt.flatMap(RequestLimits.millis) ?? .max
        guard first < expires else { return 0 }
        let entry = FireSchedule.Entry(rule: rule, request: 0, rank: 0, expiresAt: expires)
        let horizon = catchUpHorizon(t, policy: options.catchUp, windowMillis: catchUpWindowMillis(options))
        return FireSchedule.countDue(entry, from: first, until: t, coalescingBefore: horizon, limit: limit)
    }

    /// Appends a fire unless its device may not show anything (then it is only counted):
    /// the presentation is the content intersected with the device's current settings.
    func deliver(_ event: FiredEvent, into events: inout [FiredEvent]) {
        var e = event
        let wants = contentWants[Int(e.request)]
        let s = e.device >= 0 ? settings[Int(e.device)] : NotificationSettings.authorized
        guard s.authorizationStatus.allowsDelivery else {
            stats.suppressed += 1
            return
        }
        e.presentation = s.presentation(alert: wants & 1 != 0, sound: wants & 2 != 0, badge: wants & 4 != 0)
        events.append(e)
        stats.fires += 1
    }

    /// Sorts the first `count` fires of ``due`` (the coalesced ones) by date, then exact
    /// identifier (by rank where both have one). O(k log k) for k coalesced triggers.
    private func sortCoalesced(_ count: Int, entries: [FireSchedule.Entry]) {
        due[..<count].sort { a, b in
            if a.date != b.date { return a.date < b.date }
            let ra = entries[Int(a.slot)].rank, rb = entries[Int(b.slot)].rank
            if ra != FireSchedule.appendedRank && rb != FireSchedule.appendedRank { return ra < rb }
            return ExactKey(requests[Int(entries[Int(a.slot)].request)].identifier)
                < ExactKey(requests[Int(entries[Int(b.slot)].request)].identifier)
        }
    }

    /// Sorts each run of equal dates in ``due`` by exact identifier (the contract's order).
    private func sortTies(entries: [FireSchedule.Entry]) {
        var i = 0
        while i < due.count {
            var j = i + 1
            while j < due.count, due[j].date == due[i].date { j += 1 }
            // Runs of bulk-built triggers only are in identifier order already (their ranks).
            if j - i > 1, due[i..<j].contains(where: { entries[Int($0.slot)].rank == FireSchedule.appendedRank }) {
                due[i..<j].sort { ExactKey(requests[Int(entries[Int($0.slot)].request)].identifier)
                    < ExactKey(requests[Int(entries[Int($1.slot)].request)].identifier) }
            }
            i = j
        }
    }
}
