import Foundation

@_spi(Engine) extension RegionIndex {
    /// The finest grid level: cells of 360/2^22 degrees, about 9.5 m.
    static let maximumLevel = 22
    /// A region is stored at the finest level where it touches at most this many cells.
    static let maximumCellsPerRegion = 4
    /// Polygons, whose exact test costs a walk over edges, are stored more finely: a fix then
    /// meets fewer polygons that are not near it (10,000 polygons x 1M fixes: 3.5 -> 2.6 s).
    static let maximumCellsPerPolygon = 16
    /// A circle whose 4 cells would be coarser than this level (cells of 2.2 km) is stored here
    /// when it touches at most 16 of its cells: a coarse cell in a city holds hundreds of
    /// large circles that every neighbourhood build near it would classify (10,000 metro
    /// circles: 193 candidates per build; paired runs 0.92x the time, the regional spread 0.98x).
    static let wideCircleLevel = 14
    /// Bounding boxes are padded by this many degrees so that rounding in cell indices
    /// (notably for longitudes shifted by 360) can never drop a region.
    static let boxPadding = 1e-9

    /// Builds the index. Invalid regions (bad coordinates or radius; polygons GEOS finds
    /// invalid, with GEOS's reason) are listed in ``invalid`` and never match; the rest are
    /// indexed.
    ///
    /// - Parameter maximumMargin: the largest hysteresis margin (metres) queries will use
    ///   (`--margin`): circles are indexed with boxes grown by it. A query margin above it is
    ///   clamped to it.
    /// - Complexity: O(n log n) for n regions, plus GEOS preparation of every polygon
    ///   (O(v log v) for v vertices).
    public convenience init(regions: [Region], maximumMargin: Double = 0) {
        self.init(count: regions.count, maximumMargin: maximumMargin) { regions[$0] }
    }

    /// Builds the index of `count` regions, region `i` (slot `i`) given by `region(i)` (called
    /// once per slot, from several threads for a large set), without an array of them all.
    /// `parallel` false builds on the calling thread (the reference the parallel build is
    /// tested against).
    ///
    /// `validated`: every polygon passed the one validator (``RequestValidation``), whose GEOS
    /// validity check is this build's own: it is not made again (a third of loading 100,000
    /// polygons was the two checks).
    convenience init(count: Int, maximumMargin: Double, parallel: Bool = true, validated: Bool = false,
                     region: @Sendable (Int) -> Region) {
        let maximumMargin = maximumMargin.isFinite ? max(0, maximumMargin) : 0
        let context = try? GEOSContext()
        // Each region is prepared on its own (its plane, its GEOS polygon, its cells): a large
        // set is cut into parts prepared on every core, each with its own GEOS context (a
        // context must not be used by two threads at once; a prepared polygon keeps its
        // context alive, and GEOS geometries work with any context). Each part writes its
        // slots' entries in place; the parts' polygons and cells are joined in slot order, so
        // the index is the one a single pass builds (`IndexBuildTests`).
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let partCount = parallel && count >= Self.parallelBuildThreshold && cores > 1 ? 4 * cores : 1
        var parts = [BuildPart](repeating: BuildPart(), count: partCount)
        var entries = [Entry](unsafeUninitializedCapacity: count) { all, initialized in
            if partCount == 1 {
                parts[0].prepare(0..<count, into: all, margin: maximumMargin, context: context, validated: validated, region: region)
            } else {
                parts.withUnsafeMutableBufferPointer { buffer in
                    // Each part and each run of entries is written by exactly one iteration;
                    // the calling thread's context is used by part 0 only.
                    nonisolated(unsafe) let buffer = buffer
                    nonisolated(unsafe) let context = context
                    nonisolated(unsafe) let all = all
                    withoutActuallyEscaping(region) { region in
                        DispatchQueue.concurrentPerform(iterations: partCount) { k in
                            let own = k == 0 ? context : try? GEOSContext()
                            buffer[k].prepare(count * k / partCount..<count * (k + 1) / partCount, into: all, margin: maximumMargin,
                                              context: own, validated: validated, region: region)
                        }
                    }
                }
            }
            initialized = count
        }
        // A part numbered its polygons from 0; they follow the earlier parts' here. Each part's
        // are copied into place and renumbered on its own thread (copying a polygon retains
        // its storage: 100,000 polygons took 30 ms on one core).
        let polygonStarts = parts.reduce(into: [0]) { $0.append($0.last! + $1.polygons.count) }
        let polygons = [PolygonEntry](unsafeUninitializedCapacity: polygonStarts.last!) { out, initialized in
            entries.withUnsafeMutableBufferPointer { entries in
                parts.withUnsafeMutableBufferPointer { parts in
                    // Each part, its run of `out` and its slots' entries are written by one iteration.
                    nonisolated(unsafe) let (out, entries, parts) = (out, entries, parts)
                    let join: @Sendable (Int) -> Void = { k in
                        let offset = polygonStarts[k]
                        parts[k].polygons.withUnsafeBufferPointer { own in
                            if let from = own.baseAddress { (out.baseAddress! + offset).initialize(from: from, count: own.count) }
                        }
                        if offset > 0 {
                            for slot in parts[k].polygonSlots { entries[Int(slot)].polygon += Int32(offset) }
                        }
                        parts[k].polygons = []
                    }
                    ParallelChunks.perform(parts.count, join)
                }
            }
            initialized = polygonStarts.last!
        }
        var invalid: [RegionIndexError] = []
        var runs: [[CellPair]] = []
        var usedLevels: UInt32 = 0
        for k in parts.indices {
            invalid.append(contentsOf: parts[k].invalid)
            runs.append(parts[k].cells)
            usedLevels |= parts[k].levels
            parts[k] = BuildPart()
        }
        // Each part's pairs are sorted by key, and the parts hold ascending runs of slots: a
        // stable merge in part order leaves each cell's slots in order.
        let cells = Self.mergeSortedRuns(consume runs, pieces: partCount == 1 ? 1 : cores)
        // The level summary and the grid's table read the pairs apart: built side by side.
        nonisolated(unsafe) var summary: LevelSummary?
        nonisolated(unsafe) var grid: CellTable?
        if partCount == 1 {
            summary = LevelSummary(cells: cells)
            grid = CellTable(sortedCells: cells)
        } else {
            // The summary on a thread of its own, the table in pieces meanwhile: the table's
            // pieces, nested in a `concurrentPerform` beside the summary, ran one after another.
            let summaryDone = DispatchGroup()
            DispatchQueue.global().async(group: summaryDone) { summary = LevelSummary(cells: cells) }
            grid = CellTable(sortedCells: cells, pieces: cores)
            summaryDone.wait()
        }
        let levels = (0...Self.maximumLevel).filter { usedLevels & (1 << $0) != 0 }
        self.init(count: count, invalid: invalid, entries: entries, polygons: polygons, grid: grid!,
                  levels: levels.map { ($0, Double(1 << $0) / 360) }, summary: summary!, context: context,
                  maximumMargin: maximumMargin)
    }

