import Foundation

// How far a fix may move before a region's decision can change: the distance to a region's
// nearest threshold.

@_spi(Engine) extension RegionIndex {
    /// Slack for the exact geodesic's own error (Vincenty, ~0.1 mm): a decision made by it can
    /// differ from the true side of a threshold only within this distance.
    static let geodesicSlack = 1e-3

    /// A lower bound (metres) of how far the fix is from the nearest threshold of region
    /// `slot` (radius - margin, radius, radius + margin), less the exact geodesic's slack;
    /// 0 for polygons.
    @inline(__always)
    func thresholdDistance(_ slot: Int, latitude: Double, longitude lon: Double, margin m: Double) -> Double {
        let e = entries[slot]
        let r = e.radius
        switch e.kind {
        case .planeCircle:
            let d = e.plane.distance(dLat: latitude - e.latitude, dLon: Geodesic.unwrapDegrees(lon - e.longitude))
            let nearest = min(abs(d - (r + m)), abs(d - r), abs(d - (r - m)))
            return nearest - e.plane.errorBound(d) - Self.geodesicSlack
        case .exactCircle:
            let h = Haversine.distance(latitude, lon, e.latitude, e.longitude)
            let lo = h * (1 - Haversine.relativeBound) - Haversine.absoluteBound
            let hi = h * (1 + Haversine.relativeBound) + Haversine.absoluteBound
            @inline(__always) func gap(_ t: Double) -> Double { t < lo ? lo - t : (t > hi ? t - hi : 0) }
            return min(gap(r + m), gap(r), gap(r - m)) - Self.geodesicSlack
        case .polygon:
            return 0
        case .invalid:
            return .infinity
        }
    }
}
