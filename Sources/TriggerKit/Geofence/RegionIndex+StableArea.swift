import Foundation

// How far a fix may move before a region's decision can change: the disc a neighbourhood
// holds for (``StableArea``) and the distance to a region's nearest threshold.

/// A disc around a point (a ``Neighbourhood``'s area): the regions found constant over it keep
/// their ``RegionHit/inner`` and ``RegionHit/contains`` everywhere inside, for the margin it
/// was computed with.
///
/// 32 bytes. ``contains(latitude:longitude:)`` is a conservative test: it may say no for a
/// point inside the disc, never yes for one outside.
struct StableArea: Sendable, Hashable {
    var latitude: Double
    var longitude: Double
    /// Geodesic radius in metres; <= 0 means "no area" (nothing is contained).
    var radius: Double
    /// An upper bound of metres per degree of longitude anywhere within
    /// ``RegionIndex/maximumStableRadius`` of the centre.
    var kLon: Double

    /// The area that contains nothing.
    static let empty = StableArea(latitude: 0, longitude: 0, radius: 0, kLon: 0)

    /// The largest metres per degree of latitude anywhere on WGS84: the meridional radius of
    /// curvature peaks at the poles at a / sqrt(1 - e²).
    static let kLatMax = Geodesic.equatorialRadius / (1 - Geodesic.e2).squareRoot() * Geodesic.degree
    /// Latitude change (degrees) within ``RegionIndex/maximumStableRadius`` of any point:
    /// |Δφ| <= s / M_min, M_min = a(1 - e²), with a small cushion.
    static let latitudeReach = RegionIndex.maximumStableRadius / (Geodesic.equatorialRadius * (1 - Geodesic.e2) * Geodesic.degree) * 1.001

    init(latitude: Double, longitude: Double, radius: Double, kLon: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.kLon = kLon
    }

    /// An area of `radius` metres (capped at ``RegionIndex/maximumStableRadius``) around a point.
    init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = min(radius, RegionIndex.maximumStableRadius)
        // N cos φ <= a / sqrt(1 - e²) * cos φ, and |φ| >= |φ0| - reach on the way.
        let lowest = max(0, abs(latitude) - Self.latitudeReach)
        self.kLon = Self.kLatMax * cos(lowest * Geodesic.degree)
    }

    /// Whether the point is surely within ``radius`` of the centre (geodesic distance).
    ///
    /// The straight segment in (latitude, longitude) between the two points is a path of
    /// length <= sqrt((M_max Δφ)² + ((N cos φ)_max Δλ)²) (its length element is
    /// sqrt(M² dφ² + N² cos² φ dλ²)); the geodesic is no longer than any path. A wrapped
    /// longitude difference is never unwrapped here: it only makes the test say no.
    ///
    /// - Complexity: O(1), a few multiplications (no trigonometry).
    @inline(__always)
    func contains(latitude lat: Double, longitude lon: Double) -> Bool {
        let dLat = lat - latitude
        guard abs(dLat) <= Self.latitudeReach else { return false }
        let y = dLat * Self.kLatMax, x = (lon - longitude) * kLon
        return x * x + y * y < radius * radius
    }
}

@_spi(Engine) extension RegionIndex {
    /// The largest neighbourhood radius (metres); it bounds how far latitude can change within
    /// it, which the longitude scale of ``StableArea`` relies on.
    static let maximumStableRadius = 5_000.0
    /// Beyond this latitude a fix gets no neighbourhood, only plain queries (meridians converge
    /// too fast for the simple bounds to be worth it).
    static let maximumStableLatitude = 80.0
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
