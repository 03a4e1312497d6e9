import Foundation

// The edges of a large polygon fence by place, for the two questions a crossings check asks
// of them: which edges may a 10 m chord of a path touch, and how far is a fix from the
// nearest edge.

extension GuardedFences {
    /// A polygon fence's edges in a uniform grid over the rings' bounding box, each edge
    /// listed in every cell its bounding box meets. A chord of a path (``polygonRange``) reads
    /// the edges of the cells its box meets, and ``boundaryDistance(_:latitude:longitude:)``
    /// the cells in widening squares around the fix until no unread cell can hold a nearer
    /// edge, instead of every edge each time (chords x vertices: ~1 s per fix for a
    /// 100,000-vertex fence ~33 km across, fixes ~99 km apart).
    ///
    /// Answers are exactly the plain loops': a chord is tested against every edge whose box
    /// meets its own (the cell function is monotone, so the cells of two boxes that meet
    /// overlap), and the plain loop tests no other (``chordContact``); the nearest edge's
    /// nearest point lies in a cell the square search reads before its bound (with 1 µm of
    /// slack for rounding, which is ~1e-8 m) can stop it.
    ///
    /// Built once with the rings, never during evaluation (a lookahead's copy reads it from
    /// the other thread), for fences of at least ``minimumVertices`` vertices. About 2 cells
    /// per vertex (at most ``maximumCells``), as square in degrees as the box allows, and
    /// coarsened 4x while the grid would need more than ``entriesPerEdge`` entries per edge
    /// (long edges, combs). Memory: the rings again as flat coordinates (16 bytes per vertex),
    /// 4 bytes per cell and 4 per (edge, cell) entry: at most 16 + 8 + 16 = 40 bytes per
    /// vertex (a 100,000-vertex ring of 2 m edges: ~25 bytes).
    ///
    /// Lookups: a chord O(edges in the cells its box meets), a few dozen at 100,000 vertices;
    /// a distance O(cells within the nearest edge's distance, plus their edges).
    struct EdgeIndex {
        /// Below this the plain loop over the edges (with its box test, ~1 ns an edge) costs a
        /// chord well under the ~100 ns of finding its end on the geodesic: an index would
        /// save nothing worth its memory.
        static let minimumVertices = 64
        static let cellsPerVertex = 2
        static let maximumCells = 1 << 21
        static let entriesPerEdge = 4

        /// The rings' vertices, one after another; edge e joins vertices `edges[e]` and
        /// `edges[e] + 1` (of the same ring).
        let xs: [Double]
        let ys: [Double]
        let minX: Double, maxX: Double, minY: Double, maxY: Double
        let columns: Int, rows: Int
        /// Cells per degree (0 along an axis the rings do not extend in: one cell).
        let scaleX: Double, scaleY: Double
        /// Cell (column, row) lists the first vertices of its edges at
        /// `cellEdges[cellStarts[row * columns + column] ..< cellStarts[... + 1]]`.
        let cellStarts: [Int32]
        let cellEdges: [Int32]

