import Foundation

// Tiles: cells of the index's grid with their regions sorted out once, for every fix of every
// device that comes into the cell. Where regions are dense no area around a fix is free of
// boundaries, but only a few boundaries cross a small cell: those few are tested per fix (and
// only when the device has moved far enough to reach them), the others keep the decision they
// have over the whole cell. A tile is built from its parent cell's tile, so a fine tile
// classifies only the regions whose boundaries cross its parent, plus those stored at its own
// level: devices share the coarse work.

/// A cell of the region index's grid (its level, column and row as in
/// ``RegionIndex/cellKey(level:ix:iy:)``) with the regions that matter in it split by whether
/// their decision can change anywhere in the cell: those that cannot are kept with their
/// decision (``fixed``, hits only), the others (``open``) are tested per fix.
///
/// Memory: 8 bytes per fixed hit and 4 per open region, plus two array headers; a leaf tile
/// with open polygons their edges near it (``NearEdges``).
struct Tile: Sendable {
    /// The cell (``RegionIndex/cellKey(level:ix:iy:)``).
    var key: UInt64
    var level: Int
    /// Regions hit at every point of the cell, with their (constant) flags, by slot.
    var fixed: [RegionHit]
    /// Regions whose decision may change within the cell, by slot.
    var open: [Int32]
    /// An upper bound of metres per degree of longitude anywhere in the cell (step lengths).
    var kLon: Double
    /// The open polygons' edges near the cell (leaf tiles only); nil when every open region is
    /// decided whole.
    var edges: NearEdges? = nil
    /// Set by the ``TileCache`` that holds it: which build of its cell this is (a device in
    /// the tile finds out whether the cache still holds this very tile).
    var serial: UInt32 = 0

    var slots: Int { fixed.count + open.count + (edges?.slots ?? 0) }

    /// What must hold (checked on every tile stored in debug builds): ``fixed`` and ``open``
    /// strictly ascending by slot (the hits' order, no region twice) and disjoint (a region is
    /// constant over the cell or not).
    func checkInvariants() {
        precondition(zip(fixed, fixed.dropFirst()).allSatisfy { $0.slot < $1.slot }, "tile \(key): fixed hits out of order")
        precondition(zip(open, open.dropFirst()).allSatisfy { $0 < $1 }, "tile \(key): open regions out of order")
        var f = 0
        for slot in open {
            while f < fixed.count && fixed[f].slot < slot { f += 1 }
            precondition(f == fixed.count || fixed[f].slot != slot, "tile \(key): region \(slot) both fixed and open")
        }
        edges?.checkInvariants(open: open.count)
    }
}

/// The geometry of a grid cell: its centre and a disc around it that holds the whole cell.
struct TileFrame {
    let level: Int
    let ix: Int
    let iy: Int
    /// The centre (degrees).
    let latitude: Double
    let longitude: Double
    /// Half the cell's extent in degrees, padded by ``RegionIndex/tilePad``: a fix the index
    /// functions place in the cell lies inside the padded box even after rounding.
    let halfExtent: Double
    /// An upper bound (metres) of the geodesic distance from the centre to any point of the
    /// padded box (see ``RegionIndex/stepBound(dLat:dLon:kLon:)``).
    let radius: Double
    /// An upper bound of metres per degree of longitude anywhere in the padded box.
    let kLon: Double

    init(level: Int, ix: Int, iy: Int) {
        self.level = level
        self.ix = ix
        self.iy = iy
        let c = 360 / Double(1 << level)
        let lat0 = Double(iy) * c - 90, lon0 = Double(ix) * c - 180
        latitude = lat0 + c / 2
        longitude = lon0 + c / 2
        halfExtent = c / 2 + RegionIndex.tilePad
        // N cos φ <= a / sqrt(1 - e²) cos φ, largest at the box's lowest |latitude|.
        let south = lat0 - RegionIndex.tilePad, north = lat0 + c + RegionIndex.tilePad
        let lowest = south <= 0 && north >= 0 ? 0 : min(abs(south), abs(north))
        kLon = RegionIndex.kLatMax * cos(min(90, lowest) * Geodesic.degree)
        radius = RegionIndex.stepBound(dLat: halfExtent, dLon: halfExtent, kLon: kLon) * (1 + 1e-12) + 1e-6
    }
}

