// A polygon's rings laid out for the native test: one allocation holding the coordinates,
// the ring ends and the edges listed by latitude band.

extension PlanarRings {
    /// The memory of one polygon's rings, in one allocation; ``rings`` points into it and is
    /// valid while it lives.
    final class Storage: @unchecked Sendable {
        // @unchecked: written in `init` only.
        private let base: UnsafeMutableRawPointer
        let rings: PlanarRings
        /// Per polygon, the end (exclusive) of its rings in ``PlanarRings/ringEnds``: what
        /// ``polygons`` rebuilds the polygons' structure from.
        private let polygonRingEnds: [Int32]

        /// `rings`: polygons, each a list of rings of points; rings are closed here if needed.
        init(_ rings: [[[(x: Double, y: Double)]]]) {
            let parts = PlanarRings.layout(rings)
            polygonRingEnds = parts.polygonRingEnds
            let doubles = parts.xs.count * 2, ints = parts.ringEnds.count + parts.bandStarts.count + parts.bandEdges.count
            base = .allocate(byteCount: Swift.max(8, doubles * 8 + ints * 4), alignment: 8)
            var at = base
            func place<T>(_ a: ContiguousArray<T>) -> UnsafeBufferPointer<T> {
                let p = at.bindMemory(to: T.self, capacity: a.count)
                _ = UnsafeMutableBufferPointer(start: p, count: a.count).initialize(from: a)
                at += a.count * MemoryLayout<T>.stride
                return UnsafeBufferPointer(start: p, count: a.count)
            }
            self.rings = PlanarRings(xs: place(parts.xs), ys: place(parts.ys), ringEnds: place(parts.ringEnds),
                                     bandStarts: place(parts.bandStarts), bandEdges: place(parts.bandEdges),
                                     minY: parts.minY, bandScale: parts.bandScale)
        }
        deinit { base.deallocate() }

        /// The polygons as given to ``init(_:)``, each ring closed (what GEOS is given when a
        /// polygon's prepared geometry is first needed; the same points for closed rings).
        var polygons: [[[(x: Double, y: Double)]]] {
            var out: [[[(x: Double, y: Double)]]] = []
            var ring = 0, start = 0
            for end in polygonRingEnds {
                var polygon: [[(x: Double, y: Double)]] = []
                while ring < Int(end) {
                    let stop = Int(rings.ringEnds[ring])
                    polygon.append((start..<stop).map { (rings.xs[$0], rings.ys[$0]) })
                    start = stop
                    ring += 1
                }
                out.append(polygon)
            }
            return out
        }
    }

    /// Edges listed per edge at most, over every band it spans.
    static let bandEntriesPerEdge = 8

    /// How many bands: about one per two edges, fewer where edges span many bands (long
    /// north-south edges: a comb's teeth, a star's spikes, strips side by side), so that the
    /// listing (each edge in every band it spans: about edges + bands x the edges' summed
    /// latitude spans / the height) holds at most ``bandEntriesPerEdge`` entries per edge.
    /// With a band per two edges whatever their spans, a comb of 64,000 teeth listed billions
    /// (7 GB for one of 16,000, and an Int32 overflow, a trap, past 2^31 entries; a helper's
    /// find). A comb loses nothing by fewer bands: every tooth crosses every band anyway.
    private static func bandCount(edges: [Int32], ys: ContiguousArray<Double>, height: Double) -> Int {
        let most = Swift.max(1, edges.count / 2)
        guard height > 0, height.isFinite else { return most }
        var spans = 0.0
        for k in edges { spans += Swift.abs(ys[Int(k) + 1] - ys[Int(k)]) }
        let room = Double(bandEntriesPerEdge - 1) * Double(edges.count) * height / spans
        guard spans > 0, room.isFinite else { return most }
        return Swift.max(1, Swift.min(most, Int(Swift.min(Double(most), room))))
    }

    /// The rings' arrays: coordinates, ring ends, and the edges listed by band.
    private static func layout(_ rings: [[[(x: Double, y: Double)]]])
        -> (xs: ContiguousArray<Double>, ys: ContiguousArray<Double>, ringEnds: ContiguousArray<Int32>,
            bandStarts: ContiguousArray<Int32>, bandEdges: ContiguousArray<Int32>, minY: Double, bandScale: Double,
            polygonRingEnds: [Int32]) {
        var xs = ContiguousArray<Double>(), ys = ContiguousArray<Double>(), ends = ContiguousArray<Int32>()
        // Room made once (a closing point per ring at most): grown point by point, a small
        // polygon's arrays were reallocated several times each.
        let ringCount = rings.reduce(0) { $0 + $1.count }
        let room = rings.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count + 1 } }
        xs.reserveCapacity(room)
        ys.reserveCapacity(room)
        ends.reserveCapacity(ringCount)
        var polygonRingEnds: [Int32] = []
        polygonRingEnds.reserveCapacity(rings.count)
        for polygon in rings {
            for ring in polygon where !ring.isEmpty {
                for p in ring {
                    xs.append(p.x)
                    ys.append(p.y)
                }
                if ring[0].x != ring[ring.count - 1].x || ring[0].y != ring[ring.count - 1].y {
                    xs.append(ring[0].x)
                    ys.append(ring[0].y)
                }
                ends.append(Int32(xs.count))
            }
            polygonRingEnds.append(Int32(ends.count))
        }
        // Edges, then the bands (``bandCount(edges:ys:height:)``).
        var edges: [Int32] = []
        edges.reserveCapacity(xs.count)
        var start = 0
        for end in ends {
            for k in start..<(Int(end) - 1) { edges.append(Int32(k)) }
            start = Int(end)
        }
        let lo = ys.min() ?? 0, hi = ys.max() ?? 0
        // The bands edge k spans.
        func bandsOf(_ k: Int32, _ scale: Double, _ bands: Int) -> ClosedRange<Int> {
            let (a, b) = (Self.band(ys[Int(k)], minY: lo, scale: scale, bands: bands),
                          Self.band(ys[Int(k) + 1], minY: lo, scale: scale, bands: bands))
            return Swift.min(a, b)...Swift.max(a, b)
        }
        var bands = Self.bandCount(edges: edges, ys: ys, height: hi - lo)
        var scale = 0.0
        while true {
            // A latitude extent so thin (subnormal) that its inverse overflows: scale 0
            // instead, which puts every edge in band 0.
            let inverse = Double(bands) / (hi - lo)
            scale = hi > lo && inverse.isFinite ? inverse : 0
            // The estimate is within a band per edge of the count: rarely over, then fewer bands.
            var entries = 0
            for k in edges { entries += bandsOf(k, scale, bands).count }
            if entries <= Self.bandEntriesPerEdge * Swift.max(1, edges.count) || bands == 1 { break }
            bands = Swift.max(1, bands / 2)
        }
        var counts = [Int](repeating: 0, count: bands + 1)
        for k in edges {
            for j in bandsOf(k, scale, bands) { counts[j + 1] += 1 }
        }
        for j in 0..<bands { counts[j + 1] += counts[j] }
        var fill = counts
        var listed = ContiguousArray<Int32>(repeating: 0, count: counts[bands])
        for k in edges {
            for j in bandsOf(k, scale, bands) {
                listed[fill[j]] = k
                fill[j] += 1
            }
        }
        return (xs, ys, ends, ContiguousArray(counts.map { Int32($0) }), listed, lo, scale, polygonRingEnds)
    }
}
