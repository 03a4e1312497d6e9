import Foundation
import Synchronization
import TriggerKit

/// How a server's tenants tell time.
public enum ClockMode: String, Sendable, Codable, CaseIterable {
    /// The wall clock: time triggers fire on their own; fixes may not lead it by more than
    /// the center's `maxFixLead`.
    case wall
    /// Time moves only with the data: each fix (or `POST /v1/clock`) moves the tenant's
    /// clock to its `t` if later. For tests and replays: the same input gives the same
    /// events as `triggerkit run`.
    case stream
}

/// A tenant's clock: manual while the journal is replayed at its recorded times (and for
/// ever in stream mode), then the wall clock.
final class ServerClock: TriggerClock {
    private let manual: ManualClock
    /// Whether it reads the wall clock, and the wall clock's reading held for a step.
    private let live = Mutex((on: false, held: Date?.none))

    init(start: Date) { manual = ManualClock(start) }

    var now: Date {
        let l = live.withLock { $0 }
        return l.on ? l.held ?? Date() : manual.now
    }

    var isLive: Bool { live.withLock { $0.on } }

    /// On the wall clock, holds its present reading until ``release()``: a step reads one
    /// instant, the one its journal row records, so a replay at that instant repeats the step
    /// exactly. (Read again at the end, a fire due in between was delivered by a replay that
    /// live had left to the next tick: after a crash before that tick, lost.)
    func hold() { live.withLock { if $0.on { $0.held = Date() } } }

    /// Lets the wall clock run again.
    func release() { live.withLock { $0.held = nil } }

    /// Moves the manual clock forward (replay, stream mode).
    func advance(to date: Date) { manual.advance(to: date) }

    /// From now on, the wall clock (after a replay, in wall mode).
    func goLive() { live.withLock { $0.on = true } }

    func sleep(until deadline: Date) async throws {
        if isLive { try await WallClock().sleep(until: deadline) } else { try await manual.sleep(until: deadline) }
    }
}
