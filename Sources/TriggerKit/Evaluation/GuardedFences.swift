import Foundation
import HeapModule

/// The location requests whose trigger has ``FenceRules`` (dwell, accuracy, window,
/// crossings), and the clock of every request with an `expiresAt`. They are followed here,
/// on their own path, so that a run without rules pays nothing for them (the evaluator holds
/// no ``GuardedFences`` then).
///
/// Per (device, fence) a ``Link`` is kept only while it says something: the device is
/// inside, a dwell is pending or has fired for this stay, or a shared one-shot fired for
/// the device. A device without a link is outside. Memory is therefore proportional to what
/// is inside or pending, as in the main path, except for fences with an outside dwell,
/// which keep a link per device that has been seen outside them (bounded by devices x such
/// fences).
///
/// A fix looks up the fences near it in a grid (``FenceGrid``), plus the ones it has links
/// to and, while a device has not been seen since they were added, those with an outside
/// dwell; a path between two fixes looks up the crossing fences of the cells it meets.
final class GuardedFences {
    struct Fence {
        var request: Int32
        var notifyOnEntry: Bool
        var notifyOnExit: Bool
        var repeats: Bool
        var dwell: FenceSide?
        var dwellMillis: Int64 = 0
        /// Accuracy-aware when set (metres).
        var maximumAccuracy: Double?
        var crossings: Bool
        /// Whether the fence has a window (its plan is in ``windows``, so that this struct
        /// holds no references and copying it costs no reference counting).
        var hasWindow = false
        var enterAtOpening = false
        var exitAtClosing = false
        /// Whether the window is open now (always, without one), and since when.
        var armed = true
        var armedSince: Int64 = .min
        /// Circle: centre and radius. Polygon: `radius` < 0 and its rings in ``rings``.
        var latitude: Double
        var longitude: Double
        var radius: Double
        /// Bounding box in degrees, widened by the largest margin a decision can use.
        var minLatitude: Double
        var maxLatitude: Double
        var minLongitude: Double
        var maxLongitude: Double
    }

    /// What the fix loop reads of each candidate fence before its quiet skip (most read no
    /// more): 24 bytes per fence in an array of their own, which stays in cache where the
    /// fences' 120-byte records do not (10,000 fences: 240 KB against 1.2 MB). `done`,
    /// `device` and `addedAt` live only here; the others are copies of the fence's, which never
    /// change.
    struct Gate {
        var addedAt: Int64 = .min
        /// The fence's `maximumAccuracy`; NaN without one.
        var accuracyLimit: Double
        /// Device index the request is scoped to; -1 when shared.
        var device: Int32 = -1
        /// A device-scoped one-shot that fired, an expired or removed request.
        var done = false
        var repeats: Bool
        /// A circle (`radius` >= 0), not a polygon.
        var circle: Bool
    }

    /// What one device is to one fence (kept only when not "outside, nothing pending").
    struct Link: Hashable {
        var fence: Int32
        var inside: Bool
        /// When the device was first seen on its current side.
        var since: Int64
        /// Dwell: its due date; ``noDwell`` none pending; ``dwellFired`` fired for this stay.
        var due: Int64
        /// A shared one-shot that fired for this device.
        var firedOnce: Bool
    }
    static let noDwell = Int64.max
    static let dwellFired = Int64.min

    /// A moment the clock must act at. Phases order what happens at one instant: a request
    /// expires before anything of it fires then; a window closes (cancelling dwells) before
    /// it re-opens, and both before a dwell falls due.
    struct Timer: Comparable {
        var date: Int64
        var phase: UInt8
        var fence: Int32
        var device: Int32
        static func < (a: Timer, b: Timer) -> Bool {
            (a.date, a.phase, a.fence, a.device) < (b.date, b.phase, b.fence, b.device)
        }
        static let expiry: UInt8 = 0, close: UInt8 = 1, open: UInt8 = 2, dwell: UInt8 = 3
    }

    /// The device's last used fix, where a path to the next one starts.
    struct LastFix {
        var latitude: Double
        var longitude: Double
        var t: Int64
    }

