import Foundation
import Synchronization

/// A watch on one response's writes: a write that has waited longer than a limit (the buffers
/// between are full and the client read too little of them for that long: nothing, or a slow
/// trickle) ends the response.
///
/// A write to a client that stops reading waits until the client reads; an event stream's
/// handler waiting there held its slot (`limits.maxEventStreams`) for as long as the client
/// lived, so that many stalled clients shut the tenant's streams out for good (the thirty-sixth
/// pass noticed it). ``watching(limit:_:)`` runs the response beside a watcher that, when a
/// write has waited past the limit, cancels it: the write throws, the connection is closed and
/// the slot freed. A quiet stream waits in no write, so it is never stalled: only a write
/// counts.
///
/// Cost: one sleeping task per watched response, waking every quarter of the limit (at most
/// every 5 s), and two atomic stores per write.
final class StalledWrites: Sendable {
    /// When the write in progress began (nanoseconds of the monotonic clock), 0 when none is.
    private let since = Atomic<UInt64>(0)

    /// A write the client did not take within the limit.
    struct Stalled: Error, CustomStringConvertible {
        var limit: Duration
        var description: String { "a write waited \(limit) for the client to read (it read too little): the stream is closed" }
    }

    private init() {}

    /// Runs `write`, watched.
    func write(_ write: () async throws -> Void) async throws {
        since.store(max(1, DispatchTime.now().uptimeNanoseconds), ordering: .relaxed)
        defer { since.store(0, ordering: .relaxed) }
        try await write()
    }

    /// Whether the write in progress has waited longer than `limit`.
    func stalled(limit: Duration) -> Bool {
        let start = since.load(ordering: .relaxed)
        guard start != 0 else { return false }
        let waited = DispatchTime.now().uptimeNanoseconds &- start
        return Duration.nanoseconds(Int64(clamping: waited)) > limit
    }

    /// Runs `body` with a watch its writes go through (``write(_:)``); ends it with
    /// ``Stalled`` when a write waits past `limit`. `body` runs in a child task (so that the
    /// watcher can cancel it), and is done before this returns.
    static func watching<T: Sendable>(limit: Duration, _ body: (StalledWrites) async throws -> T) async throws -> T {
        let watch = StalledWrites()
        let every = max(min(limit / 4, .seconds(5)), .milliseconds(10))
        return try await withoutActuallyEscaping(body) { body in
            // The child task runs `body` while this task waits for the group: the group ends
            // only after its children, so `body` does not outlive this call.
            let transfer = Transfer(body: body)
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await transfer.body(watch) }
                group.addTask {
                    while true {
                        try await Task.sleep(for: every)
                        if watch.stalled(limit: limit) { throw Stalled(limit: limit) }
                    }
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else { throw CancellationError() }
                return value
            }
        }
    }

    /// `body` handed to the child task that runs it (see ``watching(limit:_:)``).
    private struct Transfer<T>: @unchecked Sendable {
        let body: (StalledWrites) async throws -> T
    }
}
