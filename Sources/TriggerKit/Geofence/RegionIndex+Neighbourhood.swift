import Foundation

// A device's neighbourhood: the tile (``Tile``) its last fix was in, with the decisions of the
// tile's open regions at that fix and how far the device may move before each can change.

/// A device's tile and the state of its open regions: their decisions at the last fix, and
/// for each the distance the device may travel before it can change (its slack, the distance
/// to its nearest threshold at its last test). A fix in the same tile adds its step from the
/// previous fix (an upper bound of the geodesic distance) to the path travelled, and tests only
/// the regions whose slack that path has used up: by the triangle inequality the others are
/// on the side they were.
///
/// Memory: the tile's arrays are shared with the tile cache (not copied); per open region one
/// byte of decision and 8 of slack. The evaluator bounds the total
/// (``StreamEvaluator/neighbourhoodSlotBudget``).
struct Neighbourhood: Sendable {
    // The scalars every fix reads come first, in one cache line's worth (64 bytes); the
    // arrays after them are touched only when a region is due.
    /// The tile's level and cell; level -1: no tile.
    private(set) var level: Int32 = -1
    /// Fixes since the last full test.
    private var steps: UInt32 = 0
    private var ix: Int32 = 0
    private var iy: Int32 = 0
    private var scale = 0.0
    /// Path travelled in the tile (sum of step bounds), and the smallest path at which an
    /// open region must be tested again (below it a fix tests nothing; infinite with none).
    private var path = 0.0
    private var soonest = Double.infinity
    /// The last fix (longitude unwrapped) and the tile's longitude scale bound.
    private var latitude = Double.nan
    private var longitude = Double.nan
    private var kLon = 0.0
    /// The tile's fixed hits and open regions (``Tile``).
    private(set) var fixed: [RegionHit] = []
    private(set) var open: [Int32] = []
    /// The decisions for ``open`` at the last fix (``RegionHit/code``).
    private(set) var decisions: [UInt8] = []
    /// For each open region, the path length at which it must be tested again.
    private var due: [Double] = []
    /// The tile's open polygons' edges near it (``NearEdges``), nil if none.
    private var edges: NearEdges?
    /// The tile's ``Tile/serial`` in the cache it came from.
    private(set) var tileSerial: UInt32 = 0

    /// The key the tile is held under in its ``TileCache`` (meaningless without a tile).
    var leafKey: UInt64 { TileCache.leafKey(level: Int(level), ix: Int(ix), iy: Int(iy)) }

    /// Rounding in the path's sum: a slack is trusted up to this much less (metres); the
    /// path is restarted (every region tested) after ``restartSteps`` fixes or
    /// ``restartPath`` metres, so the sum's error stays far below it.
    static let cushion = 1e-6
    static let restartSteps: UInt32 = 4096
    static let restartPath = 100_000.0

    init() {}

    /// Slots held (the evaluator's memory bound counts these).
    var storedSlots: Int { fixed.count + open.count + (edges?.slots ?? 0) }

    /// Whether a fix is in the tile: the cell ``TileCache/tile(latitude:longitude:index:margin:)``
    /// would give it.
    @inline(__always)
    func holds(latitude lat: Double, longitude lon: Double) -> Bool {
        guard level >= 0, abs(lat) <= 90, lon.isFinite else { return false }
        return RegionIndex.cellIndex(lat + 90, scale: scale) == Int(iy)
            && RegionIndex.cellIndex(Geodesic.unwrapDegrees(lon) + 180, scale: scale) & ((1 << Int(level)) - 1) == Int(ix)
    }

    /// Takes tile `t` for a fix in it: every open region is decided at the fix.
    mutating func enter(_ t: Tile, with index: RegionIndex, latitude lat: Double, longitude lon: Double, margin: Double) {
        level = Int32(t.level)
        scale = RegionIndex.levelScales[t.level]
        ix = Int32(t.key & 0x3FF_FFFF)
        iy = Int32((t.key >> 26) & 0x3FF_FFFF)
        fixed = t.fixed
        open = t.open
        edges = t.edges
        tileSerial = t.serial
        kLon = t.kLon
        latitude = lat
        longitude = Geodesic.unwrapDegrees(lon)
        path = 0
        steps = 0
        decisions.removeAll(keepingCapacity: true)
        due.removeAll(keepingCapacity: true)
        soonest = .infinity
        guard !open.isEmpty else { return }
        let m = margin >= 0 ? min(margin, index.maximumMargin) : 0
        var points = FixPoints(latitude: lat, longitude: longitude)
        defer { index.release(&points) }
        let edges = edges, kLon = kLon
        for (k, slot) in open.enumerated() {
            let (code, slack) = Self.decide(Int(slot), k, index: index, latitude: lat, longitude: longitude, margin: m,
                                            kLon: kLon, edges: edges, points: &points)
            decisions.append(code)
            due.append(slack - Self.cushion)
            soonest = min(soonest, slack - Self.cushion)
        }
    }