    // The per-fix state opts out of Swift's dynamic exclusivity checks: a runtime call per
    // access of a class's stored property (about 4 % of a run's time with dwell on every
    // fence), and no access here overlaps another.
    @exclusivity(unchecked) var fences: [Fence]
    /// Per fence, its ``Gate``.
    @exclusivity(unchecked) var gates: [Gate] = []
    /// Window plans by fence slot (`nil`: always armed).
    @exclusivity(unchecked) var windows: [FenceWindowPlan?] = []
    /// Fence slot per request index (-1: not a fence with rules).
    @exclusivity(unchecked) var fenceOfRequest: [Int32]
    /// Polygon boundaries by fence slot, as flat (longitude, latitude) polylines: the rings,
    /// less the edges of a split at the antimeridian (``boundary(of:)``).
    var rings: [Int32: [[(x: Double, y: Double)]]] = [:]
    /// The edges of the polygons of at least ``EdgeIndex/minimumVertices`` vertices by place,
    /// by fence slot (built with the rings; tests empty it for the plain loops).
    var edgeIndexes: [Int32: EdgeIndex] = [:]
    /// The exact containment tests (GEOS for polygons), by fence slot.
    let regions: RegionIndex
    /// Fences by place (their widened boxes), and the ones every fix must consider: fences
    /// with an outside dwell (a device's first fix anywhere starts it).
    @exclusivity(unchecked) var grid: FenceGrid
    /// The fences the build made (slots in identifier order); those after them were appended
    /// in place (``append(_:request:addedAt:device:now:floatingTimeZone:validated:)``), in add
    /// order, and the events of one step are put in identifier order where they mix.
    private(set) var builtFenceCount: Int
    /// Fences removed in place (``remove(_:)``).
    var removedInPlace = Set<Int32>()
    @exclusivity(unchecked) var outsideDwellFences: [Int32] = []
    @exclusivity(unchecked) var crossingFences: [Int32] = []
    @exclusivity(unchecked) var scratch: [Int32] = []
    @exclusivity(unchecked) var quietScratch: [Quiet.Entry] = []
    /// Tests set it to look at every fence for every fix (the slow path the grid must equal).
    var scansAll = false
    /// Per device (evaluator index): links sorted by fence, the last fix seen here (`t`),
    /// and the last used position.
    @exclusivity(unchecked) var links: [[Link]] = []
    @exclusivity(unchecked) var lastSeen: [Int64] = []
    @exclusivity(unchecked) var lastFix: [LastFix?] = []
    /// Per device: the circle fences it cannot have moved across since it last measured them
    /// (``Quiet``); off when no fence is a circle, and in tests that measure every
    /// fence at every fix.
    @exclusivity(unchecked) var quiet: [Quiet] = []
    @exclusivity(unchecked) var usesQuiet = true
    /// Fence measurements the cache spared (tests check it is used).
    @exclusivity(unchecked) var quietSkips = 0
    @exclusivity(unchecked) var timers = Heap<Timer>()
    /// The heap's size that triggers ``compactTimers()``, and how often that happened.
    var timerBound = 65_536
    var compactions = 0
    /// Stale timers allowed beyond twice the live ones (a variable for tests).
    var timerSlack = 65_536
    /// Requests with an `expiresAt` (request index, date), sorted by date; `expiries` is
    /// the next one to act on.
    var expiries: [(date: Int64, request: Int32)] = []
    var nextExpiry = 0
    /// Each request's expiry (epoch ms; `Int64.max` when none).
    var expiresAt: [Int64]
    /// Requests (by index) that ended here since the last ``StreamEvaluator/takeRequestsEndedByRules()``:
    /// expired, or a device-scoped one-shot fence that fired.
    var ended: [Int32] = []
    /// Fixes that some accuracy-aware fence ignored as too inaccurate.
    var ignoredForAccuracy = 0
    /// Whether the clock has been started (addedAt known, windows planned).
    var started = false
    let margin: Double
    /// A copy deciding geometry ahead (``FixLookahead``, see ``init(geometryOf:)``): a fix
    /// steps its links' sides only and appends its moves to ``moves`` instead of acting on
    /// them (no event, dwell, timer or `done`).
    let recordsMoves: Bool
    @exclusivity(unchecked) var moves: [FenceMove] = []
    /// Per device, the lookahead's number of the last fix whose moves were applied here
    /// (``apply(_:device:t:latitude:longitude:initialFire:into:)``); -1: none since the
    /// lookahead was made (``resetAheadChains()``); -2: a fix was stepped here since, so the
    /// lookahead's copy of the device no longer matches.
    @exclusivity(unchecked) var aheadChain: [Int64] = []
    /// Fixes stepped by moves decided ahead (tests check the path is taken).
    @exclusivity(unchecked) var appliedFixes = 0