extension RegionIndex {
    /// Padding (degrees, ~0.1 mm) of a cell's box when classifying regions over it.
    static let tilePad = 1e-9
    /// The largest metres per degree of latitude anywhere on WGS84: the meridional radius of
    /// curvature peaks at the poles at a / sqrt(1 - e²).
    static let kLatMax = Geodesic.equatorialRadius / (1 - Geodesic.e2).squareRoot() * Geodesic.degree
    /// The coarsest tile level built from cells alone; finer tiles refine their parent's.
    static let rootTileLevel = 12
    /// Tiles are at least this fine (cells of ~0.6 x 0.5 km at 40 degrees) ...
    static let coarsestLeafLevel = 16
    /// Beyond this latitude a fix gets no tile, only plain queries.
    static let maximumTileLatitude = 80.0

    /// An upper bound (metres) of the geodesic distance between two points of a box in which
    /// metres per degree of longitude never exceed `kLon`, `dLat` and `dLon` degrees apart: the
    /// straight segment between them in (latitude, longitude) stays in the box and is a path of
    /// length <= sqrt((M_max dLat)² + (kLon dLon)²) (its length element is
    /// sqrt(M² dφ² + N² cos² φ dλ²)); the geodesic is no longer than any path.
    @inline(__always)
    static func stepBound(dLat: Double, dLon: Double, kLon: Double) -> Double {
        let y = dLat * kLatMax, x = dLon * kLon
        return (x * x + y * y).squareRoot()
    }

    /// The level of the leaf tile for a place whose summary cell holds `mask`'s levels: two
    /// levels above the finest level there, and no coarser than ``coarsestLeafLevel``, so a
    /// leaf reads at most 4 x 4 cells of the one finer level. A summary cell holding nothing
    /// is a tile by itself (``LevelSummary/level``).
    @inline(__always)
    static func leafLevel(_ mask: UInt32) -> Int {
        guard mask != 0 else { return LevelSummary.level }
        let finest = 31 - mask.leadingZeroBitCount
        return max(coarsestLeafLevel, finest - 2)
    }

    /// One candidate region over a cell: whether its decision is the same at every point of
    /// the cell, and if so that decision (hit code, 0 for none; a polygon that is not constant
    /// answers 0 without a test).
    @inline(__always)
    func classify(_ slot: Int, over f: TileFrame, margin m: Double, points: inout FixPoints) -> (code: UInt8, constant: Bool) {
        let latitude = f.latitude, lon = f.longitude
        guard entries[slot].kind == .polygon else {
            // A circle: constant when its nearest threshold is farther than the cell's disc.
            let (code, slack) = decision(slot, latitude: latitude, longitude: lon, margin: m, points: &points)
            return (code, slack > f.radius)
        }
        let i = Int(entries[slot].polygon), dLat = f.halfExtent, dLon = f.halfExtent
        // Outside the box of the polygon's edges: constant (and no hit).
        if latitude + dLat < polygons[i].minY || latitude - dLat > polygons[i].maxY { return (0, true) }
        // A polygon across the antimeridian, or a cell at it, has more than one frame:
        // tested per fix. So is one with an edge that may meet the cell. An open region's code
        // is not used: the centre is tested only for a constant one.
        if polygons[i].shifted || abs(lon) + dLon >= 180 { return (0, false) }
        if lon + dLon < polygons[i].minX || lon - dLon > polygons[i].maxX { return (0, true) }
        if polygons[i].rings.hasEdge(nearX: lon, y: latitude, dx: dLon, dy: dLat) { return (0, false) }
        return (polygonCovers(i, points: &points) ? 3 : 0, true)
    }

