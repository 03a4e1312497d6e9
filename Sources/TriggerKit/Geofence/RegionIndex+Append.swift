// Regions added after the build, for the live center: no rebuild per added region.

@_spi(Engine) extension RegionIndex {
    /// Adds one region in place and returns its slot (the next one: ``count`` before the
    /// call). Nothing changes when the region is refused.
    ///
    /// The region's cells go to an overlay table beside the built grid, and the level
    /// summary is updated, so queries find it exactly as if the index had been built with it
    /// (the same hits, flags and neighbourhoods). A region is never removed from the index: its
    /// owner stops using the slot (the live center marks the request finished).
    ///
    /// `validated`: the region passed the one validator (a polygon's validity is not checked
    /// again; see ``init(count:maximumMargin:parallel:validated:region:)``).
    ///
    /// - Throws: ``RegionIndexError`` for a region the build would list in ``invalid``.
    /// - Complexity: O(1) amortised for a circle (1-4 cells, each marked in the summary);
    ///   a polygon adds GEOS preparation, O(v log v). A query reads one more hash table
    ///   per non-empty level while the overlay holds cells.
    @discardableResult
    public func append(_ region: Region, validated: Bool = false) throws(RegionIndexError) -> Int32 {
        try appendReturningBox(region, validated: validated).slot
    }

    /// ``append(_:validated:)``, and where the new region can change a tile: its box (degrees,
    /// the margin included; tiles of cells apart from it still hold) and the grid level it is
    /// stored at (a coarser prefix tile never holds it).
    func appendReturningBox(_ region: Region, validated: Bool) throws(RegionIndexError) -> (slot: Int32, box: Box, level: Int) {
        let slot = Int32(truncatingIfNeeded: count)
        let (entry, box) = try Self.prepare(region, slot: slot, margin: maximumMargin, context: context, validated: validated,
                                            polygons: &polygons)
        entries.append(entry)
        count += 1
        var cells: [(key: UInt64, slot: Int32)] = []
        let level = Self.addCells(box, slot: slot, maximumCells: entry.kind == .polygon ? Self.maximumCellsPerPolygon : Self.maximumCellsPerRegion, to: &cells)
        if !levels.contains(where: { $0.level == level }) {
            levels.append((level, Double(1 << level) / 360))
            levels.sort { $0.level < $1.level }
        }
        for c in cells {
            overlay[c.key, default: []].append(slot)
            summary.mark(c.key)
        }
        return (slot, box, level)
    }

    /// The appended slots stored in cell `key` (ascending), if any.
    @inline(__always)
    func overlaySlots(_ key: UInt64) -> [Int32]? {
        overlay.isEmpty ? nil : overlay[key]
    }
}
