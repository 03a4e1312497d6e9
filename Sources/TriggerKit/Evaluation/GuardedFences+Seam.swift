// The boundary of a polygon split at the antimeridian, without the split.

extension GuardedFences {
    /// `rings` (flat (longitude, latitude) rings of one polygon fence) as the polylines of its
    /// boundary: the edges its rings share along the 180th meridian are left out. A polygon
    /// split at 180 degrees (RFC 7946's form for one that crosses it) has each part's ring run
    /// along the meridian where the other goes on; that is no edge of the region, but measured
    /// as one, a fix 55 m from it and 1 km from every real edge was "within its accuracy of an
    /// edge" and never inside (the unsplit form entered). A meridian edge is left out where
    /// other rings' meridian edges cover its latitudes; a real boundary along the meridian (a
    /// polygon that ends there) is kept.
    static func boundary(of rings: [[(x: Double, y: Double)]]) -> [[(x: Double, y: Double)]] {
        func onMeridian(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double)) -> Bool { abs(p.x) == 180 && abs(q.x) == 180 }
        // The meridian edges' latitude spans, by ring.
        var spans: [(ring: Int, lo: Double, hi: Double)] = []
        for (r, ring) in rings.enumerated() where ring.count >= 2 {
            for j in 1..<ring.count where onMeridian(ring[j - 1], ring[j]) {
                spans.append((r, min(ring[j - 1].y, ring[j].y), max(ring[j - 1].y, ring[j].y)))
            }
        }
        guard spans.count >= 2 else { return rings }
        /// Whether the other rings' meridian edges cover lo...hi.
        func shared(_ r: Int, _ lo: Double, _ hi: Double) -> Bool {
            var reached = lo
            for s in spans.filter({ $0.ring != r }).sorted(by: { $0.lo < $1.lo }) where s.lo <= reached {
                reached = max(reached, s.hi)
                if reached >= hi { return true }
            }
            return false
        }
        var lines: [[(x: Double, y: Double)]] = []
        for (r, ring) in rings.enumerated() {
            var line: [(x: Double, y: Double)] = ring.isEmpty ? [] : [ring[0]]
            for j in 1..<max(1, ring.count) {
                let p = ring[j - 1], q = ring[j]
                if onMeridian(p, q), shared(r, min(p.y, q.y), max(p.y, q.y)) {
                    if line.count >= 2 { lines.append(line) }
                    line = [q]
                } else {
                    line.append(q)
                }
            }
            if line.count >= 2 { lines.append(line) }
        }
        return lines
    }
}
