import Foundation

/// The stream evaluator: feeds on fixes and clock lines, fires calendar, time-interval,
/// immediate and location triggers in the contract's order.
///
/// Step per line: advance stream time and pop every due time fire from the schedule index;
/// then, for a fix, ask the region index which regions can contain it and step that
/// device's state. Not thread-safe: use from one task (``NotificationCenter`` wraps it).
///
/// Its mutable storage is marked `@exclusivity(unchecked)`: the evaluator is used from one
/// task and never hands out overlapping accesses, and the dynamic checks cost about 9% of a
/// fix's time.
@_spi(Engine) public final class StreamEvaluator {
    /// The requests, as given.
    public internal(set) var requests: [NotificationRequest]
    /// (Its floating zone changes with ``setFloatingTimeZone(_:)``; the rest never does. Read
    /// at every fix: no dynamic exclusivity check, as the other per-fix state.)
    @exclusivity(unchecked) public private(set) var options: StreamOptions
    @exclusivity(unchecked) public internal(set) var stats = StreamStats()
    /// Largest `t` read so far.
    @exclusivity(unchecked) public internal(set) var streamTime: Int64?
    /// Regions that the geofence engine refused (bad polygons), by request index.
    public let refusedRegions: [(request: Int32, reason: String)]

    @exclusivity(unchecked) package var schedule: FireSchedule?
    /// The initial requests' positions in identifier order, computed once for the region
    /// index's order and kept for the schedule built at the first line; nil after that.
    @exclusivity(unchecked) var initialRanks: [Int32]?
    /// The default `addedAt`, known from the first line on.
    @exclusivity(unchecked) public internal(set) var defaultAddedAt: Int64?
    /// Location slots refused by the geofence engine.
    let refusedSlots: Set<Int32>
    /// Devices whose state changed since the last ``takeChangedDevices()``.
    @exclusivity(unchecked) var changedDevices: [Int32] = []
    @exclusivity(unchecked) var isChanged: [Bool] = []
    let regionIndex: RegionIndex
    @exclusivity(unchecked) var locations: [LocationEntry]
    /// Devices by exact name (contract 5: ids are exact scalar sequences, not canonically
    /// equivalent strings).
    @exclusivity(unchecked) var deviceIndex: [ExactKey: Int32] = [:]
    /// The same devices by UTF-8 bytes, for ``process(lineBytes:into:)`` (a cache in front of
    /// ``deviceIndex``: every device is in both).
    @exclusivity(unchecked) var deviceBytesIndex = DeviceInterner()
    /// The line reader's state between lines (the day number of the last date).
    @exclusivity(unchecked) var lineCache = StreamLineParser.Cache()
    /// Device names by index.
    @exclusivity(unchecked) public private(set) var deviceNames: [String] = []
    @exclusivity(unchecked) var devices: [DeviceState] = []
    /// Each device's notification settings, by device index.
    @exclusivity(unchecked) var settings: [NotificationSettings] = []
    let dwellMillis: Int64
    /// ``StreamOptions/maxClockJump`` in milliseconds; `Int64.max` = no limit.
    let maxClockJumpMillis: Int64
    /// ``StreamOptions/catchUpWindow`` (or its default) in milliseconds.
    let catchUpWindowMillis: Int64
    /// What each request's content asks for (bit 0 alert, 1 sound, 2 badge): deciding a
    /// fire's presentation from these avoids copying the content (and its retains) per fire.
    var contentWants: [UInt8]
    /// Every location request's `addedAt`, sorted (set on the first line): a fix may skip the
    /// region step only if no request was added since the device's last used fix.
    @exclusivity(unchecked) var sortedAddedAts: [Int64] = []
    /// Bumped by every region appended in place: a device's neighbourhood built under an
    /// earlier epoch is trusted again only once its tile is found still held by the cache
    /// (each append drops the tiles it overlaps; see ``nearIsCurrent(_:)``).
    @exclusivity(unchecked) var regionEpoch: UInt32 = 0
    /// The latest `addedAt` of a location request appended in place (not in
    /// ``sortedAddedAts``): a device whose last used fix is older skips no fix.
    @exclusivity(unchecked) var appendedLocationAddedAt: Int64 = .min
    /// Location slots from the build; slots from here on were appended in place (their
    /// fires in one step are put in identifier order).
    @exclusivity(unchecked) var builtLocationCount = 0
    /// Whether devices keep a ``Neighbourhood`` (fixes within it test only its open regions,
    /// and skip the region step when those decide as before); tests turn it off to prove
    /// that changes nothing (every fix then queries the index and steps).
    @exclusivity(unchecked) var skipsStableFixes = true
    /// Fixes that skipped the region step (for tests and benchmarks).
    @exclusivity(unchecked) public internal(set) var stableSkips = 0
    /// Slots held in all devices' neighbourhoods, and its bound: past it every neighbourhood
    /// is dropped (8 bytes a slot at most: 16M slots, about 128 MB) and counted in
    /// ``neighbourhoodReleases``.
    @exclusivity(unchecked) var neighbourhoodSlots = 0
    @exclusivity(unchecked) var neighbourhoodSlotBudget = 16 << 20
    @exclusivity(unchecked) var neighbourhoodReleases = 0
    /// The tiles this evaluator's devices are in (``TileCache``, bounded: 4M slots, 32 MB at
    /// most); a region appended in place drops those it overlaps.
    @exclusivity(unchecked) var tileCache = TileCache(budget: 4 << 20)

