import Foundation

/// Everything a ``TriggerCenter`` knows, as one value: what a service saves to restart where
/// it stopped (`StateStore.saveCenter(_:)` keeps it in the SQLite state file). A center
/// restored from it delivers exactly what the original would have delivered from then on.
public struct CenterSnapshot: Sendable, Codable {
    /// The snapshot's format; a newer one is refused by ``TriggerCenter/init(restoring:configuration:clock:)``.
    public static let formatVersion = 1
    public var formatVersion = CenterSnapshot.formatVersion
    /// Pending and finished requests, in add order, each with its `addedAt`.
    public var requests: [NotificationRequest]
    /// Per-trigger cursors, device states and settings, counters (by position in `requests`).
    @_spi(Engine) public var evaluator: EvaluatorSnapshot
    public var categories: [NotificationCategory]
    /// The delivered history.
    public var delivered: [DeliveredNotification]
    public var statistics: CenterStatistics
}

/// Why a snapshot could not be restored.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public var description: String { "cannot restore the center: \(reason)" }
}

extension TriggerCenter {
    /// The center's whole state. O(requests + devices + history).
    public func snapshot() -> CenterSnapshot {
        let e = engine.compacted
        return CenterSnapshot(requests: e.requests, evaluator: e.snapshot(), categories: notificationCategories(),
                              delivered: deliveredNotifications(), statistics: statistics)
    }
}

extension LiveEngine {
    /// An engine over `requests` (in add order) in the state `snapshot` recorded.
    convenience init(restoring requests: [NotificationRequest], snapshot: EvaluatorSnapshot, options: StreamOptions, start: Int64) throws(SnapshotError) {
        self.init(options: options, start: start)
        for r in requests { add(r) }
        do throws(SnapshotMismatch) {
            try current.restore(snapshot)
        } catch {
            throw SnapshotError(reason: "its requests do not match its state")
        }
    }
}