    /// The tile of the regions stored at levels up to `level` in the cell (`ix`, `iy`) of that
    /// level: `parent` (the same for the cell's parent two levels up) refined, plus the regions
    /// stored at this level; without a parent, the regions of every level up to this one in
    /// `mask` (the levels near the cell).
    ///
    /// Correct because a region stored at level L that matters at a point is stored in the
    /// point's own cell at L (what ``query(latitude:longitude:margin:into:)`` reads), and cells
    /// nest: the cell at L of any point of this cell is the one with this cell's indices shifted
    /// right (indices scale by exact powers of two).
    func prefixTile(level: Int, ix: Int, iy: Int, mask: UInt32, parent: Tile?, margin m: Double) -> Tile {
        let f = TileFrame(level: level, ix: ix, iy: iy)
        var points = FixPoints(latitude: f.latitude, longitude: f.longitude)
        defer { release(&points) }
        var fixed: [RegionHit] = [], open: [Int32] = []
        var levels = mask & ((UInt32(2) << UInt32(level)) - 1)
        if let parent {
            fixed.reserveCapacity(parent.fixed.count + 16)
            fixed.append(contentsOf: parent.fixed)
            for slot in parent.open {
                let (code, constant) = classify(Int(slot), over: f, margin: m, points: &points)
                if !constant { open.append(slot) } else if code != 0 { fixed.append(RegionHit(slot: slot, code: code)) }
            }
            levels &= ~((UInt32(2) << UInt32(parent.level)) - 1)
        }
        while levels != 0 {
            let l = levels.trailingZeroBitCount
            levels &= levels - 1
            let shift = level - l
            classifyCell(Self.cellKey(level: l, ix: ix >> shift, iy: iy >> shift), over: f, margin: m, points: &points,
                         fixed: &fixed, open: &open)
        }
        Self.sortUnique(&fixed) { $0.slot }
        Self.sortUnique(&open) { $0 }
        return Tile(key: Self.cellKey(level: level, ix: ix, iy: iy), level: level, fixed: fixed, open: open, kLon: f.kLon)
    }

    /// The leaf tile of a cell: its prefix tile plus the regions stored at the finer levels in
    /// `finer` (at most two levels finer: 4 x 4 cells), read from every cell of those levels
    /// inside this one.
    func leafTile(prefix: Tile, ix: Int, iy: Int, finer: UInt32, margin m: Double) -> Tile {
        let f = TileFrame(level: prefix.level, ix: ix, iy: iy)
        var points = FixPoints(latitude: f.latitude, longitude: f.longitude)
        defer { release(&points) }
        var fixed = prefix.fixed, open = prefix.open
        var levels = finer
        while levels != 0 {
            let l = levels.trailingZeroBitCount
            levels &= levels - 1
            let shift = l - prefix.level, side = 1 << shift
            for dy in 0..<side {
                for dx in 0..<side {
                    classifyCell(Self.cellKey(level: l, ix: (ix << shift) + dx, iy: (iy << shift) + dy), over: f, margin: m,
                                 points: &points, fixed: &fixed, open: &open)
                }
            }
        }
        // A region stored in several of the cells read was classified once per cell.
        Self.sortUnique(&fixed) { $0.slot }
        Self.sortUnique(&open) { $0 }
        return Tile(key: prefix.key, level: prefix.level, fixed: fixed, open: open, kLon: f.kLon)
    }

    /// Classifies every region stored in cell `key` (built and appended) over the frame.
    @inline(__always)
    private func classifyCell(_ key: UInt64, over f: TileFrame, margin m: Double, points: inout FixPoints,
                              fixed: inout [RegionHit], open: inout [Int32]) {
        let run = grid.lookup(key)
        for i in run {
            let slot = grid.slots.withUnsafeBufferPointer { $0[i] }
            let (code, constant) = classify(Int(slot), over: f, margin: m, points: &points)
            if !constant { open.append(slot) } else if code != 0 { fixed.append(RegionHit(slot: slot, code: code)) }
        }
        for slot in overlaySlots(key) ?? [] {
            let (code, constant) = classify(Int(slot), over: f, margin: m, points: &points)
            if !constant { open.append(slot) } else if code != 0 { fixed.append(RegionHit(slot: slot, code: code)) }
        }
    }

    /// Sorts by key and drops repeated keys (equal keys carry equal values here).
    static func sortUnique<T>(_ a: inout [T], _ key: (T) -> Int32) {
        guard a.count > 1 else { return }
        a.sort { key($0) < key($1) }
        var w = 1
        for i in 1..<a.count where key(a[i]) != key(a[w - 1]) {
            a[w] = a[i]
            w += 1
        }
        a.removeLast(a.count - w)
    }
}