    /// Output bytes cached per request and per device (filled on first use; see
    /// StreamEvaluator+Output.swift).
    @exclusivity(unchecked) var eventTexts = EventTexts()
    /// Each device's name as a JSON string literal, one after the other: device d's bytes are
    /// `deviceText[deviceEnds[d] ..< deviceEnds[d + 1]]` (one buffer: no retain per event).
    @exclusivity(unchecked) var deviceText: [UInt8] = []
    @exclusivity(unchecked) var deviceEnds: [Int32] = [0]
    /// Each request as the center's deliveries share it (filled on first delivery).
    @exclusivity(unchecked) var sharedRequests: [SharedRequest?] = []
    /// ``EventID/deviceHash(_:)`` per device, filled with ``deviceText``.
    @exclusivity(unchecked) var deviceHashes: [UInt128] = []
    /// The last event's second and its text.
    @exclusivity(unchecked) var eventSecond = EventSecond()

    /// Location requests with ``FenceRules`` and the expiry clock; nil when no request has
    /// rules or an `expiresAt` (then nothing of it costs anything).
    @exclusivity(unchecked) var guarded: GuardedFences?
    /// Where a long catch-up's events go as they are made (``emitScheduleFires(upTo:into:sink:)``):
    /// `run` writes them out. Nil: a step's events are all returned together.
    @exclusivity(unchecked) package var catchUpSink: CatchUpSink?
    /// Fires a catch-up hands to ``catchUpSink`` at a time (4,096: about 200 KB of events, and
    /// as much of due fires): the most a step holds, plus one date's fires and, once, one
    /// coalesced fire per trigger.
    @exclusivity(unchecked) package var catchUpChunk = 4096
    /// Whether one-shots that fire are listed in ``finishedRequests`` (the live center drops
    /// them; `run` keeps its requests, so it leaves this off and the list empty).
    @exclusivity(unchecked) package var recordsFinished = false
    /// Requests that finished since the center last took them: time triggers at their last
    /// fire (a one-shot's, a repeating one's that ran out; delivered or suppressed) and
    /// device-scoped one-shot regions at theirs.
    @exclusivity(unchecked) package var finishedRequests: [Int32] = []
    @exclusivity(unchecked) var guardedEvents: [FiredEvent] = []

