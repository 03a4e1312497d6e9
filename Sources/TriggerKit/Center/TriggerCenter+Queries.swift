import Foundation

// What a center answers about its next fires, its feed of deliveries and its counters.

extension TriggerCenter {
    /// The next date a pending request's time-based trigger fires, or `nil` (unknown
    /// identifier, location trigger, nothing left to fire). O(n).
    public func nextTriggerDate(forIdentifier id: String) -> Date? {
        engine.nextFireDate(identifier: id).map(Timestamp.date(millis:))
    }

    /// The `limit` soonest time-based fires across all pending requests (repeating ones
    /// counted as often as they fire), in date order, ties by identifier; with `device`, only
    /// the fires that device would get.
    ///
    /// `limit` is at most ``RequestLimits/maximumQueryCount``. Each later fire of a trigger in
    /// another calendar than the Gregorian (Chinese, Hebrew, Islamic...) is Foundation's to
    /// find, at 0.3 ms to over 100 ms, so one call computes at most 128 of them, none past
    /// 20 years after the first fire listed (and at most
    /// 1,000 later fires Foundation answers in the Gregorian calendar, at 0.03-0.1 ms, some up
    /// to about 0.8 ms: dates before 1583 or past a zone's table, `era` or `nanosecond` beside
    /// a month-relative field; before 1583 a `weekOfMonth` with a `day` it does not hold takes
    /// Foundation about 7 ms a fire, so such a call can take seconds); the list
    /// then ends at the fire that spent the last one, and may be shorter than `limit`. What
    /// it lists is always the true beginning of the sequence.
    /// - Complexity: O(k log k) for k = `limit` without a device filter.
    public func upcomingFires(limit: Int, device: String? = nil) -> [UpcomingFire] {
        engine.soonestFires(limit: Swift.min(Swift.max(0, limit), RequestLimits.maximumQueryCount), device: device)
            .map { UpcomingFire(identifier: $0.identifier, device: $0.device, date: Timestamp.date(millis: $0.date)) }
    }

    /// A new feed of every delivery from now on. Each call gets its own feed: several
    /// consumers each see every delivery. A consumer more than `bufferLimit` (default
    /// ``CenterConfiguration/deliveryBufferLimit``) deliveries behind loses the newest ones,
    /// counted in ``statistics``' `feedDropped`; the history keeps them. The feed finishes
    /// at ``shutdown()``. `bufferLimit` is held to the configuration's range, 1...1,048,576
    /// (a larger one queued without bound; 0 and negative ones read as 1).
    public func deliveries(bufferLimit: Int? = nil) -> DeliveryStream {
        feed.subscribe(limit: Swift.min(Swift.max(1, bufferLimit ?? configuration.deliveryBufferLimit), OptionRules.maxDeliveryBuffer))
    }

    /// The center's counters.
    public var statistics: CenterStatistics {
        var s = counters
        s.suppressed = evaluator.stats.suppressed
        // The restored counts (a snapshot's) plus this center's own: they were reset to 0 by
        // every restart (found by a helper).
        s.historyDropped = counters.historyDropped + history.dropped
        s.feedDropped = counters.feedDropped + feed.dropped
        s.pendingRequests = engine.pendingCount
        return s
    }
}
