import Foundation

// INTERIM scaffolding until the GEOS-backed geofence engine lands (branch `geofence`):
// brute force over circles with a spherical distance. Replaced on merge.

public struct RegionHit: Sendable, Hashable {
    public var slot: Int32
    public var inner: Bool
    public var contains: Bool
}

public final class RegionIndex {
    let regions: [Region]
    public let invalid: [(slot: Int32, reason: String)] = []

    public init(regions: [Region]) { self.regions = regions }

    public func query(latitude: Double, longitude: Double, margin: Double, into hits: inout [RegionHit]) {
        hits.removeAll(keepingCapacity: true)
        for (i, r) in regions.enumerated() {
            guard case .circular(let c) = r else { continue }
            let p1 = latitude * .pi / 180, p2 = c.center.latitude * .pi / 180
            let dp = p2 - p1, dl = (c.center.longitude - longitude) * .pi / 180
            let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
            let d = 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
            if d <= c.radius + margin {
                hits.append(RegionHit(slot: Int32(i), inner: d <= c.radius - margin, contains: d <= c.radius))
            }
        }
    }
}
