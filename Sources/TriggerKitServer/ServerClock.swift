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
    private let live = Mutex(false)

    init(start: Date) { manual = ManualClock(start) }

    var now: Date { live.withLock { $0 } ? Date() : manual.now }

    var isLive: Bool { live.withLock { $0 } }

    /// Moves the manual clock forward (replay, stream mode).
    func advance(to date: Date) { manual.advance(to: date) }

    /// From now on, the wall clock (after a replay, in wall mode).
    func goLive() { live.withLock { $0 = true } }

    func sleep(until deadline: Date) async throws {
        if isLive { try await WallClock().sleep(until: deadline) } else { try await manual.sleep(until: deadline) }
    }
}
