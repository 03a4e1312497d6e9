import Foundation

/// Everything a ``TriggerCenter`` knows, as one value: what a service saves to restart where
/// it stopped (`StateStore.saveCenter(_:)` keeps it in the SQLite state file). A center
/// restored from it delivers exactly what the original would have delivered from then on.
public struct CenterSnapshot: Sendable, Codable {
    /// The snapshot's format; a newer one is refused by ``TriggerCenter/init(restoring:configuration:clock:)``.
    /// Format 2 stores a delivery whose request is one of ``requests`` (unchanged) by its
    /// position instead of a copy; format 1 snapshots still decode.
    public static let formatVersion = 2
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

extension CenterSnapshot {
    private enum CodingKeys: String, CodingKey {
        case formatVersion, requests, evaluator, categories, delivered, statistics
    }

    /// One delivery in format 2: `request` is the position in ``requests`` when the delivered
    /// request is that one unchanged (the common case), else the request itself.
    private struct Delivery: Codable {
        var requestIndex: Int?
        var request: NotificationRequest?
        var date: Date
        var trigger: TriggerKind
        var crossing: Crossing?
        var device: String?
        var region: String?
        var presentation: Presentation
        var fireCount: Int
        var eventId: String
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try c.decode(Int.self, forKey: .formatVersion)
        let requests = try c.decode([NotificationRequest].self, forKey: .requests)
        self.requests = requests
        evaluator = try c.decode(EvaluatorSnapshot.self, forKey: .evaluator)
        categories = try c.decode([NotificationCategory].self, forKey: .categories)
        statistics = try c.decode(CenterStatistics.self, forKey: .statistics)
        if formatVersion < 2 {
            delivered = try c.decode([DeliveredNotification].self, forKey: .delivered)
            return
        }
        // Deliveries of one request share it, as they did in the center.
        var shared: [Int: SharedRequest] = [:]
        delivered = try c.decode([Delivery].self, forKey: .delivered).map { d in
            let request: SharedRequest
            if let i = d.requestIndex {
                guard requests.indices.contains(i) else {
                    throw DecodingError.dataCorruptedError(forKey: .delivered, in: c, debugDescription: "request index \(i) out of range")
                }
                if let s = shared[i] { request = s } else {
                    request = SharedRequest(requests[i])
                    shared[i] = request
                }
            } else if let r = d.request {
                request = SharedRequest(r)
            } else {
                throw DecodingError.dataCorruptedError(forKey: .delivered, in: c, debugDescription: "a delivery without its request")
            }
            return DeliveredNotification(shared: request, date: d.date, trigger: d.trigger, crossing: d.crossing, device: d.device,
                                         region: d.region, presentation: d.presentation, fireCount: d.fireCount, id: .text(d.eventId))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.formatVersion, forKey: .formatVersion)
        try c.encode(requests, forKey: .requests)
        try c.encode(evaluator, forKey: .evaluator)
        try c.encode(categories, forKey: .categories)
        try c.encode(statistics, forKey: .statistics)
        var position: [ExactKey: Int] = [:]
        for (i, r) in requests.enumerated() { position[ExactKey(r.identifier)] = i }
        try c.encode(delivered.map { d in
            let r = d.request
            let i = position[ExactKey(r.identifier)].flatMap { requests[$0] == r ? $0 : nil }
            return Delivery(requestIndex: i, request: i == nil ? r : nil, date: d.date, trigger: d.trigger, crossing: d.crossing,
                            device: d.device, region: d.region, presentation: d.presentation, fireCount: d.fireCount,
                            eventId: d.eventId)
        }, forKey: .delivered)
    }
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