    /// Builds the fences of `requests` with rules (their slots in identifier order, given by
    /// `order`), or nil when no request has rules or an expiry.
    init?(requests: [NotificationRequest], order: [Int], margin: Double, floatingTimeZone: TimeZone) {
        let hasWork = requests.contains { r in
            if r.expiresAt != nil { return true }
            if case .location(let t) = r.trigger { return t.hasRules }
            return false
        }
        guard hasWork else { return nil }
        recordsMoves = false
        self.margin = max(0, margin.isFinite ? margin : 0)
        var fences: [Fence] = []
        var regionList: [Region] = []
        var fenceOfRequest = [Int32](repeating: -1, count: requests.count)
        for i in order {
            guard case .location(let t) = requests[i].trigger, t.hasRules else { continue }
            fenceOfRequest[i] = Int32(fences.count)
            regionList.append(t.region)
            fences.append(Self.fence(request: Int32(i), t, margin: self.margin))
            windows.append(t.rules.window.map { FenceWindowPlan($0, floatingTimeZone: floatingTimeZone) })
        }
        self.fences = fences
        builtFenceCount = fences.count
        gates = fences.map { Gate(accuracyLimit: $0.maximumAccuracy ?? .nan, repeats: $0.repeats, circle: $0.radius >= 0) }
        self.fenceOfRequest = fenceOfRequest
        self.regions = RegionIndex(regions: regionList, maximumMargin: 0)
        self.grid = FenceGrid(boxes: fences.map(Self.gridBox))
        outsideDwellFences = fences.indices.filter { fences[$0].dwell == .outside }.map { Int32($0) }
        crossingFences = fences.indices.filter { fences[$0].crossings }.map { Int32($0) }
        // Only circles have bounds to keep.
        usesQuiet = fences.contains { $0.radius >= 0 }
        for bad in regions.invalid { gates[Int(bad.slot)].done = true }
        expiresAt = requests.map { r in r.expiresAt.flatMap(RequestLimits.millis) ?? .max }
        for (slot, region) in regionList.enumerated() {
            if case .polygon(let p) = region { keepBoundary(of: p, fence: Int32(slot)) }
        }
    }

    /// Keeps polygon fence `f`'s boundary (the rings less the edges a split at the antimeridian
    /// adds) and, for the rules that measure distances to it, its edge index.
    func keepBoundary(of p: PolygonRegion, fence f: Int32) {
        let flat = Self.boundary(of: p.polygons.flatMap { $0 }.map { ring in ring.map { (x: $0.longitude, y: $0.latitude) } })
        rings[f] = flat
        if fences[Int(f)].crossings || fences[Int(f)].maximumAccuracy != nil,
           flat.reduce(0, { $0 + $1.count }) >= EdgeIndex.minimumVertices {
            edgeIndexes[f] = EdgeIndex(rings: flat)
        }
    }

    /// The fences as `g` has them (gates, windows, grid, index, rings, expiries), with no
    /// device yet: the base of a lookahead's copy (``init(geometryOf:)``). What the copy reads
    /// at every fix is copied into storage of its own (the fences, gates, grid and rings): read
    /// from two threads, shared buffers had both count references on the same cache lines
    /// (polygons with rules took 1.3x the time). The index is shared (read without counting).
    init(copying g: GuardedFences, recordsMoves: Bool) {
        self.recordsMoves = recordsMoves
        fences = g.fences.map { $0 }
        builtFenceCount = g.builtFenceCount
        gates = g.gates.map { $0 }
        windows = g.windows
        fenceOfRequest = g.fenceOfRequest.map { $0 }
        rings = Dictionary(uniqueKeysWithValues: g.rings.map { ($0.key, $0.value.map { $0.map { $0 } }) })
        edgeIndexes = g.edgeIndexes.mapValues { $0.copied() }
        regions = g.regions
        grid = g.grid.copied()
        outsideDwellFences = g.outsideDwellFences.map { $0 }
        crossingFences = g.crossingFences.map { $0 }
        usesQuiet = g.usesQuiet
        expiresAt = g.expiresAt
        margin = g.margin
        started = g.started
    }

