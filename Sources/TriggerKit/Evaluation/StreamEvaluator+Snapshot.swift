import Foundation

/// Everything a ``StreamEvaluator`` has learnt from its input, as plain values: what a
/// durable store saves and restores. Request-dependent parts refer to slots, so a snapshot
/// is only valid with the same requests (``requestsFingerprint`` guards that).
@_spi(Engine) public struct EvaluatorSnapshot: Sendable, Hashable, Codable {
    /// ``StreamEvaluator/requestsFingerprint`` of the requests it was taken with.
    public var requestsFingerprint: UInt64
    /// The default `addedAt` once the stream started; `nil` before the first line.
    public var defaultAddedAt: Int64?
    public var streamTime: Int64?
    public var stats: StreamStats
    /// The next queued fire of each time-based trigger (slot, date).
    public var queuedFires: [QueuedFire]
    /// Location slots of device-scoped one-shots that already fired.
    public var doneLocationSlots: [Int32]
    /// Every device's state (or only the changed ones, see ``StreamEvaluator/takeChangedDevices()``).
    public var devices: [DeviceSnapshot]
    /// The fences with rules (whole; `nil` when no request has rules).
    public var fences: FenceSnapshot?

    package init(requestsFingerprint: UInt64, defaultAddedAt: Int64?, streamTime: Int64?, stats: StreamStats,
                 queuedFires: [QueuedFire], doneLocationSlots: [Int32], devices: [DeviceSnapshot], fences: FenceSnapshot? = nil) {
        self.requestsFingerprint = requestsFingerprint
        self.defaultAddedAt = defaultAddedAt
        self.streamTime = streamTime
        self.stats = stats
        self.queuedFires = queuedFires
        self.doneLocationSlots = doneLocationSlots
        self.devices = devices
        self.fences = fences
    }

    /// One schedule cursor.
    public struct QueuedFire: Sendable, Hashable, Codable {
        public var slot: Int32
        public var date: Int64
        public init(slot: Int32, date: Int64) {
            self.slot = slot
            self.date = date
        }
    }
}

/// One device's state as plain values.
@_spi(Engine) public struct DeviceSnapshot: Sendable, Hashable, Codable {
    public var name: String
    public var lastAccepted: Int64
    public var lastUsed: Int64
    /// Location slots the device is inside.
    public var inside: [Int32]
    /// Pending dwell crossings: slot and the time of their first fix on the new side.
    public var pendingSlots: [Int32]
    public var pendingSince: [Int64]
    /// Shared one-shot location slots that already fired for this device.
    public var firedOnce: [Int32]
    /// The device's notification settings.
    public var settings: NotificationSettings?

    public init(name: String, lastAccepted: Int64, lastUsed: Int64, inside: [Int32], pendingSlots: [Int32],
                pendingSince: [Int64], firedOnce: [Int32], settings: NotificationSettings?) {
        self.name = name
        self.lastAccepted = lastAccepted
        self.lastUsed = lastUsed
        self.inside = inside
        self.pendingSlots = pendingSlots
        self.pendingSince = pendingSince
        self.firedOnce = firedOnce
        self.settings = settings
    }
}


@_spi(Engine) extension StreamEvaluator {
    /// A stable hash of the requests (their contract JSON, in order): a snapshot taken with
    /// other requests must not be restored. FNV-1a over the canonical JSON bytes.
    ///
    /// - Complexity: O(requests) the first time, then O(requests added since): the hash is
    ///   kept and continued (1,000,000 requests took 2.5 s for each use).
    public var requestsFingerprint: UInt64 {
        var cache = fingerprintCache
        if cache.count < requests.count {
            cache.hash = Self.fingerprint(requests[cache.count...], continuing: cache.hash)
            cache.count = requests.count
            fingerprintCache = cache
        }
        return cache.hash
    }