    /// Below this many regions the index is built on the calling thread.
    static let parallelBuildThreshold = 8_192

    /// What preparing one run of slots gives besides their entries.
    struct BuildPart {
        var polygons: [PolygonEntry] = []
        /// The slots of ``polygons``, in order (their entries number them from 0).
        var polygonSlots: [Int32] = []
        var invalid: [RegionIndexError] = []
        var cells: [CellPair] = []
        /// Bit L set: some region is stored at grid level L.
        var levels: UInt32 = 0

        /// Prepares `slots`, initializing their elements of `entries`.
        mutating func prepare(_ slots: Range<Int>, into entries: UnsafeMutableBufferPointer<Entry>, margin: Double,
                              context: GEOSContext?, validated: Bool = false, region: (Int) -> Region) {
            let placeholder = Entry(latitude: 0, longitude: 0, radius: 0, plane: LocalPlane(latitude: 0), polygon: -1, kind: .invalid)
            cells.reserveCapacity(slots.count * 3)
            for i in slots {
                let slot = Int32(truncatingIfNeeded: i)
                do throws(RegionIndexError) {
                    let (entry, box) = try RegionIndex.prepare(region(i), slot: slot, margin: margin, context: context,
                                                               validated: validated, polygons: &polygons)
                    (entries.baseAddress! + i).initialize(to: entry)
                    if entry.kind == .polygon { polygonSlots.append(slot) }
                    let level = RegionIndex.addCells(box, slot: slot, maximumCells: entry.kind == .polygon ? RegionIndex.maximumCellsPerPolygon : RegionIndex.maximumCellsPerRegion, to: &cells)
                    levels |= 1 << UInt32(level)
                } catch {
                    (entries.baseAddress! + i).initialize(to: placeholder)
                    invalid.append(error)
                }
            }
            // Sorted here, on this part's thread (see `mergeSortedRuns`).
            RegionIndex.radixSortByKey(&cells)
        }
    }

    /// A bounding box in degrees; `minLon...maxLon` may extend past 180 (it wraps).
    struct Box {
        var minLat, maxLat, minLon, maxLon: Double
        var allLongitudes: Bool
    }