        init(rings: [[(x: Double, y: Double)]]) {
            var xs: [Double] = [], ys: [Double] = [], edges: [Int32] = []
            for ring in rings {
                let base = xs.count
                for p in ring {
                    xs.append(p.x)
                    ys.append(p.y)
                }
                if ring.count >= 2 { edges += (base..<xs.count - 1).map { Int32($0) } }
            }
            (self.xs, self.ys) = (xs, ys)
            (minX, maxX) = (xs.min() ?? 0, xs.max() ?? 0)
            (minY, maxY) = (ys.min() ?? 0, ys.max() ?? 0)
            let w = maxX - minX, h = maxY - minY
            var target = max(1, min(Self.maximumCells, Self.cellsPerVertex * xs.count))
            var columns = 1, rows = 1
            while true {
                columns = w > 0 ? Int(min(Double(target), max(1, (Double(target) * w / max(h, 1e-300)).squareRoot().rounded()))) : 1
                rows = h > 0 ? max(1, target / columns) : 1
                let (sx, sy) = (w > 0 ? Double(columns) / w : 0, h > 0 ? Double(rows) / h : 0)
                var entries = 0
                for k in edges {
                    let (c, r) = Self.span(Int(k), xs, ys, minX, sx, columns, minY, sy, rows)
                    entries += c.count * r.count
                }
                if entries <= Self.entriesPerEdge * max(1, edges.count) || target == 1 { break }
                target = max(1, target / 4)
            }
            (self.columns, self.rows) = (columns, rows)
            (scaleX, scaleY) = (w > 0 ? Double(columns) / w : 0, h > 0 ? Double(rows) / h : 0)
            // Counting sort of the (cell, edge) entries: count, prefix sums, fill.
            var starts = [Int32](repeating: 0, count: columns * rows + 1)
            for k in edges {
                let (c, r) = Self.span(Int(k), xs, ys, minX, scaleX, columns, minY, scaleY, rows)
                for j in r { for i in c { starts[j * columns + i + 1] += 1 } }
            }
            for i in 1..<starts.count { starts[i] += starts[i - 1] }
            var fill = starts
            var list = [Int32](repeating: 0, count: Int(starts[starts.count - 1]))
            for k in edges {
                let (c, r) = Self.span(Int(k), xs, ys, minX, scaleX, columns, minY, scaleY, rows)
                for j in r {
                    for i in c {
                        list[Int(fill[j * columns + i])] = k
                        fill[j * columns + i] += 1
                    }
                }
            }
            (cellStarts, cellEdges) = (starts, list)
        }

        /// A copy in storage of its own (a lookahead reads it from another thread).
        func copied() -> EdgeIndex {
            EdgeIndex(xs: xs.map { $0 }, ys: ys.map { $0 }, minX: minX, maxX: maxX, minY: minY, maxY: maxY,
                      columns: columns, rows: rows, scaleX: scaleX, scaleY: scaleY,
                      cellStarts: cellStarts.map { $0 }, cellEdges: cellEdges.map { $0 })
        }

        private init(xs: [Double], ys: [Double], minX: Double, maxX: Double, minY: Double, maxY: Double, columns: Int, rows: Int,
                     scaleX: Double, scaleY: Double, cellStarts: [Int32], cellEdges: [Int32]) {
            (self.xs, self.ys, self.minX, self.maxX, self.minY, self.maxY) = (xs, ys, minX, maxX, minY, maxY)
            (self.columns, self.rows, self.scaleX, self.scaleY) = (columns, rows, scaleX, scaleY)
            (self.cellStarts, self.cellEdges) = (cellStarts, cellEdges)
        }

        /// The cell of coordinate `v`: floor((v - lo) * scale) clamped to 0..<count, monotone
        /// in `v` (clamped as a double first: far points give products beyond Int's range).
        @inline(__always)
        static func cell(_ v: Double, _ lo: Double, _ scale: Double, _ count: Int) -> Int {
            let c = ((v - lo) * scale).rounded(.down)
            guard c > 0 else { return 0 }
            return c >= Double(count - 1) ? count - 1 : Int(c)
        }

        /// The columns and rows of the cells edge `k`'s box meets.
        private static func span(_ k: Int, _ xs: [Double], _ ys: [Double], _ minX: Double, _ sx: Double, _ columns: Int,
                                 _ minY: Double, _ sy: Double, _ rows: Int) -> (ClosedRange<Int>, ClosedRange<Int>) {
            (cell(min(xs[k], xs[k + 1]), minX, sx, columns)...cell(max(xs[k], xs[k + 1]), minX, sx, columns),
             cell(min(ys[k], ys[k + 1]), minY, sy, rows)...cell(max(ys[k], ys[k + 1]), minY, sy, rows))
        }