    static let fingerprintSeed: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a over each request's contract JSON and a newline, continuing `hash`, a window
    /// of ``renderWindow`` requests at a time (the window's bytes are all that is held).
    static func fingerprint(_ rs: ArraySlice<NotificationRequest>, continuing hash: UInt64) -> UInt64 {
        rendering(rs, continuing: hash) { _, _ in }
    }

    /// The requests' contract JSON a window of ``renderWindow`` at a time, each window handed
    /// to `body` (with the index of its first request) after its bytes were hashed into the
    /// fingerprint `hash` continues; returns the hash. Two windows' bytes are held at a time:
    /// the next is rendered (on the other cores) while this one is hashed, one byte after the
    /// other as FNV-1a must (hashing was as long as rendering).
    private static func rendering<E: Error>(_ rs: ArraySlice<NotificationRequest>, continuing hash: UInt64,
                                            _ body: (_ first: Int, _ json: [[UInt8]]) throws(E) -> Void) throws(E) -> UInt64 {
        var h = hash
        var start = rs.startIndex
        var window = renderedJSON(rs[start..<Swift.min(rs.endIndex, start + renderWindow)])
        while start < rs.endIndex {
            let end = start + window.count
            let ahead = RenderAhead()
            let group = DispatchGroup()
            if end < rs.endIndex {
                let next = rs[end..<Swift.min(rs.endIndex, end + renderWindow)]
                DispatchQueue.global().async(group: group) { ahead.window = renderedJSON(next) }
            }
            for bytes in window {
                for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
                h = (h ^ 0x0A) &* 0x0000_0100_0000_01B3
            }
            try body(start, window)
            group.wait()
            window = ahead.window
            start = end
        }
        return h
    }

    /// The next window, rendered by another thread (read after it finished).
    private final class RenderAhead: @unchecked Sendable {
        var window: [[UInt8]] = []
    }

    /// Every request's contract JSON, in order, handed to `body` a window of
    /// ``renderWindow`` requests at a time (with the index of the window's first request);
    /// returns the requests' fingerprint, computed from the same bytes and kept, so that
    /// ``requestsFingerprint`` costs nothing afterwards. Storing a new request set needs both
    /// its rows and its fingerprint: this renders each request once for the two (rendering is
    /// nearly all of either's cost).
    ///
    /// - Complexity: O(requests), on every core; holds one window's bytes at a time.
    package func renderRequests<E: Error>(_ body: (_ first: Int, _ json: [[UInt8]]) throws(E) -> Void) throws(E) -> UInt64 {
        let h = try Self.rendering(requests[...], continuing: Self.fingerprintSeed, body)
        fingerprintCache = (requests.count, h)
        return h
    }

    /// Requests per call of ``renderedJSON(_:)`` for a caller going through many.
    package static let renderWindow = 8192

    /// Each request's contract JSON (what ``NotificationRequest/json`` writes), in order:
    /// rendered on every core when there are enough of them (nearly all the cost of hashing
    /// or storing a large request set).
    package static func renderedJSON(_ rs: ArraySlice<NotificationRequest>) -> [[UInt8]] {
        let n = rs.count, first = rs.startIndex
        @Sendable func render(_ i: Int) -> [UInt8] {
            var w = JSONWriter()
            w.request(rs[first + i])
            return w.bytes
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores > 1 && n >= 512 else { return (0..<n).map(render) }
        var rendered = [[UInt8]](repeating: [], count: n)
        rendered.withUnsafeMutableBufferPointer { out in
            // Each index is written by exactly one iteration.
            nonisolated(unsafe) let out = out
            let parts = 4 * cores
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                for i in n * p / parts..<n * (p + 1) / parts { out[i] = render(i) }
            }
        }
        return rendered
    }

    func snapshot(ofDevice i: Int) -> DeviceSnapshot {
        let s = devices[i]
        return DeviceSnapshot(name: deviceNames[i], lastAccepted: s.lastAccepted, lastUsed: s.lastUsed, inside: s.inside,
                              pendingSlots: s.pending.map(\.slot), pendingSince: s.pending.map(\.since), firedOnce: s.firedOnce,
                              settings: settings[i])
    }

