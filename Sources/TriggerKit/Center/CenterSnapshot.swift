import Foundation

/// Everything a ``TriggerCenter`` knows, as one value: what a service saves to restart where
/// it stopped (`StateStore.saveCenter(_:)` keeps it in the SQLite state file). A center
/// restored from it delivers exactly what the original would have delivered from then on.
public struct CenterSnapshot: Sendable, Codable {
    /// The snapshot's format; a newer one is refused by ``TriggerCenter/init(restoring:configuration:clock:)``.
    /// Format 2 stores a delivery whose request is one of ``requests`` (unchanged) by its
    /// position instead of a copy; format 1 snapshots still decode. Format 3 is taken from a
    /// center whose requests were all applied at once (its regions and schedule numbered as
    /// one build numbers them), so a restore applies them at once too; earlier formats are
    /// restored by adding their requests one by one, as before.
    public static let formatVersion = 3
    /// The layout this snapshot was written in (a newer one is refused when restoring).
    public var formatVersion = CenterSnapshot.formatVersion
    /// The requests the center holds (pending ones: a request that finished has left it, and
    /// only its deliveries keep it), in add order, each with its `addedAt`.
    public var requests: [NotificationRequest]
    /// Per-trigger cursors, device states and settings, counters (by position in `requests`).
    @_spi(Engine) public var evaluator: EvaluatorSnapshot
    /// The registered categories (restored as saved: see ``TriggerCenter/init(restoring:configuration:clock:)``).
    public var categories: [NotificationCategory]
    /// The delivered history, device by device (those concerning no device first, then by
    /// device id), each device's in the order its deliveries arrived: the order a restore
    /// appends them in, so that full lists drop the same entries afterwards.
    /// (``TriggerCenter/deliveredNotifications(device:)`` lists them by date.)
    public var delivered: [DeliveredNotification]
    /// The center's counters when the snapshot was taken.
    public var statistics: CenterStatistics
}

extension CenterSnapshot {
    private enum CodingKeys: String, CodingKey {
        case formatVersion, requests, evaluator, categories, delivered, statistics
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try c.decode(Int.self, forKey: .formatVersion)
        // Read for their shape, as the byte form reads them: they were validated when added,
        // and a rule tightened since (a polygon around a pole) must not fail the restore.
        let raw = try c.decode([JSONValue].self, forKey: .requests)
        var requests: [NotificationRequest] = []
        requests.reserveCapacity(raw.count)
        for (i, json) in raw.enumerated() {
            var warnings: [String] = []
            do throws(RequestError) {
                requests.append(try NotificationRequest(decoding: json, warnings: &warnings))
            } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [CodingKeys.requests],
                                                        debugDescription: "request \(i): \(error.description)", underlyingError: error))
            }
        }
        self.requests = requests
        evaluator = try c.decode(EvaluatorSnapshot.self, forKey: .evaluator)
        categories = try c.decode([NotificationCategory].self, forKey: .categories)
        statistics = try c.decode(CenterStatistics.self, forKey: .statistics)
        if formatVersion < 2 {
            delivered = try c.decode([DeliveredNotification].self, forKey: .delivered)
            return
        }
        let stored = try c.decode([Delivery].self, forKey: .delivered)
        do throws(SnapshotError) {
            delivered = try Self.delivered(from: stored, requests: requests)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .delivered, in: c, debugDescription: error.reason)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // Its own format (what a restore must do with it), at least 2 (the deliveries'
        // form written below).
        try c.encode(Swift.max(2, formatVersion), forKey: .formatVersion)
        try c.encode(requests, forKey: .requests)
        try c.encode(evaluator, forKey: .evaluator)
        try c.encode(categories, forKey: .categories)
        try c.encode(statistics, forKey: .statistics)
        try c.encode(deliveries(), forKey: .delivered)
    }

    /// One delivery as stored: `requestIndex` is the position in ``requests`` when the
    /// delivered request is that one unchanged (the common case), else `request` is the
    /// request itself. (Format 2 and later; the binary form keeps them the same way.)
    struct Delivery: Codable {
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

    /// The delivered history as stored, each naming its request by position where it can.
    func deliveries() -> [Delivery] {
        zip(delivered, deliveredPositions()).map { d, i in
            Delivery(requestIndex: i, request: i == nil ? d.request : nil, date: d.date, trigger: d.trigger, crossing: d.crossing,
                     device: d.device, region: d.region, presentation: d.presentation, fireCount: d.fireCount,
                     eventId: d.eventId)
        }
    }

    /// Per delivery, the position in ``requests`` of its request when that is the very
    /// request it fired (unchanged since); nil otherwise.
    func deliveredPositions() -> [Int?] {
        guard !delivered.isEmpty else { return [] }
        // Positions of the delivered requests' identifiers only (the history is bounded, the
        // requests may be a million).
        var position: [ExactKey: Int] = [:]
        for d in delivered { position[ExactKey(d.request.identifier)] = -1 }
        for (i, r) in requests.enumerated() {
            let key = ExactKey(r.identifier)
            if position[key] != nil { position[key] = i }
        }
        // Each request compared once, not once per delivery (deliveries of a request share it).
        var same: [ObjectIdentifier: Bool] = [:]
        return delivered.map { d in
            guard let i = position[ExactKey(d.request.identifier)], i >= 0 else { return nil }
            let box = ObjectIdentifier(d.shared)
            if let known = same[box] { return known ? i : nil }
            let equal = requests[i] == d.request
            same[box] = equal
            return equal ? i : nil
        }
    }

    /// The delivered history from its stored form: deliveries of one request share it, as
    /// they did in the center.
    static func delivered(from stored: [Delivery], requests: [NotificationRequest]) throws(SnapshotError) -> [DeliveredNotification] {
        var boxes = RequestBoxes(requests)
        var out: [DeliveredNotification] = []
        out.reserveCapacity(stored.count)
        for d in stored {
            let request: SharedRequest
            if let i = d.requestIndex {
                request = try boxes.box(i)
            } else if let r = d.request {
                request = SharedRequest(r)
            } else {
                throw SnapshotError(reason: "a delivery without its request")
            }
            out.append(DeliveredNotification(shared: request, date: d.date, trigger: d.trigger, crossing: d.crossing, device: d.device,
                                             region: d.region, presentation: d.presentation, fireCount: d.fireCount, id: .text(d.eventId)))
        }
        return out
    }
}

