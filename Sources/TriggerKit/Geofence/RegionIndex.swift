import Foundation

/// One region found by ``RegionIndex/query(latitude:longitude:margin:into:)``.
@_spi(Engine) public struct RegionHit: Sendable, Hashable {
    /// Index of the region in the array the index was built from.
    public var slot: Int32
    /// Distance <= radius - margin: inside even by the entry rule of `--margin`.
    /// Polygons have no margin: always true.
    public var inner: Bool
    /// Distance <= radius (plain containment). Polygons: always true.
    public var contains: Bool

    public init(slot: Int32, inner: Bool, contains: Bool) {
        self.slot = slot
        self.inner = inner
        self.contains = contains
    }
}

/// A region the index could not accept (contract code `invalidRegion`); the other regions
/// are indexed regardless.
@_spi(Engine) public struct RegionIndexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Index of the region in the input array.
    public var slot: Int32
    public var reason: String
    public var description: String { "region \(slot): invalidRegion: \(reason)" }
}

/// All regions of a requests file, indexed for "which regions contain this fix".
///
/// Built once from an array of regions; a region is named by its slot (its index in that
/// array). Circles are decided on the WGS84 ellipsoid within 1 cm of GeographicLib (flat-plane
/// fast test with a proven error bound, exact geodesic near the boundary); polygons by GEOS
/// prepared geometries (`covers`: the boundary counts as inside).
///
/// The spatial index is a hierarchical hashed grid in degrees: level L has square cells of
/// 360/2^L degrees; each region is stored in the cells of the finest even level where its
/// (conservative) bounding box touches at most 4 cells (a polygon: 16; a circle that would
/// land coarser than level 14: 16 at level 14), so it is stored in 1-16 cells and a query reads
/// one cell per non-empty level. For circles 16 cells met
/// fewer candidates but made no measurable difference with device neighbourhoods (before tiles), and cost
/// 15 % more memory and a third more build time at 1M regions; a polygon's exact test is
/// dearer, and there 16 cells save a quarter of the time. Bounding boxes wrap across the antimeridian and
/// cover every longitude when a circle contains a pole. Cell coverage is computed directly
/// from the boxes at build time: no lazily filled cells, so a query never allocates and
/// memory does not grow with the number of distinct places queried.
///
/// Memory: about 72 bytes per region plus 4 bytes per (region, cell) and a hash table of
/// 16 bytes per bucket at load <= 3/4 (Benchmarks/RESULTS.md has the measured bytes per
/// request). Polygons add their rings (16 bytes per vertex and a few per edge for the bands);
/// GEOS's geometry and prepared index (~4 KB for 64 vertices) only for a polygon a fix came
/// within rounding of.
/// A large index is built on every core (a GEOS context per part).
///
/// Not `Sendable`. Queries only read the index, and the few GEOS calls they make (a polygon
/// test within rounding of an edge) take ``geosLock``, so two threads may query at once (the
/// `run` command's reader and evaluator do); nothing may query while regions are appended.
/// Its stored arrays opt out of Swift's dynamic exclusivity checks
/// (`@exclusivity(unchecked)`): they cost a runtime call per read of a class property in the
/// query loops, and queries never write them.
@_spi(Engine) public final class RegionIndex {
    /// Number of slots (the input array's count, plus regions appended since).
    public internal(set) var count: Int
    /// Regions that were rejected, by slot, in slot order; their slots never match.
    public let invalid: [RegionIndexError]
    /// The largest margin queries honour (metres); see ``init(regions:maximumMargin:)``.
    public let maximumMargin: Double

    @exclusivity(unchecked) var entries: [Entry]
    @exclusivity(unchecked) var polygons: [PolygonEntry]
    @exclusivity(unchecked) var grid: CellTable
    /// Levels holding at least one region, with their cell-index scale (2^L / 360).
    @exclusivity(unchecked) var levels: [(level: Int, scale: Double)]
    /// Which levels have regions near a place (see ``LevelSummary``).
    @exclusivity(unchecked) var summary: LevelSummary
    /// Cells of regions appended after the build (``append(_:)``), slots ascending per cell:
    /// all above the built slots, so a level's built run then its overlay run stay in slot
    /// order. Emptied by rebuilding (the live center's compaction).
    @exclusivity(unchecked) var overlay: [UInt64: [Int32]] = [:]
    let context: GEOSContext?
    /// GEOS failures during queries (each treated as "not covered"); should stay 0.
    public private(set) var geosFailures = 0

