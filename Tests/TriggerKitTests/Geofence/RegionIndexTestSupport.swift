import Foundation
@testable import TriggerKit

/// SplitMix64: a tiny seeded generator so random tests are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func circle(_ lat: Double, _ lon: Double, _ radius: Double, id: String = "c") -> Region {
    .circular(CircularRegion(identifier: id, center: Coordinate(latitude: lat, longitude: lon), radius: radius))
}

/// A polygon region from [[[lon, lat]]] rings, GeoJSON order.
func polygon(_ polygons: [[[(Double, Double)]]], id: String = "p") -> Region {
    .polygon(PolygonRegion(identifier: id,
                           polygons: polygons.map { $0.map { $0.map { Coordinate(latitude: $0.1, longitude: $0.0) } } },
                           isMultiPolygon: polygons.count > 1))
}

func square(_ minLon: Double, _ minLat: Double, _ maxLon: Double, _ maxLat: Double) -> [(Double, Double)] {
    [(minLon, minLat), (maxLon, minLat), (maxLon, maxLat), (minLon, maxLat), (minLon, minLat)]
}

extension RegionIndex {
    func hits(_ lat: Double, _ lon: Double, margin: Double = 0) -> [RegionHit] {
        var out: [RegionHit] = []
        query(latitude: lat, longitude: lon, margin: margin, into: &out)
        return out
    }
}
