import Foundation
import Synchronization
import TriggerKit

/// The live side of a tenant's events: each SSE connection subscribes and gets every event
/// recorded after it subscribed (optionally one device's and the shared ones).
///
/// Bounded: a subscriber more than `bufferLimit` events behind is disconnected (its stream
/// finishes) instead of holding events or slowing anyone down; the client resumes with
/// `Last-Event-ID` from the durable outbox, so it loses nothing.
final class EventHub: Sendable {
    struct Event: Sendable {
        var seq: Int64
        var device: String?
        var body: Data
    }

    private struct Subscriber {
        var device: String?
        var continuation: AsyncStream<Event>.Continuation
    }

    let bufferLimit: Int
    private let state = Mutex<(next: UInt64, subscribers: [UInt64: Subscriber], finished: Bool)>((0, [:], false))

    init(bufferLimit: Int) { self.bufferLimit = Swift.max(1, bufferLimit) }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func subscribe(device: String?) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        let id: UInt64? = state.withLock { s in
            if s.finished { return nil }
            s.next += 1
            s.subscribers[s.next] = Subscriber(device: device, continuation: continuation)
            return s.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ events: [Event]) {
        let subs = state.withLock { Array($0.subscribers) }
        for (id, s) in subs {
            for e in events where s.device == nil || e.device == nil || e.device!.isExactly(s.device!) {
                if case .dropped = s.continuation.yield(e) {
                    // Too far behind: end this stream; the client resumes from the outbox.
                    s.continuation.finish()
                    _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
                    break
                }
            }
        }
    }

    func finishAll() {
        let subs = state.withLock { s -> [Subscriber] in
            s.finished = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for s in subs { s.continuation.finish() }
    }
}
