import Foundation
import NIOCore
import Synchronization
import TriggerKit

/// The live side of a tenant's events: each SSE connection subscribes and gets every event
/// recorded after it subscribed (optionally one device's and the shared ones).
///
/// Bounded, both ways:
/// - a subscriber more than `bufferLimit` events behind is disconnected (its stream ends after
///   the events it holds) instead of holding more or slowing anyone down; the client resumes
///   with `Last-Event-ID` from the durable outbox, so it loses nothing;
/// - at most `maxSubscribers` connections at once, counted until each one's handler is done
///   (a stalled client's too): one more is refused (429).
///
/// Cheap per connection: each event's SSE frame is made once, when it is published, and every
/// connection's queue holds references to the same bytes; a connection takes all its queued
/// events at once and writes them as one buffer. (Each connection made and wrote its own frame
/// per event, one write each: 100 connections and a step of 10,000 events took 20 s of both
/// cores, and every tenant's calls and `/healthz` waited behind it; a helper's measurement.)
final class EventHub: Sendable {
    struct Event: Sendable {
        var seq: Int64
        var device: String?
        /// The event's SSE frame (`id`, `event: delivered`, `data`), shared by every connection.
        var frame: ByteBuffer

        init(seq: Int64, device: String?, body: Data) {
            self.seq = seq
            self.device = device
            var b = ByteBufferAllocator().buffer(capacity: body.count + 48)
            b.writeString("id: \(seq)\nevent: delivered\ndata: ")
            b.writeBytes(body)
            b.writeString("\n\n")
            frame = b
        }
    }

    /// One connection's queue of events, taken a batch at a time (``next()``), or one at a
    /// time as an `AsyncSequence`. Ends when the hub drops it (too far behind, or shutdown),
    /// when ``cancel()`` is called, or when it is released.
    final class Subscription: AsyncSequence, Sendable {
        typealias Element = Event

        private struct State {
            var queue: [Event] = []
            var waiter: CheckedContinuation<[Event]?, Never>?
            var finished = false
        }

        let device: String?
        private let state = Mutex(State())
        private let unsubscribe: @Sendable () -> Void

        fileprivate init(device: String?, unsubscribe: @escaping @Sendable () -> Void) {
            self.device = device
            self.unsubscribe = unsubscribe
        }

        deinit { unsubscribe() }

