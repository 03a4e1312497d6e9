/// The live feeds of deliveries: every subscriber gets every delivery made after it
/// subscribed, in order, through its own bounded buffer.
///
/// At the bound: a subscriber that falls more than its buffer behind loses the newest
/// deliveries (they are not queued) and each loss is counted in ``dropped``; the delivered
/// history and the store stay complete, so a consumer that sees a gap can read them. The
/// feeds finish when the center shuts down. Held by the center actor (not thread-safe).
struct DeliveryFeed: Sendable {
    private var subscribers: [UInt64: AsyncStream<DeliveredNotification>.Continuation] = [:]
    private var nextID: UInt64 = 0
    private(set) var isFinished = false
    /// Deliveries not queued because a subscriber's buffer was full (all subscribers).
    private(set) var dropped = 0

    var subscriberCount: Int { subscribers.count }

    /// A new subscription with room for `limit` undelivered values, and its id (for
    /// ``remove(_:)`` when the consumer stops).
    mutating func subscribe(limit: Int) -> (id: UInt64, stream: AsyncStream<DeliveredNotification>) {
        let (stream, continuation) = AsyncStream.makeStream(of: DeliveredNotification.self,
                                                            bufferingPolicy: .bufferingOldest(Swift.max(1, limit)))
        nextID += 1
        if isFinished {
            continuation.finish()
        } else {
            subscribers[nextID] = continuation
        }
        return (nextID, stream)
    }

    mutating func remove(_ id: UInt64) { subscribers[id] = nil }

    /// Sends one delivery to every subscriber. O(subscribers).
    mutating func send(_ d: DeliveredNotification) {
        for (id, c) in subscribers {
            switch c.yield(d) {
            case .enqueued: break
            case .dropped: dropped += 1
            case .terminated: subscribers[id] = nil
            @unknown default: break
            }
        }
    }

    /// Finishes every feed; later subscriptions finish at once.
    mutating func finish() {
        isFinished = true
        for c in subscribers.values { c.finish() }
        subscribers.removeAll()
    }
}
