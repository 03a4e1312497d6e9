// Where the fences with rules (``GuardedFences``) meet the evaluator: their clock merged
// with the time triggers', their fix events merged with the main path's.

@_spi(Engine) extension StreamEvaluator {
    /// The soonest instant the clock has something to do at: a time trigger's fire, or a
    /// fence's dwell, window change or expiry (epoch ms; `nil`: nothing queued).
    public var soonestClockInstant: Int64? {
        let fire = schedule?.soonestFire?.date ?? .max
        let fence = guarded?.soonest ?? .max
        let soonest = Swift.min(fire, fence)
        return soonest == .max ? nil : soonest
    }

    /// Requests that ended by their rules since the last call (expired, or a device-scoped
    /// one-shot fence that fired): a durable store marks them not pending. O(ended).
    public func takeRequestsEndedByRules() -> [Int32] {
        guard let g = guarded, !g.ended.isEmpty else { return [] }
        defer { g.ended.removeAll() }
        return g.ended
    }

    /// Advances both clocks to `t`: the time triggers' fires and the fences' clock events
    /// (dwells, window openings and closings), in date order, ties by identifier then
    /// device; requests whose expiry passed are removed.
    func advanceGuardedClock(_ g: GuardedFences, to t: Int64, into events: inout [FiredEvent]) {
        var timed: [FiredEvent] = []
        emitScheduleFires(upTo: t, into: &timed)
        guardedEvents.removeAll(keepingCapacity: true)
        var expired: [Int32] = []
        g.advance(to: t, into: &guardedEvents, expired: &expired)
        for r in expired { kill(request: r) }
        // Order the fences' events by (date, identifier, device id), keeping the clock's order
        // for equal keys (a closing's exit before a re-opening's enter). By the device's id,
        // not its number here: numbers follow the order devices were first seen, which a
        // resumed run (numbering them as its snapshot lists them) does not share.
        let appended = g.hasAppendedFences
        let rankedEvents = guardedEvents.enumerated().sorted { a, b in
            if a.element.date != b.element.date { return a.element.date < b.element.date }
            let fa = g.fenceOfRequest[Int(a.element.request)], fb = g.fenceOfRequest[Int(b.element.request)]
            if fa != fb {
                // Built fences' slots are in identifier order; appended ones' are not.
                guard appended else { return fa < fb }
                return ExactKey(requests[Int(a.element.request)].identifier) < ExactKey(requests[Int(b.element.request)].identifier)
            }
            if a.element.device != b.element.device {
                return ExactKey(deviceNames[Int(a.element.device)]) < ExactKey(deviceNames[Int(b.element.device)])
            }
            return a.offset < b.offset
        }.map(\.element)
        var i = 0
        for e in rankedEvents {
            while i < timed.count, timed[i].date < e.date
                || (timed[i].date == e.date && ExactKey(requests[Int(timed[i].request)].identifier) < ExactKey(requests[Int(e.request)].identifier)) {
                events.append(timed[i])
                i += 1
            }
            deliver(e, into: &events)
        }
        events.append(contentsOf: timed[i...])
    }

    /// Steps the fences with rules for a used fix; returns how many events it delivered.
    func guardedFix(_ g: GuardedFences, device d: Int32, t: Int64, latitude: Double, longitude: Double, accuracy: Double?,
                    into events: inout [FiredEvent]) -> Int {
        guardedEvents.removeAll(keepingCapacity: true)
        let ignoredBefore = g.ignoredForAccuracy
        g.ensure(device: d)
        let k = Int(lookaheadFenceStart)
        if k >= 0, lookaheadMoves[k].tOut == defaultAddedAt, lookaheadMoves[k].tIn == g.aheadChain[Int(d)] {
            // Decided ahead, after the very fix applied last here (and with the same default
            // `addedAt`): its moves, acted on.
            g.aheadChain[Int(d)] = lookaheadSequence
            let moves = UnsafeBufferPointer(rebasing: lookaheadMoves[(k + 1)..<(k + 1 + Int(lookaheadMoves[k].fence))])
            g.apply(moves, device: d, t: t, latitude: latitude, longitude: longitude, accuracy: accuracy, initialFire: options.initialFire,
                    into: &guardedEvents)
        } else {
            g.fix(device: d, t: t, latitude: latitude, longitude: longitude, accuracy: accuracy,
                  initialFire: options.initialFire, into: &guardedEvents)
        }
        stats.ignoredAccuracy += g.ignoredForAccuracy - ignoredBefore
        let before = events.count
        for e in guardedEvents { deliver(e, into: &events) }
        return events.count - before
    }
}

