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
    /// The keys held, by their cell at ``bucketLevel`` (tiles that fine or finer), and those
    /// of coarser tiles: the tiles a region added in place overlaps are found without a pass
    /// over them all.
    private var buckets: [UInt64: [UInt64]] = [:]
    private var coarse: [UInt64] = []
    private var nextSerial: UInt32 = 0
    static let bucketLevel = 14
    /// Slots held, and the bound.
    private(set) var slots = 0
    let budget: Int
    /// How many times the bound emptied the cache.
    private(set) var clears = 0
    /// Tiles built (for tests and benchmarks).
    private(set) var builds = 0
    /// Leaf tiles shared with the other thread deciding fixes (see ``SharedTiles``); let go
    /// for good once regions change (``drop(overlapping:storedAt:)``).
    var shared: SharedTiles?

    /// Bit set in the keys of leaf tiles (a prefix tile of the same cell may differ).
    private static let leafBit: UInt64 = 1 << 63

    init(budget: Int) {
        self.budget = budget
    }

    /// Forgets every tile.
    mutating func removeAll() {
        tiles.removeAll()
        buckets.removeAll()
        coarse.removeAll()
        slots = 0
    }

    /// The key a leaf tile of cell (`level`, `ix`, `iy`) is held under.
    static func leafKey(level: Int, ix: Int, iy: Int) -> UInt64 {
        RegionIndex.cellKey(level: level, ix: ix, iy: iy) | leafBit
    }

    /// Whether the leaf tile with `serial` (``Tile/serial``) is still held for its cell: no
    /// region added since overlaps it, and the bound has not emptied the cache.
    func holds(serial: UInt32, leafKey: UInt64) -> Bool {
        tiles[leafKey]?.serial == serial
    }

    /// Forgets the tiles whose cell, padded, meets `box`, for a region added in place there
    /// and stored at grid level `level`: every such leaf tile (it may hold the region, or a
    /// fix in its cell may now belong to a finer leaf), and the prefix tiles of level `level`
    /// or finer (a coarser one reads no cell of that level). The others still hold. Everything
    /// for a box across the antimeridian or around a pole. Returns how many were dropped.
    ///
    /// - Complexity: O(tiles held in the box's cells at ``bucketLevel``, and the coarser ones).
    @discardableResult
    mutating func drop(overlapping box: RegionIndex.Box, storedAt level: Int) -> Int {
        // The other thread's tiles describe the regions as they were.
        shared = nil
        let pad = 1e-7
        guard !box.allLongitudes, box.minLon - pad > -180, box.maxLon + pad < 180, box.minLat >= -90, box.maxLat <= 90 else {
            let n = tiles.count
            removeAll()
            return n
        }
        let stored = level
        func meets(_ key: UInt64) -> Bool {
            let level = Int((key >> 52) & 0x7FF), iy = Int((key >> 26) & 0x3FF_FFFF), ix = Int(key & 0x3FF_FFFF)
            if key & Self.leafBit == 0 && level < stored { return false }
            let c = 360 / Double(1 << level)
            let lon0 = Double(ix) * c - 180, lat0 = Double(iy) * c - 90
            return box.maxLon >= lon0 - pad && box.minLon <= lon0 + c + pad && box.maxLat >= lat0 - pad && box.minLat <= lat0 + c + pad
        }
        var dropped = 0
        func sift(_ keys: inout [UInt64]) {
            keys.removeAll { key in
                guard meets(key), let t = tiles.removeValue(forKey: key) else { return false }
                slots -= t.slots + Self.entrySlots
                dropped += 1
                return true
            }
        }
        sift(&coarse)
        let scale = RegionIndex.levelScales[Self.bucketLevel]
        let x0 = RegionIndex.cellIndex(box.minLon - pad + 180, scale: scale), x1 = RegionIndex.cellIndex(box.maxLon + pad + 180, scale: scale)
        let y0 = RegionIndex.cellIndex(box.minLat - pad + 90, scale: scale), y1 = RegionIndex.cellIndex(box.maxLat + pad + 90, scale: scale)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > buckets.count {
            for bucket in Array(buckets.keys) { sift(&buckets[bucket, default: []]) }
        } else {
            for iy in y0...y1 {
                for ix in x0...x1 {
                    let bucket = RegionIndex.cellKey(level: Self.bucketLevel, ix: ix, iy: iy)
                    if buckets[bucket] != nil { sift(&buckets[bucket]!) }
                }
            }
        }
        return dropped
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
        if let t = shared?.tile(leafKey) { return store(t, under: leafKey) }
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
        shared?.offer(t, under: leafKey)
        return store(t, under: leafKey)
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
        return store(index.prefixTile(level: level, ix: ix, iy: iy, mask: mask, parent: parent, margin: margin), under: key)
    }

    /// What a tile counts against the budget: its slots, plus ``entrySlots`` for its entry
    /// (an empty tile is not free).
    static let entrySlots = 8

    /// Holds `t` under `key` with the next serial; returns it so.
    private mutating func store(_ tile: Tile, under key: UInt64) -> Tile {
        #if DEBUG
        tile.checkInvariants()
        #endif
        var t = tile
        nextSerial &+= 1
        t.serial = nextSerial
        builds += 1
        let cost = t.slots + Self.entrySlots
        if slots + cost > budget {
            removeAll()
            clears += 1
        }
        tiles[key] = t
        slots += cost
        let level = Int((key >> 52) & 0x7FF)
        if level >= Self.bucketLevel {
            let shift = level - Self.bucketLevel
            let iy = Int((key >> 26) & 0x3FF_FFFF) >> shift, ix = Int(key & 0x3FF_FFFF) >> shift
            buckets[RegionIndex.cellKey(level: Self.bucketLevel, ix: ix, iy: iy), default: []].append(key)
        } else {
            coarse.append(key)
        }
        return t
    }
}