    // Scratch buffers reused across fixes so the hot path does not allocate.
    @exclusivity(unchecked) var hits: [RegionHit] = []
    @exclusivity(unchecked) var due: [FireSchedule.DueFire] = []
    /// A control line's change, waiting for ``takeControl()``.
    @exclusivity(unchecked) var pendingControl: ControlLine?
    /// Whether a control line is waiting for ``takeControl()`` (a cheap test for every line).
    @exclusivity(unchecked) public internal(set) var hasPendingControl = false
    /// Location slot per request index, built on the first in-place removal.
    @exclusivity(unchecked) var locationSlotIndex: [Int32] = []
    @exclusivity(unchecked) var scratchInside: [Int32] = []
    @exclusivity(unchecked) var scratchPending: [PendingCrossing] = []
    /// A fix's changes from its device's last one (``Neighbourhood/advance(with:latitude:longitude:margin:changes:)``).
    @exclusivity(unchecked) var scratchChanges: [RegionHit] = []
    /// The current line's geometry when a ``FixLookahead`` decided it (see
    /// ``process(lineBytes:scanned:geometry:hits:into:)``), and the buffer its hits are in.
    @exclusivity(unchecked) var lookaheadGeometry: FixGeometry?
    @exclusivity(unchecked) var lookaheadHits = UnsafeBufferPointer<RegionHit>(start: nil, count: 0)
    /// Where the current line's answer for fences with rules is in the lookahead's move buffer
    /// (-1: none), and the buffer.
    @exclusivity(unchecked) var lookaheadFenceStart: Int32 = -1
    @exclusivity(unchecked) var lookaheadSequence: Int64 = 0
    @exclusivity(unchecked) var lookaheadMoves = UnsafeBufferPointer<FenceMove>(start: nil, count: 0)
    /// This evaluator's device for each device number of the ``FixLookahead`` (-1: not seen
    /// yet): one entry per device the lookahead saw.
    @exclusivity(unchecked) var lookaheadDevices: [Int32] = []
    /// ``requestsFingerprint`` over the first `count` requests (requests are only appended:
    /// the hash goes on from there), so that it is computed once, not at every use.
    @exclusivity(unchecked) var fingerprintCache = (count: 0, hash: StreamEvaluator.fingerprintSeed)

    /// Builds the evaluator: the region index over every location request, the schedule on
    /// the first line (when the default `addedAt` becomes known).
    ///
    /// `polygonsValidated`: every request passed the one validator (a ``RequestSet``'s do), so
    /// the region index does not check its polygons' validity again.
    ///
    /// `devices`: devices numbered first, in this order, before those the device-scoped
    /// requests name (a restored center's, in its snapshot's order: see
    /// ``migrated(to:fresh:polygonsValidated:keepingDeviceOrder:)``).
    public init(requests: [NotificationRequest], options: StreamOptions = .init(), polygonsValidated: Bool = false,
                devices: [String] = []) {
        self.requests = requests
        self.options = options
        self.dwellMillis = options.dwell.isFinite && options.dwell > 0 ? DurationMillis.atLeast(Swift.min(options.dwell, 1e12)) : 0
        self.maxClockJumpMillis = ClockJumpRule.limitMillis(options.maxClockJump)
        self.catchUpWindowMillis = Self.catchUpWindowMillis(options)
        // The passes over every request run in chunks on every core (a million requests:
        // each pass took tens of milliseconds on one core while the other waited).
        self.contentWants = ParallelChunks.map(requests.count) { range in range.map { Self.contentWant(requests[$0].content) } }
        let identifiers = IdentifierOrder(requests)
        self.initialRanks = identifiers.ranks
        let byRank = identifiers.order
        let (flags, built, regions) = Self.locationSlots(requests, byRank: byRank)
        var entries = built
        let index = RegionIndex(count: regions.count, maximumMargin: options.margin, validated: polygonsValidated) { regions[$0] }
        self.regionIndex = index
        let guarded = GuardedFences(requests: requests, order: byRank.map(Int.init), margin: options.margin, floatingTimeZone: options.floatingTimeZone)
        self.guarded = guarded
        self.refusedRegions = (index.invalid.map { (entries[Int($0.slot)].request, $0.reason) }
            + (guarded?.regions.invalid.map { (guarded?.fences[Int($0.slot)].request ?? 0, $0.reason) } ?? []))
            .sorted { $0.request < $1.request }
        for bad in index.invalid { entries[Int(bad.slot)].done = true }
        self.refusedSlots = Set(index.invalid.map(\.slot))
        self.locations = entries
        self.builtLocationCount = entries.count
        for name in devices { _ = device(named: name) }
        for s in locations.indices where LocationFlags(rawValue: flags[Int(locations[s].request)]).contains(.scoped) {
            if let d = requests[Int(locations[s].request)].device { locations[s].device = device(named: d) }
        }
    }

    /// What a request's content asks to present (``contentWants``): 1 an alert (a title,
    /// subtitle or body), 2 a sound, 4 a badge.
    @inline(__always)
    static func contentWant(_ c: NotificationContent) -> UInt8 {
        (c.title != nil || c.subtitle != nil || c.body != nil ? 1 : 0) | (c.sound != nil ? 2 : 0) | (c.badge != nil ? 4 : 0)
    }

    /// How many times the stream was started (its schedule built, its fences planned): once
    /// per evaluator, also when it is restored from a snapshot (a restore did it twice).
    package internal(set) var starts = 0