    /// The whole state. O(devices + triggers + what is inside or pending).
    public func snapshot() -> EvaluatorSnapshot {
        EvaluatorSnapshot(
            requestsFingerprint: requestsFingerprint, defaultAddedAt: defaultAddedAt, streamTime: streamTime, stats: stats,
            queuedFires: (schedule?.queuedFires ?? []).map { .init(slot: $0.slot, date: $0.date) },
            doneLocationSlots: locations.indices.filter { locations[$0].done && !refusedSlots.contains(Int32($0)) }.map { Int32($0) },
            devices: devices.indices.map { snapshot(ofDevice: $0) }, fences: fenceSnapshot())
    }

    /// The fences with rules' state (`nil` when there are none).
    public func fenceSnapshot() -> FenceSnapshot? {
        guard let g = guarded, !g.fences.isEmpty else { return nil }
        return g.snapshot(deviceNames: deviceNames)
    }

    /// The states of devices changed since the last call (all devices on the first call),
    /// for incremental saving. O(changed devices).
    public func takeChangedDevices() -> [DeviceSnapshot] {
        let out = changedDevices.map { snapshot(ofDevice: Int($0)) }
        for i in changedDevices { isChanged[Int(i)] = false }
        changedDevices.removeAll(keepingCapacity: true)
        return out
    }

    /// Restores a snapshot taken with the same requests. Devices in the snapshot replace
    /// the evaluator's; the rest of the state is replaced wholesale.
    ///
    /// - Throws: ``SnapshotRefusal/otherRequests`` for other requests' snapshot,
    ///   ``SnapshotRefusal/damaged(reason:)`` for one holding a value no evaluator over these
    ///   requests writes (a date outside years 1-9999, a slot or fence these requests do not
    ///   have, a count below 0 or past 2^53, a coordinate off the globe): nothing is restored then.
    public func restore(_ snap: EvaluatorSnapshot) throws(SnapshotRefusal) {
        guard snap.requestsFingerprint == requestsFingerprint else { throw .otherRequests }
        if let why = damage(in: snap) { throw .damaged(reason: why) }
        stats = snap.stats
        streamTime = snap.streamTime
        if let added = snap.defaultAddedAt {
            start(defaultAddedAt: added)
            var s = schedule
            s?.restoreQueue(snap.queuedFires.map { ($0.slot, $0.date) })
            schedule = s
        }
        for slot in snap.doneLocationSlots { locations[Int(slot)].done = true }
        for d in snap.devices {
            let i = Int(device(named: d.name))
            // Sorted, each slot once, as the steps keep them (a damaged snapshot may not).
            func sortedOnce(_ xs: [Int32]) -> [Int32] { Array(Set(xs)).sorted() }
            var pending: [PendingCrossing] = []
            for (slot, since) in zip(d.pendingSlots, d.pendingSince).sorted(by: { $0.0 < $1.0 }) where pending.last?.slot != slot {
                pending.append(PendingCrossing(slot: slot, since: since))
            }
            devices[i] = DeviceState(lastAccepted: d.lastAccepted, lastUsed: d.lastUsed, inside: sortedOnce(d.inside),
                                     pending: pending, firedOnce: sortedOnce(d.firedOnce))
            if let s = d.settings { settings[i] = s }
        }
        if let f = snap.fences { guarded?.restore(f, device: { self.device(named: $0) }, map: { $0 }) }
        // Devices the saved fences had not seen (none with rules was live then) as rebuilds
        // leave them: last seen at their last used fix.
        if snap.defaultAddedAt != nil { guarded?.seedLastSeen(devices.map(\.lastUsed)) }
        for i in changedDevices { isChanged[Int(i)] = false }
        changedDevices.removeAll()
    }
}
