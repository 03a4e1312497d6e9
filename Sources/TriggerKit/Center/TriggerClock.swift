import Foundation
import Synchronization

/// The time a ``TriggerCenter`` runs on. Time-based triggers fire when this clock reaches
/// their date, with no fix needed.
///
/// Two are provided: ``WallClock`` for live services and ``ManualClock`` for tests and
/// replays. A conforming type must be monotone in practice: a clock that goes back does not
/// un-deliver anything; the center simply waits until its time passes the latest instant it
/// has already evaluated, and a request added meanwhile without `addedAt` (or a snooze) is
/// dated at that instant, so that no fire is dated before what was already evaluated.
public protocol TriggerClock: Sendable {
    /// The current instant.
    var now: Date { get }
    /// Suspends until ``now`` is at or after `deadline`, or the task is cancelled (then it
    /// throws `CancellationError`). A deadline the clock never reaches (NaN, `distantFuture`)
    /// suspends until cancelled.
    func sleep(until deadline: Date) async throws
}

/// The system's real-time clock (`Date()`); sleeps with `Task.sleep`.
public struct WallClock: TriggerClock {
    /// The system clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// Naps of at most a minute until the wall clock reads `deadline` or later.
    public func sleep(until deadline: Date) async throws {
        // Re-reads the wall clock after each nap: a wall-clock step (NTP, suspend) moves the
        // deadline, and one long sleep measured on the monotonic clock would miss it. Naps
        // are at most a minute, so a jump is noticed within a minute.
        while true {
            let left = deadline.timeIntervalSince(Date())
            if left <= 0 { return }
            // A NaN deadline is never reached (`min` would pass NaN on to a trapping Int64).
            let nap = left.isNaN ? 60 : min(left, 60)
            try await Task.sleep(for: .milliseconds(Int64(nap * 1000) + 1))
        }
    }
}

/// A clock that moves only when told to: for tests and for replaying recorded data.
///
/// Thread-safe. ``advance(to:)`` wakes every sleeper whose deadline has been reached.
public final class ManualClock: TriggerClock {
    private struct State {
        var now: Date
        var sleepers: [(id: UInt64, deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        /// Sleeps cancelled before their sleeper was registered (each removed when its sleep
        /// returns).
        var cancelled: Set<UInt64> = []
    }
    private let state: Mutex<State>

    /// A clock reading `start`. A center refuses changes and fixes while its clock reads NaN
    /// or a date outside ``RequestLimits/supportedDates``, naming the clock.
    public init(_ start: Date) { state = Mutex(State(now: start)) }

    /// The date the clock was started at or last advanced to.
    public var now: Date { state.withLock { $0.now } }

    /// Moves the clock to `date` (never backwards: an earlier date is ignored) and wakes the
    /// sleepers whose deadline it reached.
    public func advance(to date: Date) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            guard date > s.now else { return [] }
            s.now = date
            let ready = s.sleepers.filter { Self.reached($0.deadline, at: date) }
            s.sleepers.removeAll { Self.reached($0.deadline, at: date) }
            return ready.map(\.continuation)
        }
        for c in due { c.resume() }
    }

    /// Whether the clock reading `now` has reached `deadline`; never for a NaN deadline
    /// (`Date`'s `<=` is `!(b < a)`, true with a NaN).
    private static func reached(_ deadline: Date, at now: Date) -> Bool {
        deadline.timeIntervalSinceReferenceDate <= now.timeIntervalSinceReferenceDate
    }

    /// Moves the clock forward by `interval` seconds.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(interval))
    }

    /// Suspends until ``advance(to:)`` reaches `deadline` (never, for a NaN deadline: until
    /// cancelled).
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        // (After the handler below is gone, nothing can mark this sleep cancelled again.)
        defer { state.withLock { _ = $0.cancelled.remove(id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { s in
                    if s.cancelled.contains(id) { return .failure(CancellationError()) }
                    if Self.reached(deadline, at: s.now) { return .success(()) }
                    s.sleepers.append((id, deadline, c))
                    return nil
                }
                if let outcome { c.resume(with: outcome) }
            }
        } onCancel: {
            // A task cancelled before its sleeper is registered (already cancelled when it
            // called, or cancelled meanwhile) is marked, and the registration throws: it
            // waited for the clock to reach its deadline, which might be never (a helper's
            // find: `run()` left a timer task behind at every wake).
            let c = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else {
                    s.cancelled.insert(id)
                    return nil
                }
                return s.sleepers.remove(at: i).continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }
}