    /// Whether naming this device would pass a bound of `limit` devices kept: the bound is
    /// reached and the device is not one of them (``StreamOptions/maxDevices``,
    /// ``CenterConfiguration/maxDevices``). Hashes the name only once the bound is reached.
    /// The devices kept.
    package var deviceCount: Int { deviceNames.count }

    /// The refusal of a request naming `device` when `limit` devices are kept and `device` is
    /// not one of them (`option` names the limit); nil when it may be added. (A device named
    /// by a request is kept once the request fires: the devices are at most the limit plus
    /// the requests naming new ones, which their own bound holds.)
    package func newDeviceRefusal(_ device: String, limit: Int, option: String) -> RequestError? {
        guard isNewDevice(device, pastLimit: limit) else { return nil }
        return RequestError(.tooManyDevices, "device \"\(DiagnosticText.clipped(device))\" is new and \(deviceCount) device\(deviceCount == 1 ? " is" : "s are") kept, past the limit of \(limit) (\(option))", field: "device")
    }

    package func isNewDevice(_ name: String, pastLimit limit: Int) -> Bool {
        deviceNames.count >= limit && deviceIndex[ExactKey(name)] == nil
    }

    /// ``device(named:)`` for the device of a time fire: one first seen here is saved with the
    /// next batch (``takeChangedDevices()``), so that a resumed `run --state` keeps it as the
    /// uninterrupted run does (it counts towards ``StreamOptions/maxDevices``; a resumed run
    /// that had lost it took a device the uninterrupted one refused, found by a helper).
    func firedDevice(named name: String) -> Int32 {
        let known = deviceNames.count
        let d = device(named: name)
        if deviceNames.count > known { markChanged(d) }
        return d
    }

    /// Index of a device, interned on first sight.
    func device(named name: String) -> Int32 {
        if let i = deviceIndex[ExactKey(name)] { return i }
        let i = Int32(deviceNames.count)
        deviceIndex[ExactKey(name)] = i
        deviceNames.append(name)
        deviceBytesIndex.append(name)
        devices.append(DeviceState())
        settings.append(options.deviceSettings[name] ?? options.defaultSettings)
        isChanged.append(false)
        return i
    }

    /// Counts a line that could not be read (the caller reports it).
    public func recordMalformedLine() {
        stats.lines += 1
        stats.errors += 1
    }

    /// Changes a device's notification settings from now on.
    public func setSettings(_ s: NotificationSettings, forDevice name: String) {
        let d = device(named: name)
        settings[Int(d)] = s
        markChanged(d)
    }

    /// A device's current notification settings.
    public func settings(forDevice name: String) -> NotificationSettings {
        deviceIndex[ExactKey(name)].map { settings[Int($0)] } ?? options.deviceSettings[name] ?? options.defaultSettings
    }

    /// Records that a device's state changed (for incremental saving).
    @inline(__always)
    func markChanged(_ d: Int32) {
        if !isChanged[Int(d)] {
            isChanged[Int(d)] = true
            changedDevices.append(d)
        }
    }

    /// Changes the zone floating calendar triggers follow; their next fires are re-planned
    /// from the current stream time, and the requests added, migrated or re-planned after
    /// this follow it too (``options``; it was only the queued fires: a later request, or any
    /// after the next migration, went back to the old zone).
    public func setFloatingTimeZone(_ zone: TimeZone) {
        options.floatingTimeZone = zone
        guarded?.setFloatingTimeZone(zone, requests: requests, now: streamTime)
        guard var s = schedule else { return }
        s.setFloatingTimeZone(zone, now: streamTime ?? .min, requests: requests)
        schedule = s
    }

    // MARK: naming events

    /// The identifier of an event's request.
    public func identifier(of e: FiredEvent) -> String { requests[Int(e.request)].identifier }

    /// The device name of an event, if any.
    public func deviceName(of e: FiredEvent) -> String? { e.device >= 0 ? deviceNames[Int(e.device)] : nil }

    /// The region identifier of a location event.
    public func regionIdentifier(of e: FiredEvent) -> String? {
        if case .location(let t) = requests[Int(e.request)].trigger { return t.region.identifier }
        return nil
    }


}

/// Takes a catch-up's events so far (``StreamEvaluator/catchUpSink``), from the evaluator
/// making them; what it leaves in the list is returned with the step's other events.
package typealias CatchUpSink = (StreamEvaluator, inout [FiredEvent]) -> Void
