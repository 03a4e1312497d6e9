import Foundation
@_spi(Engine) @testable import TriggerKit

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
