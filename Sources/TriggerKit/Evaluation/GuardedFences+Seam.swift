// The boundary of a polygon split at the antimeridian, without the split.

extension GuardedFences {
    /// `rings` (flat (longitude, latitude) rings of one polygon fence) as the polylines of its
    /// boundary: where its rings meet across the 180th meridian, the meridian is left out. A
    /// polygon split at 180 degrees (RFC 7946's form for one that crosses it) has rings that
    /// run along the meridian at +180 where others go on from -180; that is no edge of the
    /// region, but measured as one, a fix 55 m from it and 1 km from every real edge was
    /// "within its accuracy of an edge" and never inside (the form drawn across entered).
    ///
    /// An edge along +180 loses the latitudes that edges along -180 cover, and the other way
    /// round (only the other side: parts on one side cannot overlap); what is left of it stays
    /// an edge (a polygon that ends at the meridian, or meets the other side over fewer
    /// latitudes, keeps its real boundary there).
    static func boundary(of rings: [[(x: Double, y: Double)]]) -> [[(x: Double, y: Double)]] {
        func side(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double)) -> Double? {
            abs(p.x) == 180 && p.x == q.x ? p.x : nil
        }
        // The latitudes each side's meridian edges span, merged.
        var spans: [Double: [(lo: Double, hi: Double)]] = [:]
        for ring in rings where ring.count >= 2 {
            for j in 1..<ring.count {
                if let s = side(ring[j - 1], ring[j]) { spans[s, default: []].append((min(ring[j - 1].y, ring[j].y), max(ring[j - 1].y, ring[j].y))) }
            }
        }
        guard let east = spans[180], let west = spans[-180] else { return rings }
        let cover: [Double: [(lo: Double, hi: Double)]] = [180: merged(west), -180: merged(east)]
        var lines: [[(x: Double, y: Double)]] = []
        for ring in rings {
            var line: [(x: Double, y: Double)] = ring.isEmpty ? [] : [ring[0]]
            for j in 1..<max(1, ring.count) {
                let p = ring[j - 1], q = ring[j]
                guard let s = side(p, q), let other = cover[s] else {
                    line.append(q)
                    continue
                }
                // The edge's latitudes the other side does not cover stay, as edges of their own.
                if line.count >= 2 { lines.append(line) }
                for kept in uncovered(min(p.y, q.y), max(p.y, q.y), by: other) {
                    lines.append([(x: s, y: kept.lo), (x: s, y: kept.hi)])
                }
                line = [q]
            }
            if line.count >= 2 { lines.append(line) }
        }
        return lines
    }

    /// Spans sorted and joined where they overlap or touch.
    private static func merged(_ spans: [(lo: Double, hi: Double)]) -> [(lo: Double, hi: Double)] {
        var out: [(lo: Double, hi: Double)] = []
        for s in spans.sorted(by: { $0.lo < $1.lo }) {
            if let last = out.last, s.lo <= last.hi { out[out.count - 1].hi = max(last.hi, s.hi) } else { out.append(s) }
        }
        return out
    }

    /// The parts of lo...hi outside the merged spans `cover` (a point left over is no edge).
    private static func uncovered(_ lo: Double, _ hi: Double, by cover: [(lo: Double, hi: Double)]) -> [(lo: Double, hi: Double)] {
        var out: [(lo: Double, hi: Double)] = []
        var from = lo
        for c in cover where c.hi > from && c.lo < hi {
            if c.lo > from { out.append((from, c.lo)) }
            from = max(from, c.hi)
            if from >= hi { return out }
        }
        if from < hi { out.append((from, hi)) }
        return out
    }
}