    /// Per-slot data for the exact test, 72 bytes.
    struct Entry {
        var latitude: Double
        var longitude: Double
        var radius: Double
        var plane: LocalPlane
        var polygon: Int32
        var kind: Kind
    }

    enum Kind: UInt8 {
        /// Circle decided on the local plane (exact geodesic near the boundary).
        case planeCircle
        /// Circle decided by a haversine bracket then the exact geodesic.
        case exactCircle
        case polygon
        case invalid
    }

    struct PolygonEntry {
        /// The rings for the native test (GEOS decides only where it is uncertain), and their
        /// memory (kept apart: the tests read ``rings`` and touch no reference count).
        var rings: PlanarRings
        var ringStorage: PlanarRings.Storage
        /// Bounding box in the polygon's own frame (longitudes in [0, 360] when shifted).
        var minX, maxX, minY, maxY: Double
        /// Some polygon had its negative longitudes shifted by +360 (it crosses the
        /// antimeridian): test fixes at lon + 360 too.
        var shifted: Bool
    }

    init(count: Int, invalid: [RegionIndexError], entries: [Entry], polygons: [PolygonEntry],
         grid: CellTable, levels: [(level: Int, scale: Double)], summary: LevelSummary, context: GEOSContext?, maximumMargin: Double) {
        self.summary = summary
        self.maximumMargin = maximumMargin
        self.count = count
        self.invalid = invalid
        self.entries = entries
        self.polygons = polygons
        self.grid = grid
        self.levels = levels
        self.context = context
    }

    /// Serializes the GEOS calls of queries (GEOS contexts serve one thread at a time); taken
    /// only for a polygon test within rounding of an edge, and to free its points.
    let geosLock = NSLock()

    /// The GEOS prepared geometries of the polygons a test has needed so far, by polygon
    /// (see ``preparedPolygon(_:)``); read and written under ``geosLock`` only.
    private var prepared: [Int32: GEOSPreparedGeometry] = [:]

    /// How many polygons have had their prepared geometry made (for tests).
    var preparedPolygonCount: Int {
        geosLock.lock()
        defer { geosLock.unlock() }
        return prepared.count
    }

    /// Polygon `i`'s GEOS prepared geometry, made from its rings the first time a fix lies
    /// within rounding of one of its edges (the only test GEOS decides). Made at load for
    /// every polygon, with its index warmed, they were a fifth of loading 100,000 polygons
    /// and 650 bytes each, for a test that almost never comes. Call under ``geosLock``.
    ///
    /// - Complexity: O(v log v) for v vertices the first time, O(1) after.
    func preparedPolygon(_ i: Int) throws(GEOSError) -> GEOSPreparedGeometry {
        if let made = prepared[Int32(i)] { return made }
        guard let context else { throw GEOSError(message: "GEOS could not be initialised") }
        let storage = polygons[i].ringStorage
        // (A polygon with no point has no edge a fix could be uncertain about.)
        guard let x = storage.rings.xs.first, let y = storage.rings.ys.first else {
            throw GEOSError(message: "a polygon without points")
        }
        let made = try GEOSPreparedGeometry(try context.multiPolygon(storage.polygons), warmAt: (x, y))
        prepared[Int32(i)] = made
        return made
    }

    func markGEOSFailure() { geosFailures += 1 }

    /// Frees the GEOS points a query made, if any, under ``geosLock``.
    @inline(__always)
    func release(_ points: inout FixPoints) {
        guard points.holdsGEOS else { return }
        geosLock.lock()
        defer { geosLock.unlock() }
        points.release(context)
    }
}

@_spi(Engine) extension RegionIndex {
    /// Bytes held by the index's own arrays (per-slot entries, grid table and slot runs,
    /// 2 MB level summary);
    /// excludes GEOS's memory for polygons (~4 KB per prepared 64-gon).
    ///
    /// - Complexity: O(1).
    public var memoryBytes: Int {
        entries.capacity * MemoryLayout<Entry>.stride + grid.memoryBytes
            + polygons.capacity * MemoryLayout<PolygonEntry>.stride + summary.masks.capacity * 4
    }
}

@_spi(Engine) extension RegionIndex {
    /// Grid shape, for tuning and benchmarks: levels in use, cells, stored (region, cell) pairs.
    public var gridDescription: String {
        "levels \(levels.map(\.level)), buckets \(grid.buckets.count), slots \(grid.slots.count)"
    }
}