/// The requests of restored deliveries, one box per position in a snapshot's requests, made
/// at its first delivery: deliveries of one request share it, as they did in the center.
struct RequestBoxes {
    private let requests: [NotificationRequest]
    private var made: [Int: SharedRequest] = [:]

    init(_ requests: [NotificationRequest]) { self.requests = requests }

    /// The box of request `i`; a position out of range is a damaged snapshot.
    mutating func box(_ i: Int) throws(SnapshotError) -> SharedRequest {
        if let s = made[i] { return s }
        guard requests.indices.contains(i) else { throw SnapshotError(reason: "a delivery names request \(i), out of range") }
        let s = SharedRequest(requests[i])
        made[i] = s
        return s
    }
}

/// Why a snapshot could not be restored.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the snapshot.
    public var reason: String
    /// "cannot restore the center: " and the reason.
    public var description: String { "cannot restore the center: \(reason)" }
}

extension TriggerCenter {
    /// The center's whole state. O(requests + devices + history).
    public func snapshot() -> CenterSnapshot {
        let e = engine.compacted
        return CenterSnapshot(requests: e.requests, evaluator: e.snapshot(), categories: notificationCategories(),
                              delivered: history.inArrivalOrder(), statistics: statistics)
    }
}

extension LiveEngine {
    /// An engine over `requests` (in add order) in the state `snapshot` recorded.
    ///
    /// A snapshot of format 3 or later numbers regions and time triggers as one build over its
    /// requests does: they are applied at once. An earlier one came from a center that had
    /// applied them one by one: so are they here.
    convenience init(restoring requests: consuming [NotificationRequest], snapshot: EvaluatorSnapshot, format: Int, options: StreamOptions,
                     start: Int64) throws(SnapshotError) {
        // Not started until the snapshot is restored: started here, the migration that applies
        // the requests built their schedule and planned their fences at the clock, and the
        // restore built and planned them all again at the saved start (twice the work: 9 s
        // instead of 4.5 for a few triggers in a calendar Foundation answers slowly, found by
        // `make fuzz`; twice a million requests' schedule at a restart).
        self.init(options: options, start: start, started: false)
        number(restoredDevices: snapshot.devices.map(\.name))
        if format >= 3 {
            record(restored: requests)
        } else {
            for r in requests { add(r, validated: false) }
        }
        do throws(SnapshotRefusal) {
            try current.restore(snapshot)
            // (An earlier format's requests may all have been added in place: no migration.)
            keepsDeviceOrder = false
        } catch {
            switch error {
            case .otherRequests: throw SnapshotError(reason: "its requests do not match its state")
            case .damaged(let why): throw SnapshotError(reason: "damaged state: \(why)")
            }
        }
        // A snapshot of a stream that had not started (none of a center's: it starts at once).
        if current.defaultAddedAt == nil { current.start(defaultAddedAt: start) }
        retireNotPending()
    }
}