    /// Open region `slot` (the `k`th) decided at a fix in the tile: through its edges near the
    /// tile when it has them and their signs are certain (``NearEdges``), else whole.
    /// (Static: it runs while the arrays are borrowed, and takes the scalars it reads.)
    @inline(__always)
    private static func decide(_ slot: Int, _ k: Int, index: RegionIndex, latitude lat: Double, longitude x: Double, margin m: Double,
                               kLon: Double, edges: NearEdges?, points: inout FixPoints) -> (code: UInt8, slack: Double) {
        if let edges, let local = edges.decide(k, x: x, y: lat, kLon: kLon) { return local }
        return index.decision(slot, latitude: lat, longitude: x, margin: m, kLon: kLon, points: &points)
    }

    /// A fix in the tile (``holds(latitude:longitude:)``): adds its step to the path, retests
    /// the open regions whose slack is used up, and says whether any decides otherwise than at
    /// the last fix; those are appended to `changes`, by slot, each as its new hit or
    /// ``RegionHit/miss(_:)``. Called in place on a stored neighbourhood, it copies nothing.
    ///
    /// - Complexity: O(open regions) comparisons, plus a test per region retested.
    mutating func advance(with index: RegionIndex, latitude lat: Double, longitude lon: Double, margin: Double,
                          changes: inout [RegionHit]) -> Bool {
        let x = Geodesic.unwrapDegrees(lon)
        path += RegionIndex.stepBound(dLat: lat - latitude, dLon: x - longitude, kLon: kLon)
        latitude = lat
        longitude = x
        steps &+= 1
        let restart = steps >= Self.restartSteps || path >= Self.restartPath
        if restart {
            path = 0
            steps = 0
        }
        let travelled = path
        // No region's slack used up: nothing to test (most fixes; and every fix in a tile
        // without open regions, where `soonest` is infinite). Decided before any array is
        // touched.
        guard restart || travelled >= soonest else { return false }
        guard !open.isEmpty else { return false }
        let m = margin >= 0 ? min(margin, index.maximumMargin) : 0
        var points = FixPoints(latitude: lat, longitude: x)
        defer { index.release(&points) }
        // Locals inside the loop (a variable captured by these closures would be stored to
        // memory at every iteration).
        let edges = edges, kLon = kLon
        let (changed, next) = open.withUnsafeBufferPointer { open in
            decisions.withUnsafeMutableBufferPointer { decisions in
                due.withUnsafeMutableBufferPointer { due -> (Bool, Double) in
                    var changed = false, next = Double.infinity
                    for i in 0..<open.count {
                        var d = due[i]
                        if restart || d <= travelled {
                            let (code, slack) = Self.decide(Int(open[i]), i, index: index, latitude: lat, longitude: x, margin: m,
                                                            kLon: kLon, edges: edges, points: &points)
                            if code != decisions[i] {
                                decisions[i] = code
                                changed = true
                                changes.append(code == 0 ? .miss(open[i]) : RegionHit(slot: open[i], code: code))
                            }
                            d = travelled + slack - Self.cushion
                            due[i] = d
                        }
                        next = min(next, d)
                    }
                    return (changed, next)
                }
            }
        }
        soonest = next
        return changed
    }

    /// Whether a fix is near the device's last one (within about 5 km): only then is a tile
    /// worth taking. A device that jumps from place to place (or one seen for the first time)
    /// queries the index plainly; a tile would serve it once.
    @inline(__always)
    func follows(latitude lat: Double, longitude lon: Double) -> Bool {
        abs(lat - latitude) + abs(Geodesic.unwrapDegrees(lon) - longitude) < 0.05
    }

    /// The hits at the last fix: the fixed hits and the open regions hit by ``decisions``, by
    /// slot (what ``RegionIndex/query(latitude:longitude:margin:into:)`` answers there).
    func hits(into hits: inout [RegionHit]) {
        hits.removeAll(keepingCapacity: true)
        appendHits(to: &hits)
    }

    /// ``hits(into:)``, appended to `hits`.
    func appendHits(to hits: inout [RegionHit]) {
        fixed.withUnsafeBufferPointer { fixed in
            open.withUnsafeBufferPointer { open in
                decisions.withUnsafeBufferPointer { codes in
                    var f = 0
                    for k in 0..<open.count where codes[k] != 0 {
                        let slot = open[k]
                        while f < fixed.count && fixed[f].slot < slot {
                            hits.append(fixed[f])
                            f += 1
                        }
                        hits.append(RegionHit(slot: slot, code: codes[k]))
                    }
                    hits.append(contentsOf: UnsafeBufferPointer(rebasing: fixed[f...]))
                }
            }
        }
    }

    /// Forgets the tile (keeping the arrays' capacity) after a fix queried plainly there.
    mutating func clear(latitude lat: Double, longitude lon: Double) {
        latitude = lat
        longitude = Geodesic.unwrapDegrees(lon)
        level = -1
        fixed = []
        open = []
        edges = nil
        decisions.removeAll(keepingCapacity: true)
        due.removeAll(keepingCapacity: true)
        soonest = .infinity
    }

