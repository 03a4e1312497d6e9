// The tiles a thread has built (``Tile``), kept for the devices that come into their cells.

/// The tiles one thread has built, by cell: a cache with a memory bound.
///
/// Holds leaf tiles and the coarser tiles they were refined from. Past ``budget`` slots
/// (``Tile/slots`` plus ``entrySlots`` summed over the tiles held; 8 bytes a slot at most) it
/// drops every tile and
/// counts it in ``clears``; tiles are rebuilt as fixes need them. Devices keep the arrays of the
/// tile they are in (shared, not copied), so dropping the cache never changes a device's tile.
struct TileCache {
    private var tiles: [UInt64: Tile] = [:]
    /// Slots held, and the bound.
    private(set) var slots = 0
    let budget: Int
    /// How many times the bound emptied the cache.
    private(set) var clears = 0
    /// Tiles built (for tests and benchmarks).
    private(set) var builds = 0

    /// Bit set in the keys of leaf tiles (a prefix tile of the same cell may differ).
    private static let leafBit: UInt64 = 1 << 63

    init(budget: Int) {
        self.budget = budget
    }

    /// Forgets every tile (regions were added).
    mutating func removeAll() {
        tiles.removeAll()
        slots = 0
    }

    /// The leaf tile of the cell a fix is in; nil beyond ``RegionIndex/maximumTileLatitude``
    /// or for a coordinate that is not finite (such fixes are queried plainly).
    ///
    /// - Complexity: one hash probe when the tile is held; else building it and any coarser
    ///   tile it refines that is not held (each O(regions near its cell)).
    mutating func tile(latitude: Double, longitude: Double, index: RegionIndex, margin: Double) -> Tile? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= RegionIndex.maximumTileLatitude else { return nil }
        let lon = Geodesic.unwrapDegrees(longitude)
        let mask = index.summary.mask(latitude: latitude, longitude: lon)
        let level = RegionIndex.leafLevel(mask)
        let scale = RegionIndex.levelScales[level]
        let ix = RegionIndex.cellIndex(lon + 180, scale: scale) & ((1 << level) - 1)
        let iy = RegionIndex.cellIndex(latitude + 90, scale: scale)
        let leafKey = RegionIndex.cellKey(level: level, ix: ix, iy: iy) | Self.leafBit
        if let t = tiles[leafKey] { return t }
        let m = margin >= 0 ? min(margin, index.maximumMargin) : 0
        let finer = mask & ~((UInt32(2) << UInt32(level)) - 1)
        let t: Tile
        if level < RegionIndex.rootTileLevel {
            // Nothing near (see ``RegionIndex/leafLevel(_:)``): an empty tile.
            t = Tile(key: RegionIndex.cellKey(level: level, ix: ix, iy: iy), level: level, fixed: [], open: [],
                     kLon: TileFrame(level: level, ix: ix, iy: iy).kLon)
        } else {
            let prefix = prefixTile(level: level, ix: ix, iy: iy, mask: mask, index: index, margin: m)
            t = index.withNearEdges(finer == 0 ? prefix : index.leafTile(prefix: prefix, ix: ix, iy: iy, finer: finer, margin: m))
        }
        store(t, under: leafKey)
        return t
    }

    /// The prefix tile of cell (`ix`, `iy`) at `level`, from the cache or built (with its
    /// parents, down to ``RegionIndex/rootTileLevel``).
    private mutating func prefixTile(level: Int, ix: Int, iy: Int, mask: UInt32, index: RegionIndex, margin: Double) -> Tile {
        let key = RegionIndex.cellKey(level: level, ix: ix, iy: iy)
        if let t = tiles[key] { return t }
        var parent: Tile?
        if level - 2 >= RegionIndex.rootTileLevel {
            parent = prefixTile(level: level - 2, ix: ix >> 2, iy: iy >> 2, mask: mask, index: index, margin: margin)
        }
        let t = index.prefixTile(level: level, ix: ix, iy: iy, mask: mask, parent: parent, margin: margin)
        store(t, under: key)
        return t
    }

    /// What a tile counts against the budget: its slots, plus ``entrySlots`` for its entry
    /// (an empty tile is not free).
    static let entrySlots = 8

    private mutating func store(_ t: Tile, under key: UInt64) {
        #if DEBUG
        t.checkInvariants()
        #endif
        builds += 1
        let cost = t.slots + Self.entrySlots
        if slots + cost > budget {
            tiles.removeAll()
            slots = 0
            clears += 1
        }
        tiles[key] = t
        slots += cost
    }
}