    static func fence(request: Int32, _ t: LocationTrigger, margin: Double) -> Fence {
        let rules = t.rules
        let widen = margin + (rules.accuracy?.maximum ?? 0) + 1
        var f = Fence(request: request, notifyOnEntry: t.region.notifyOnEntry, notifyOnExit: t.region.notifyOnExit,
                      repeats: t.repeats, dwell: rules.dwell?.side, maximumAccuracy: rules.accuracy?.maximum,
                      crossings: rules.crossings, latitude: 0, longitude: 0, radius: -1,
                      minLatitude: -90, maxLatitude: 90, minLongitude: -540, maxLongitude: 540)
        if let d = rules.dwell { f.dwellMillis = DurationMillis.atLeast(min(d.duration, RequestLimits.maximumTimeInterval)) }
        if let w = rules.window {
            f.hasWindow = true
            f.enterAtOpening = w.enterAtOpening
            f.exitAtClosing = w.exitAtClosing
        }
        // Degrees of latitude per metre are at most 1/110,574; longitude's grow with 1/cos.
        let perMetre = 1 / 110_000.0
        switch t.region {
        case .circular(let c):
            f.latitude = c.center.latitude
            f.longitude = c.center.longitude
            f.radius = c.radius
            let dLat = (c.radius + widen) * perMetre
            f.minLatitude = c.center.latitude - dLat
            f.maxLatitude = c.center.latitude + dLat
            let worst = max(abs(f.minLatitude), abs(f.maxLatitude))
            if worst < 89 {
                let dLon = dLat / cos(worst * Geodesic.degree)
                f.minLongitude = c.center.longitude - dLon
                f.maxLongitude = c.center.longitude + dLon
            }
        case .polygon(let p):
            let all = p.polygons.flatMap { $0.flatMap { $0 } }
            let lats = all.map(\.latitude), lons = all.map(\.longitude)
            let dLat = widen * perMetre
            f.minLatitude = (lats.min() ?? 0) - dLat
            f.maxLatitude = (lats.max() ?? 0) + dLat
            let worst = max(abs(f.minLatitude), abs(f.maxLatitude))
            if worst < 89 {
                let dLon = dLat / cos(worst * Geodesic.degree)
                f.minLongitude = (lons.min() ?? 0) - dLon
                f.maxLongitude = (lons.max() ?? 0) + dLon
            }
        }
        return f
    }

    /// The box fence `f` is held under in the grid: its box (widened by the margin and its
    /// accuracy rule's `maximum`, which ``verdict(_:latitude:longitude:accuracy:)`` reads)
    /// less that `maximum`. A fix must be in a fence's grid box for the fix to move it: an
    /// entry (and a move an accuracy rule ignores) needs the fix inside the region less the
    /// margin and its accuracy; an exit, a pass-through and an outside dwell reach the fence
    /// through the device's link, the path's box and the outside-dwell list. Widened by the
    /// `maximum` too, a rule of 10 km put every fence in the list each fix reads (156 µs a
    /// fix for 10,000 circles; a helper's find). (Less by the `maximum` in degrees of latitude
    /// along both axes: a longitude widening was at least as much, so the box still holds
    /// every point within the margin of the region.)
    static func gridBox(_ f: Fence) -> (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        let d = (f.maximumAccuracy ?? 0) / 110_000
        return (f.minLatitude + d, f.maxLatitude - d, f.minLongitude + d, f.maxLongitude - d)
    }

    /// The soonest instant the clock must act at (`Int64.max`: none).
    var soonest: Int64 {
        min(timers.min?.date ?? .max, nextExpiry < expiries.count ? expiries[nextExpiry].date : .max)
    }

    /// Grows the per-device arrays to include device `d`.
    @inline(__always)
    /// Gives each device these fences have not seen (``lastSeen`` `Int64.min`) the time of
    /// its last used fix as the evaluator knows it (`lastUsed`, by device number), after a
    /// rebuild or a restore: whether a device was seen at or after a fence's `addedAt` then
    /// does not depend on whether fences with rules were there to see it (a fence added after
    /// the device's fix at that instant knew its state only when some other fence with rules
    /// had been live). Its position stays unknown: a pass-through (crossings) between that
    /// fix and the next is not seen. O(devices).
    func seedLastSeen(_ lastUsed: [Int64]) {
        guard !lastUsed.isEmpty else { return }
        ensure(device: Int32(lastUsed.count - 1))
        for d in lastUsed.indices where lastSeen[d] == .min { lastSeen[d] = lastUsed[d] }
    }

    func ensure(device d: Int32) {
        while links.count <= Int(d) {
            links.append([])
            lastSeen.append(.min)
            lastFix.append(nil)
            quiet.append(Quiet())
            aheadChain.append(-1)
        }
    }
}
