import Synchronization

/// The live feeds of deliveries: every subscriber gets every delivery made after it
/// subscribed, in order, through its own bounded buffer.
///
/// At the bound: a subscriber that falls more than its buffer behind loses the newest
/// deliveries (they are not queued) and each loss is counted in ``dropped``; the delivered
/// history and the store stay complete, so a consumer that sees a gap can read them. The
/// feeds finish when the center shuts down. Held by the center actor (not thread-safe).
struct DeliveryFeed: Sendable {
    private var subscribers: [DeliveryChannel] = []
    private(set) var isFinished = false
    /// Deliveries not queued because a subscriber's buffer was full (all subscribers).
    private(set) var dropped = 0

    var subscriberCount: Int { subscribers.count }
    /// Subscribers whose consumers stopped are let go at the next send, and at a subscription
    /// once the list has doubled since it was last pruned: a center that delivered nothing
    /// kept every feed ever opened (a helper's find), now at most about twice those open.
    private var pruneAt = 64

    /// A new subscription with room for `limit` undelivered values.
    mutating func subscribe(limit: Int) -> DeliveryStream {
        if subscribers.count >= pruneAt {
            subscribers.removeAll { $0.isTerminated }
            pruneAt = Swift.max(64, 2 * subscribers.count)
        }
        let channel = DeliveryChannel(limit: Swift.max(1, limit))
        if isFinished { channel.finish() } else { subscribers.append(channel) }
        return DeliveryStream(subscription: DeliveryStream.Subscription(channel: channel))
    }

    /// Sends a step's deliveries to every subscriber: one lock per subscriber per step.
    /// O(subscribers + deliveries).
    mutating func send(_ batch: [DeliveredNotification]) {
        guard !subscribers.isEmpty, !batch.isEmpty else { return }
        var anyGone = false
        for c in subscribers {
            if let lost = c.send(batch) { dropped += lost } else { anyGone = true }
        }
        if anyGone { subscribers.removeAll { $0.isTerminated } }
    }

    /// Finishes every feed; later subscriptions finish at once.
    mutating func finish() {
        isFinished = true
        for c in subscribers { c.finish() }
        subscribers.removeAll()
    }
}

/// One consumer's queue: the center appends a step's deliveries under one lock; the
/// consumer takes everything queued under one lock and iterates it locally, so a delivery
/// costs no lock, allocation or task switch of its own.
final class DeliveryChannel: Sendable {
    private struct State {
        var queue: [DeliveredNotification] = []
        var waiter: CheckedContinuation<[DeliveredNotification], Never>?
        var finished = false
        /// The consumer stopped (its iterator was released or its task cancelled).
        var terminated = false
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    var isTerminated: Bool { state.withLock { $0.terminated } }

    /// Queues what fits; returns how many did not fit, or nil once the consumer is gone.
    func send(_ batch: [DeliveredNotification]) -> Int? {
        let (lost, resume) = state.withLock { s -> (Int?, (CheckedContinuation<[DeliveredNotification], Never>, [DeliveredNotification])?) in
            if s.terminated { return (nil, nil) }
            let room = Swift.max(0, limit - s.queue.count)
            let lost = Swift.max(0, batch.count - room)
            if let w = s.waiter, s.queue.isEmpty {
                // The consumer is waiting: hand it the batch directly.
                s.waiter = nil
                return (lost, (w, lost == 0 ? batch : Array(batch.prefix(room))))
            }
            if lost == 0 { s.queue.append(contentsOf: batch) } else { s.queue.append(contentsOf: batch.prefix(room)) }
            return (lost, nil)
        }
        if let (w, items) = resume { w.resume(returning: items) }
        return lost
    }

    func finish() {
        let w = state.withLock { s -> CheckedContinuation<[DeliveredNotification], Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.queue.isEmpty ? s.waiter : nil
        }
        w?.resume(returning: [])
    }

    func terminate() {
        let w = state.withLock { s -> CheckedContinuation<[DeliveredNotification], Never>? in
            s.terminated = true
            s.queue = []
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume(returning: [])
    }

    /// Everything queued, waiting for a delivery if none is; empty once finished (or the
    /// consumer's task was cancelled).
    func take() async -> [DeliveredNotification] {
        if let ready = state.withLock({ s -> [DeliveredNotification]? in
            if !s.queue.isEmpty {
                var out: [DeliveredNotification] = []
                swap(&out, &s.queue)
                return out
            }
            return s.finished || s.terminated ? [] : nil
        }) { return ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<[DeliveredNotification], Never>) in
                let immediate = state.withLock { s -> [DeliveredNotification]? in
                    if !s.queue.isEmpty {
                        var out: [DeliveredNotification] = []
                        swap(&out, &s.queue)
                        return out
                    }
                    if s.finished || s.terminated { return [] }
                    s.waiter = c
                    return nil
                }
                if let immediate { c.resume(returning: immediate) }
            }
        } onCancel: {
            terminate()
        }
    }
}

/// A feed of deliveries from ``TriggerCenter/deliveries(bufferLimit:)``: every delivery made
/// after the call, in order, to one consumer.
///
/// Bounded: at most its buffer limit of deliveries wait for the consumer; when the consumer
/// falls further behind, the newest deliveries are not queued (counted in
/// ``CenterStatistics/feedDropped``; the delivered history keeps them). It finishes when the
/// center shuts down. Iterate it once, from one task: a second iterator would split the
/// deliveries with the first. Cancelling the consuming task, or releasing the feed and its
/// iterator, ends the subscription; a feed released without ever being iterated ends too (it
/// queued deliveries for ever, up to its limit, found by a helper).
public struct DeliveryStream: AsyncSequence, Sendable {
    /// Each value is one delivery.
    public typealias Element = DeliveredNotification
    /// The feed never fails: it finishes at the center's shutdown.
    public typealias Failure = Never

    /// Held by the feed and its iterator: the subscription ends when both are gone.
    let subscription: Subscription

    /// The iterator over this feed's deliveries (one consumer per feed).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(subscription: subscription)
    }

    /// Ends the subscription when the feed and the consumer's iterator are gone.
    final class Subscription: Sendable {
        let channel: DeliveryChannel
        init(channel: DeliveryChannel) { self.channel = channel }
        deinit { channel.terminate() }
    }

    /// Waits for the next delivery; `nil` once the center has shut down and the queue is empty.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let subscription: Subscription
        private var batch: [DeliveredNotification] = []
        private var index = 0

        init(subscription: Subscription) { self.subscription = subscription }

        /// The next delivery; nil once the center shut down (or the task was cancelled).
        public mutating func next() async -> DeliveredNotification? {
            if index == batch.count {
                batch = await subscription.channel.take()
                index = 0
                if batch.isEmpty { return nil }
            }
            defer { index += 1 }
            return batch[index]
        }
    }
}
