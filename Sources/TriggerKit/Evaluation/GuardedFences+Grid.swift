import Foundation

/// Where the fences with rules are: a hashed grid of square cells over their widened bounding
/// boxes, so a fix looks at the fences of one cell (and a path between two fixes at those of
/// the cells its box meets) instead of all of them. A box that spans more cells than
/// ``maximumCells`` (a large fence, or one around a pole) goes to a short list every lookup
/// reads.
///
/// The cells are as fine as memory allows: 0.005 degrees (about 550 m) while the fences need
/// at most ``entriesPerFence`` (fence, cell) entries each on average (and ``maximumEntries``
/// in all), else 0.01, else 0.02 (about 2 km), whatever that costs. Finer cells hand a fix
/// fewer fences to look at (10,000 metro circles of 50-2,000 m: ~20 instead of ~55, 24-37 %
/// less time for their rules, Benchmarks/RESULTS.md).
///
/// Memory: 4 bytes per entry plus a table slot (16 bytes, at most 3/4 of the slots used) per
/// non-empty cell, so at a finer size at most ~1.7 KB per fence (fences that share cells
/// much less); a 0.02-degree grid takes what it needs.
struct FenceGrid {
    /// Cell sizes (degrees) tried, finest first; the last is taken whatever it costs.
    static let cellChoices = [0.005, 0.01, 0.02]
    /// The entries a finer grid may hold: per fence on average, and in all (16 MB of slots).
    static let entriesPerFence = 64
    static let maximumEntries = 4_000_000
    /// A fence's box over more cells than this (a box of ~0.16 degrees) goes to the list
    /// every lookup reads; a path's box over more than ``maximumPathCells`` makes its lookup
    /// read every fence. Both in cells of this size, scaled to the grid's.
    private static let referenceCell = 0.02
    private static let referenceMaximumCells = 64
    private static let referenceMaximumPathCells = 256

    let cellDegrees: Double
    let columns: Int
    let maximumCells: Int
    let maximumPathCells: Int
    /// Per non-empty cell, where its fences are in ``slots`` (one flat array: a lookup
    /// counts no references, where a dictionary of arrays retained the list it returned).
    private var cells: [Int: (start: Int32, count: Int32)] = [:]
    private var slots: [Int32] = []
    /// Fences appended after the build (``add(_:box:)``), by cell: each cell's list follows
    /// its built one, and every appended fence's slot is above the built ones, so a cell's
    /// fences stay ascending.
    private var appended: [Int: [Int32]] = [:]
    private(set) var large: [Int32] = []
    /// (fence, cell) entries held.
    private(set) var storedSlots = 0

    init(boxes: [(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)],
         cellChoices: [Double] = FenceGrid.cellChoices, entryBudget: Int? = nil) {
        let budget = entryBudget ?? min(Self.maximumEntries, Self.entriesPerFence * boxes.count)
        var chosen = cellChoices.last ?? Self.referenceCell
        for c in cellChoices.dropLast() where Self.entries(boxes, cell: c) <= budget {
            chosen = c
            break
        }
        cellDegrees = chosen
        columns = Int((360 / chosen).rounded())
        maximumCells = Self.scaled(Self.referenceMaximumCells, to: chosen)
        maximumPathCells = Self.scaled(Self.referenceMaximumPathCells, to: chosen)
        var lists: [Int: [Int32]] = [:]
        for (f, b) in boxes.enumerated() {
            guard let (rows, cols) = Self.cells(of: b, cell: chosen, limit: maximumCells) else {
                large.append(Int32(f))
                continue
            }
            for y in rows {
                for x in cols {
                    lists[key(x, y), default: []].append(Int32(f))
                    storedSlots += 1
                }
            }
        }
        slots.reserveCapacity(storedSlots)
        cells.reserveCapacity(lists.count)
        for (k, list) in lists {
            cells[k] = (Int32(slots.count), Int32(list.count))
            slots.append(contentsOf: list)
        }
    }

    /// The (fence, cell) entries a grid of `cell`-degree cells would hold.
    private static func entries(_ boxes: [(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)],
                                cell: Double) -> Int {
        let limit = scaled(referenceMaximumCells, to: cell)
        var total = 0
        for b in boxes {
            if let (rows, cols) = cells(of: b, cell: cell, limit: limit) { total += rows.count * cols.count }
        }
        return total
    }

