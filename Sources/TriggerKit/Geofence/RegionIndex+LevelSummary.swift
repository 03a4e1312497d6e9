/// For each cell of a coarse dense grid (level 10, ~0.35 degrees), the bit set of grid levels
/// holding a region there. A query reads this one word first and probes only those levels:
/// far from every region (most of the world) it stops after one read of a 2 MB array instead
/// of a hash probe (a cache miss) per level.
struct LevelSummary {
    static let level = 10
    static let width = 1 << level
    static let height = (1 << (level - 1)) + 1
    static let scale = Double(1 << level) / 360
    private(set) var masks: [UInt32]

    init(cells: [(key: UInt64, slot: Int32)]) {
        masks = Array(repeating: 0, count: Self.width * Self.height)
        var previous: UInt64? = nil
        for c in cells where c.key != previous {
            previous = c.key
            mark(c.key)
        }
    }

    /// Marks the level of grid cell `key` in every summary cell it overlaps.
    ///
    /// - Complexity: O(1) for cells at level >= 10 (1-4 summary cells); up to the whole
    ///   summary for a coarse cell.
    mutating func mark(_ key: UInt64) {
        do {
            let level = Int(key >> 52), iy = Int((key >> 26) & 0x3FF_FFFF), ix = Int(key & 0x3FF_FFFF)
            let bit = UInt32(1) << UInt32(level)
            // Mark every summary cell the grid cell overlaps, padded by 1e-9 degrees so that
            // rounding in either index computation cannot lose a level.
            let c = 360 / Double(1 << level), pad = 1e-9
            let x0 = RegionIndex.cellIndex(Double(ix) * c - pad, scale: Self.scale)
            let x1 = RegionIndex.cellIndex(Double(ix + 1) * c + pad, scale: Self.scale)
            let y0 = max(0, RegionIndex.cellIndex(Double(iy) * c - pad, scale: Self.scale))
            let y1 = min(Self.height - 1, RegionIndex.cellIndex(Double(iy + 1) * c + pad, scale: Self.scale))
            guard y0 <= y1 else { return }
            for y in y0...y1 {
                for x in x0...min(x1, x0 + Self.width - 1) { masks[y * Self.width + (x & (Self.width - 1))] |= bit }
            }
        }
    }

    /// The levels of every summary cell the box meets (longitudes wrap; latitudes are
    /// clamped to the grid). O(cells met): 1-6 for a box of 5 km below 80 degrees.
    func mask(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) -> UInt32 {
        let x0 = RegionIndex.cellIndex(minLongitude + 180, scale: Self.scale)
        let x1 = RegionIndex.cellIndex(maxLongitude + 180, scale: Self.scale)
        let y0 = max(0, RegionIndex.cellIndex(minLatitude + 90, scale: Self.scale))
        let y1 = min(Self.height - 1, RegionIndex.cellIndex(maxLatitude + 90, scale: Self.scale))
        guard y0 <= y1, x0 <= x1 else { return 0 }
        var m: UInt32 = 0
        masks.withUnsafeBufferPointer { masks in
            for y in y0...y1 {
                for x in x0...min(x1, x0 + Self.width - 1) { m |= masks[y * Self.width + (x & (Self.width - 1))] }
            }
        }
        return m
    }

    @inline(__always)
    func mask(latitude: Double, longitude: Double) -> UInt32 {
        let ix = RegionIndex.cellIndex(longitude + 180, scale: Self.scale) & (Self.width - 1)
        let iy = min(Self.height - 1, RegionIndex.cellIndex(latitude + 90, scale: Self.scale))
        return masks.withUnsafeBufferPointer { $0[iy * Self.width + ix] }
    }
}