    /// Drops the arrays' storage too (the memory bound).
    mutating func release() {
        self = Neighbourhood()
    }
}

extension RegionHit {
    /// One byte per decision: 0 no hit, 1 hit, 2 hit and contains, 3 hit, contains and inner.
    @inline(__always) var code: UInt8 { 1 + (contains ? 1 : 0) + (inner ? 1 : 0) }
    @inline(__always) init(slot: Int32, code: UInt8) {
        self.init(slot: slot, inner: code == 3, contains: code >= 2)
    }

    /// In a list of changes (``Neighbourhood/advance(with:latitude:longitude:margin:changes:)``):
    /// region `slot` is no longer hit. Spelt as `inner` without `contains`, which no hit is
    /// (inner implies contains).
    @inline(__always) static func miss(_ slot: Int32) -> RegionHit {
        RegionHit(slot: slot, inner: true, contains: false)
    }

    /// Whether this change is a ``miss(_:)``.
    @inline(__always) var isMiss: Bool { inner && !contains }

    /// `hits` (sorted by slot) with `changes` (sorted by slot, misses among them) applied,
    /// into `result`.
    static func apply(_ changes: UnsafeBufferPointer<RegionHit>, to hits: UnsafeBufferPointer<RegionHit>,
                      into result: inout [RegionHit]) {
        result.removeAll(keepingCapacity: true)
        var h = 0
        for c in changes {
            while h < hits.count && hits[h].slot < c.slot {
                result.append(hits[h])
                h += 1
            }
            if h < hits.count && hits[h].slot == c.slot { h += 1 }
            if !c.isMiss { result.append(c) }
        }
        result.append(contentsOf: UnsafeBufferPointer(rebasing: hits[h...]))
    }
}

extension RegionIndex {
    /// The decision (``RegionHit/code``, the same as ``query(latitude:longitude:margin:into:)``
    /// makes) of region `slot` at a fix, and a lower bound (metres) of how far the fix may move
    /// before it can change; 0 within the flat plane's error bound of a circle's threshold
    /// (retested at every fix).
    ///
    /// A polygon's slack is measured in the tile's step norm (``RegionIndex/stepBound(dLat:dLon:kLon:)``
    /// with `kLon`), not along the ellipsoid: its boundary is straight in (longitude, latitude),
    /// and a path of steps whose norms add up to less than the distance (in that norm) from
    /// the fix to every edge cannot reach an edge. 0 without a `kLon`, for a polygon across the
    /// antimeridian or a fix at it, and for a polygon of more than ``maximumSlackEdges`` edges.
    @inline(__always)
    func decision(_ slot: Int, latitude: Double, longitude lon: Double, margin m: Double, kLon: Double = 0,
                  points: inout FixPoints) -> (code: UInt8, slack: Double) {
        let e = entries[slot]
        switch e.kind {
        case .planeCircle:
            let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
            let err = e.plane.errorBound(d), r = e.radius
            let nearest = min(abs(d - (r + m)), abs(d - r), abs(d - (r - m)))
            if nearest > err {
                // As ``test(_:latitude:longitude:margin:points:)`` decides it.
                return (d > r + m ? 0 : (d <= r - m ? 3 : (d <= r ? 2 : 1)), nearest - err - Self.geodesicSlack)
            }
            return (exactHit(slot, e, latitude, lon, m)?.code ?? 0, 0)
        case .exactCircle:
            return (test(slot, latitude: latitude, longitude: lon, margin: m, points: &points)?.code ?? 0,
                    thresholdDistance(slot, latitude: latitude, longitude: lon, margin: m))
        case .polygon:
            let code = test(slot, latitude: latitude, longitude: lon, margin: m, points: &points)?.code ?? 0
            guard kLon > 0, abs(lon) < 179 else { return (code, 0) }
            let i = Int(e.polygon)
            let rings = polygons[i].rings  // (a plain value: no reference counted)
            guard !polygons[i].shifted, rings.edgeCount <= Self.maximumSlackEdges else { return (code, 0) }
            return (code, Self.polygonSlack(rings.distanceToEdges(x: lon, y: latitude, xScale: kLon, yScale: Self.kLatMax)))
        case .invalid:
            return (0, .infinity)
        }
    }

    /// A polygon's slack from the distance to its nearest edge (step norm, metres), whether
    /// measured over all its edges or over those near a tile (``NearEdges``). Rounding in the
    /// distance is relative (~1e-15): a generous cushion.
    @inline(__always)
    static func polygonSlack(_ distance: Double) -> Double {
        distance * (1 - 1e-9) - 1e-4
    }

    /// Polygons with more edges are retested at every fix rather than measured (the distance
    /// to every edge would cost more than the tests it saves).
    static let maximumSlackEdges = 256
}