    /// The rows and (unwrapped) columns of `cell`-degree cells a box meets; nil when they are
    /// more than `limit` or the box goes all the way round (the box is then a large one).
    private static func cells(of b: (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double),
                              cell: Double, limit: Int) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>)? {
        let rows = row(b.minLatitude, cell: cell)...row(b.maxLatitude, cell: cell)
        let cols = column(b.minLongitude, cell: cell)...column(b.maxLongitude, cell: cell)
        guard b.maxLongitude - b.minLongitude < 360, rows.count * cols.count <= limit else { return nil }
        return (rows, cols)
    }

    /// A limit in reference cells, in cells of `cell` degrees (the same area).
    private static func scaled(_ n: Int, to cell: Double) -> Int {
        let scale = referenceCell / cell
        return Int((Double(n) * scale * scale).rounded())
    }

    @inline(__always) static func row(_ latitude: Double, cell: Double) -> Int {
        Int(((min(90, max(-90, latitude)) + 90) / cell).rounded(.down))
    }

    /// A column before wrapping (longitudes beyond +-180 give columns outside the range).
    @inline(__always) static func column(_ longitude: Double, cell: Double) -> Int {
        Int(((min(900, max(-900, longitude)) + 180) / cell).rounded(.down))
    }

    @inline(__always) func row(_ latitude: Double) -> Int { Self.row(latitude, cell: cellDegrees) }
    @inline(__always) func column(_ longitude: Double) -> Int { Self.column(longitude, cell: cellDegrees) }

    @inline(__always) func key(_ x: Int, _ y: Int) -> Int {
        let wrapped = ((x % columns) + columns) % columns
        return y &* columns &+ wrapped
    }

    /// Adds fence `f` (above every fence held) with its widened box, in the cells the build
    /// would have put it in (or the large list): O(cells of its box), at most ``maximumCells``.
    mutating func add(_ f: Int32, box b: (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)) {
        guard let (rows, cols) = Self.cells(of: b, cell: cellDegrees, limit: maximumCells) else {
            large.append(f)
            return
        }
        for y in rows {
            for x in cols {
                appended[key(x, y), default: []].append(f)
                storedSlots += 1
            }
        }
    }

    /// Appends the fences whose cell holds the point (longitude in [-180, 180]), and the
    /// large ones.
    func collect(latitude: Double, longitude: Double, into out: inout [Int32]) {
        out.append(contentsOf: large)
        let k = key(column(longitude), row(latitude))
        if let c = cells[k] { append(c, to: &out) }
        if !appended.isEmpty, let more = appended[k] { out.append(contentsOf: more) }
    }

    /// The cell key of a point (longitude in [-180, 180]).
    func key(latitude: Double, longitude: Double) -> Int { key(column(longitude), row(latitude)) }

    /// Appends the fences of every cell a box meets (longitudes unwrapped), and the large
    /// ones; appends nothing when the box lies in the single cell `already` (its fences are
    /// in `out`). Returns false, appending nothing, when the box meets more than
    /// ``maximumPathCells`` cells (the caller then reads every fence).
    func collect(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double,
                 besides already: Int, into out: inout [Int32]) -> Bool {
        let (y0, y1) = (row(minLatitude), row(maxLatitude))
        let (x0, x1) = (column(minLongitude), column(maxLongitude))
        guard maxLongitude - minLongitude < 360, (y1 - y0 + 1) * (x1 - x0 + 1) <= maximumPathCells else { return false }
        if y0 == y1 && x0 == x1 && key(x0, y0) == already { return true }
        out.append(contentsOf: large)
        for y in y0...y1 {
            for x in x0...x1 {
                let k = key(x, y)
                if let c = cells[k] { append(c, to: &out) }
                if !appended.isEmpty, let more = appended[k] { out.append(contentsOf: more) }
            }
        }
        return true
    }

    /// The same grid in storage of its own (a lookahead's copy reads it on another thread:
    /// shared buffers would have both threads count references on one cache line).
    func copied() -> FenceGrid {
        var g = self
        g.cells = Dictionary(uniqueKeysWithValues: cells.map { ($0.key, $0.value) })
        g.slots = slots.map { $0 }
        g.appended = Dictionary(uniqueKeysWithValues: appended.map { ($0.key, $0.value.map { $0 }) })
        g.large = large.map { $0 }
        return g
    }

    /// Appends a cell's fences (ascending).
    @inline(__always)
    private func append(_ c: (start: Int32, count: Int32), to out: inout [Int32]) {
        slots.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[Int(c.start)..<Int(c.start + c.count)])) }
    }
}