        /// Every event queued, in order, waiting for one when none is; nil once the stream
        /// has ended and its queue is empty (or the waiting task is cancelled). With a
        /// `heartbeat`, an empty batch when none came for that long (the route then writes a
        /// comment: a peer gone without a word is found at that write, and its slot freed).
        /// One reader at a time: a second one waiting ends the first (nil).
        func next(heartbeat: Duration? = nil) async -> [Event]? {
            let timer = heartbeat.map { interval in
                Task { [weak self] in
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled else { return }
                    self?.beat()
                }
            }
            defer { timer?.cancel() }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<[Event]?, Never>) in
                    let (ready, displaced): ([Event]??, CheckedContinuation<[Event]?, Never>?) = state.withLock { s in
                        if !s.queue.isEmpty {
                            defer { s.queue = [] }
                            return (.some(s.queue), nil)
                        }
                        if s.finished { return (.some(nil), nil) }
                        let displaced = s.waiter
                        s.waiter = c
                        return (.none, displaced)
                    }
                    displaced?.resume(returning: nil)
                    if let ready { c.resume(returning: ready) }
                }
            } onCancel: {
                finish()
            }
        }

        /// Wakes a reader waiting on an empty queue with an empty batch (its heartbeat).
        private func beat() {
            let waiter = state.withLock { s -> CheckedContinuation<[Event]?, Never>? in
                guard s.queue.isEmpty, !s.finished else { return nil }
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: [])
        }

        /// Queues what this connection sees of `events`, at most `limit` in all: past it the
        /// stream ends (false) and what it held is dropped (the client resumes from the
        /// outbox), so the connection closes once the write it is in is done. (It wrote the
        /// `limit` events it held first: a client reading 100 KB/s stayed connected, its slot
        /// taken, for half a minute after falling 10,000 behind; a helper's find.)
        fileprivate func enqueue(_ events: [Event], limit: Int) -> Bool {
            let (waiter, batch, kept): (CheckedContinuation<[Event]?, Never>?, [Event], Bool) = state.withLock { s in
                guard !s.finished else { return (nil, [], false) }
                var kept = true
                for e in events where device == nil || e.device == nil || e.device!.isExactly(device!) {
                    guard s.queue.count < limit else {
                        s.finished = true
                        s.queue = []
                        kept = false
                        break
                    }
                    s.queue.append(e)
                }
                guard let w = s.waiter, !s.queue.isEmpty || s.finished else { return (nil, [], kept) }
                s.waiter = nil
                defer { s.queue = [] }
                return (w, s.queue, kept)
            }
            waiter?.resume(returning: batch.isEmpty ? nil : batch)
            return kept
        }

        /// Ends the stream after the events queued.
        fileprivate func finish() {
            let waiter = state.withLock { s -> CheckedContinuation<[Event]?, Never>? in
                s.finished = true
                defer { s.waiter = nil }
                return s.queue.isEmpty ? s.waiter : nil
            }
            waiter?.resume(returning: nil)
        }

        /// Ends the stream and leaves the hub.
        func cancel() {
            finish()
            unsubscribe()
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            let subscription: Subscription
            var batch: [Event] = []
            var position = 0

            mutating func next() async -> Event? {
                while position == batch.count {
                    guard let more = await subscription.next() else { return nil }
                    batch = more
                    position = 0
                }
                defer { position += 1 }
                return batch[position]
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
    }

    private struct Weak: Sendable {
        weak var subscription: Subscription?
    }

    /// The most bytes of frames one write to a connection takes (64 KiB): the rest waits as
    /// references until the client reads.
    static let writeBytes = 64 << 10
    /// A quiet stream gets a comment (`: ping`) this often.
    static let heartbeat: Duration = .seconds(25)

    let bufferLimit: Int
    let maxSubscribers: Int
    private let state = Mutex<(next: UInt64, subscribers: [UInt64: Weak], finished: Bool)>((0, [:], false))

    init(bufferLimit: Int, maxSubscribers: Int) {
        self.bufferLimit = Swift.max(1, bufferLimit)
        self.maxSubscribers = Swift.max(1, maxSubscribers)
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A new connection's subscription, or nil when ``maxSubscribers`` are open. After
    /// ``finishAll()``, one that has already ended.
    func subscribe(device: String?) -> Subscription? {
        // The slot is taken (an empty entry) under the same lock as the count is read: two
        // connections at once could both pass the check (a reviewer's find).
        let id: UInt64? = state.withLock { s in
            guard s.finished || s.subscribers.count < maxSubscribers else { return nil }
            s.next += 1
            if !s.finished { s.subscribers[s.next] = Weak(subscription: nil) }
            return s.next
        }
        guard let id else { return nil }
        let subscription = Subscription(device: device) { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        let open = state.withLock { s -> Bool in
            guard !s.finished, s.subscribers[id] != nil else { return false }
            s.subscribers[id] = Weak(subscription: subscription)
            return true
        }
        if !open { subscription.finish() }
        return subscription
    }

    func publish(_ events: [Event]) {
        guard !events.isEmpty else { return }
        let subscriptions = state.withLock { $0.subscribers.values.compactMap(\.subscription) }
        for s in subscriptions where !s.enqueue(events, limit: bufferLimit) {
            // Too far behind: its stream ends (what it held dropped); the client resumes from
            // the outbox. Its slot stays taken until the connection's handler is done with it
            // (``Subscription/cancel()``): a client that stopped reading is still a connection.
            s.finish()
        }
    }

    func finishAll() {
        let subscriptions = state.withLock { s -> [Subscription] in
            s.finished = true
            defer { s.subscribers.removeAll() }
            return s.subscribers.values.compactMap(\.subscription)
        }
        for s in subscriptions { s.finish() }
    }
}