    static func prepare(_ region: Region, slot: Int32, margin: Double, context: GEOSContext?, validated: Bool = false,
                                polygons: inout [PolygonEntry]) throws(RegionIndexError) -> (Entry, Box) {
        switch region {
        case .circular(let c):
            let lat = c.center.latitude, lon = c.center.longitude, r = c.radius
            guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw RegionIndexError(slot: slot, reason: "center (\(lat), \(lon)) is not a valid latitude/longitude")
            }
            guard r.isFinite, r > 0, r <= RequestLimits.maximumRadius else {
                throw RegionIndexError(slot: slot, reason: "radius must be > 0 and <= 1000000 metres, not \(r)")
            }
            let fast = r <= LocalPlane.maximumRadius && abs(lat) <= LocalPlane.maximumLatitude
            let entry = Entry(latitude: lat, longitude: lon, radius: r, plane: LocalPlane(latitude: lat),
                              polygon: -1, kind: fast ? .planeCircle : .exactCircle)
            return (entry, circleBox(latitude: lat, longitude: lon, radius: r + margin))
        case .polygon(let p):
            guard let context else { throw RegionIndexError(slot: slot, reason: "GEOS could not be initialised") }
            return try preparePolygon(p, slot: slot, context: context, validated: validated, polygons: &polygons)
        }
    }

    /// A box that surely holds every point within `radius` metres of the centre: along any
    /// path of length s, |Δφ| <= s / M_min (M_min = a(1-e²), the smallest meridional radius)
    /// and |Δλ| <= s / (a cos φ_max) (N >= a), with φ_max the box's largest |latitude|.
    static func circleBox(latitude: Double, longitude: Double, radius: Double) -> Box {
        let a = Geodesic.equatorialRadius, deg = Geodesic.degree
        let dLat = radius / (a * (1 - Geodesic.e2)) / deg * 1.000001 + boxPadding
        let minLat = latitude - dLat, maxLat = latitude + dLat
        if minLat <= -90 || maxLat >= 90 {
            // The circle contains a pole: every longitude.
            return Box(minLat: max(-90, minLat), maxLat: min(90, maxLat), minLon: -180, maxLon: 180, allLongitudes: true)
        }
        let cosMax = cos(max(abs(minLat), abs(maxLat)) * deg)
        let dLon = radius / (a * cosMax) / deg * 1.000001 + boxPadding
        if dLon >= 180 {
            return Box(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180, allLongitudes: true)
        }
        return Box(minLat: minLat, maxLat: maxLat, minLon: longitude - dLon, maxLon: longitude + dLon, allLongitudes: false)
    }

    /// Cell indices share this one formula at build and query time, so that a point inside a
    /// box always falls in one of the box's cells (floating-point multiplication is monotonic).
    @inline(__always)
    static func cellIndex(_ value: Double, scale: Double) -> Int {
        Int((value * scale).rounded(.down))
    }

    @inline(__always)
    static func cellKey(level: Int, ix: Int, iy: Int) -> UInt64 {
        UInt64(level) << 52 | UInt64(iy) << 26 | UInt64(ix)
    }

    /// Adds the (key, slot) pairs of the box's cells at the finest level where it touches at
    /// most `maximumCells` cells (or, at ``wideCircleLevel``, 16); returns that level.
    static func addCells(_ box: Box, slot: Int32, maximumCells: Int, to cells: inout [(key: UInt64, slot: Int32)]) -> Int {
        let span = max(box.maxLat - box.minLat, box.allLongitudes ? 360 : box.maxLon - box.minLon)
        var level = min(maximumLevel, max(0, Int(log2(360 / max(span, 1e-12))) + 1))
        while true {
            let scale = Double(1 << level) / 360, n = 1 << level
            // Clamped to the grid's rows: a box padded past a pole (a polygon touching -90)
            // would otherwise give row -1 (and a trap building its key).
            let iy0 = max(0, cellIndex(box.minLat + 90, scale: scale)), iy1 = min(n / 2, cellIndex(box.maxLat + 90, scale: scale))
            let ix0 = box.allLongitudes ? 0 : cellIndex(box.minLon + 180, scale: scale)
            let nx = box.allLongitudes ? n : min(n, cellIndex(box.maxLon + 180, scale: scale) - ix0 + 1)
            // Only even levels (cells grow 4x per step): fewer levels means fewer hash probes
            // per query, for a few more candidates.
            let touched = nx * (iy1 - iy0 + 1)
            if level % 2 == 0 && (touched <= maximumCells || level == Self.wideCircleLevel && touched <= Self.maximumCellsPerPolygon) || level == 0 {
                for iy in iy0...iy1 {
                    for k in 0..<nx {
                        // Wrapping across the antimeridian: indices are taken modulo 2^L.
                        let ix = (ix0 + k) & (n - 1)
                        cells.append((cellKey(level: level, ix: ix, iy: iy), slot))
                    }
                }
                return level
            }
            level -= 1
        }
    }
}
