import Foundation

/// Where the fences with rules are: a hashed grid of 0.02-degree cells (about 2 km) over
/// their widened bounding boxes, so a fix looks at the fences of one cell (and a path
/// between two fixes at those of the cells its box meets) instead of all of them. A box
/// that spans more than ``maximumCells`` cells (a large fence, or one around a pole) goes to
/// a short list every lookup reads.
struct FenceGrid {
    static let cellDegrees = 0.02
    static let columns = Int((360 / cellDegrees).rounded())
    static let maximumCells = 64
    /// Most cells a path's box may meet before its lookup reads every fence instead.
    static let maximumPathCells = 256

    private var cells: [Int: [Int32]] = [:]
    private(set) var large: [Int32] = []
    /// Bytes held (slot lists and table), for the memory accounting.
    var storedSlots = 0

    init(boxes: [(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double)]) {
        for (f, b) in boxes.enumerated() {
            let (y0, y1) = (Self.row(b.minLatitude), Self.row(b.maxLatitude))
            let (x0, x1) = (Self.column(b.minLongitude), Self.column(b.maxLongitude))
            guard b.maxLongitude - b.minLongitude < 360, (y1 - y0 + 1) * (x1 - x0 + 1) <= Self.maximumCells else {
                large.append(Int32(f))
                continue
            }
            for y in y0...y1 {
                for x in x0...x1 {
                    cells[Self.key(x, y), default: []].append(Int32(f))
                    storedSlots += 1
                }
            }
        }
    }

    @inline(__always) static func row(_ latitude: Double) -> Int {
        Int(((min(90, max(-90, latitude)) + 90) / cellDegrees).rounded(.down))
    }

    /// A column before wrapping (longitudes beyond +-180 give columns outside the range).
    @inline(__always) static func column(_ longitude: Double) -> Int {
        Int(((min(900, max(-900, longitude)) + 180) / cellDegrees).rounded(.down))
    }

    @inline(__always) static func key(_ x: Int, _ y: Int) -> Int {
        let wrapped = ((x % columns) + columns) % columns
        return y &* columns &+ wrapped
    }

    /// Appends the fences whose cell holds the point (longitude in [-180, 180]), and the
    /// large ones.
    func collect(latitude: Double, longitude: Double, into out: inout [Int32]) {
        out.append(contentsOf: large)
        if let list = cells[Self.key(Self.column(longitude), Self.row(latitude))] { out.append(contentsOf: list) }
    }

    /// The cell key of a point (longitude in [-180, 180]).
    func key(latitude: Double, longitude: Double) -> Int { Self.key(Self.column(longitude), Self.row(latitude)) }

    /// Appends the fences of every cell a box meets (longitudes unwrapped), and the large
    /// ones; appends nothing when the box lies in the single cell `already` (its fences are
    /// in `out`). Returns false, appending nothing, when the box meets more than
    /// ``maximumPathCells`` cells (the caller then reads every fence).
    func collect(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double,
                 besides already: Int, into out: inout [Int32]) -> Bool {
        let (y0, y1) = (Self.row(minLatitude), Self.row(maxLatitude))
        let (x0, x1) = (Self.column(minLongitude), Self.column(maxLongitude))
        guard maxLongitude - minLongitude < 360, (y1 - y0 + 1) * (x1 - x0 + 1) <= Self.maximumPathCells else { return false }
        if y0 == y1 && x0 == x1 && Self.key(x0, y0) == already { return true }
        out.append(contentsOf: large)
        for y in y0...y1 {
            for x in x0...x1 {
                if let list = cells[Self.key(x, y)] { out.append(contentsOf: list) }
            }
        }
        return true
    }
}