        /// Calls `body` with the ends of every edge whose box meets the box `x0...x1` x
        /// `y0...y1` (and of others in the same cells; an edge in several cells comes once per
        /// cell).
        @inline(__always)
        func forEachEdge(_ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double,
                         _ body: (Double, Double, Double, Double) -> Void) {
            // Every edge's box is inside the rings' box.
            guard x1 >= minX, x0 <= maxX, y1 >= minY, y0 <= maxY else { return }
            let c0 = Self.cell(x0, minX, scaleX, columns), c1 = Self.cell(x1, minX, scaleX, columns)
            let r0 = Self.cell(y0, minY, scaleY, rows), r1 = Self.cell(y1, minY, scaleY, rows)
            for r in r0...r1 {
                for e in Int(cellStarts[r * columns + c0])..<Int(cellStarts[r * columns + c1 + 1]) {
                    let k = Int(cellEdges[e])
                    body(xs[k], ys[k], xs[k + 1], ys[k + 1])
                }
            }
        }

        /// The smallest of `distance(edge's two ends)` over every edge, where `distance` is
        /// ``GuardedFences/edgeDistance`` at (`latitude`, `longitude`) on `plane`, when it is at
        /// most `limit`; otherwise some value above `limit` (the search stops once no unread
        /// cell can hold an edge within it: from inside a large round hole, the exact nearest
        /// edge would read most of the hole's edges). nil when the rings' longitudes are not
        /// all on one side of the fix's unwrap seam (180 degrees away), where the local plane
        /// is not one affine image of the grid.
        func nearestDistance(latitude: Double, longitude: Double, plane: LocalPlane, within limit: Double = .infinity,
                             _ distance: (Double, Double, Double, Double) -> Double) -> Double? {
            // Which way unwrapping (``Geodesic/unwrapDegrees(_:)``) moves every vertex.
            func branch(_ d: Double) -> Double? {
                if d >= -180 && d <= 180 { return 0 }
                if d > 180 && d < 540 { return 360 }
                if d < -180 && d > -540 { return -360 }
                return nil
            }
            guard let shift = branch(minX - longitude), branch(maxX - longitude) == shift else { return nil }
            let kx = plane.kLon, ky = plane.kLat
            let qx = longitude + shift, qy = latitude
            // Q' (the fix clamped into the box) splits any distance from the fix to a point in
            // the box: d^2 >= |Q - Q'|^2 + |Q' - P|^2, axis by axis.
            let cx = min(max(qx, minX), maxX), cy = min(max(qy, minY), maxY)
            let outside = ((qx - cx) * kx) * ((qx - cx) * kx) + ((qy - cy) * ky) * ((qy - cy) * ky)
            let ci = Self.cell(cx, minX, scaleX, columns), cj = Self.cell(cy, minY, scaleY, rows)
            var best = Double.infinity
            var r = 0
            while true {
                let i0 = ci - r, i1 = ci + r, j0 = cj - r, j1 = cj + r
                func read(_ c: Int) {
                    for e in Int(cellStarts[c])..<Int(cellStarts[c + 1]) {
                        let k = Int(cellEdges[e])
                        best = min(best, distance(xs[k], ys[k], xs[k + 1], ys[k + 1]))
                    }
                }
                // The square's border: its top and bottom rows whole, the rows between only
                // at their two ends (the inside was read at smaller r).
                for j in max(0, j0)...min(rows - 1, j1) {
                    if j == j0 || j == j1 {
                        for i in max(0, i0)...min(columns - 1, i1) { read(j * columns + i) }
                    } else {
                        if i0 >= 0 { read(j * columns + i0) }
                        if i1 < columns { read(j * columns + i1) }
                    }
                }
                // Every cell outside this square is at least `gap` beyond Q' along one axis.
                var gap = Double.infinity
                if i0 > 0 { gap = min(gap, (cx - (minX + Double(i0) / scaleX)) * kx) }
                if i1 < columns - 1 { gap = min(gap, (minX + Double(i1 + 1) / scaleX - cx) * kx) }
                if j0 > 0 { gap = min(gap, (cy - (minY + Double(j0) / scaleY)) * ky) }
                if j1 < rows - 1 { gap = min(gap, (minY + Double(j1 + 1) / scaleY - cy) * ky) }
                guard gap < .infinity else { return best }
                let g = max(0, gap)
                if (outside + g * g).squareRoot() > min(best, limit) * (1 + 1e-9) + 1e-6 { return best }
                r += 1
            }
        }
    }
}
