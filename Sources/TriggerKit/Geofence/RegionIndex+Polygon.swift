// Polygons: GEOS validation, the antimeridian convention, preparation.

extension RegionIndex {
    /// Validates and prepares a polygon region.
    ///
    /// Antimeridian: RFC 7946 (section 3.1.9) asks producers to split geometries that cross
    /// the antimeridian; split ones work as they are. We also accept unsplit ones: a polygon
    /// (one outer ring and its holes) whose longitudes span more than 180 degrees is read as
    /// crossing the antimeridian, and its negative longitudes are shifted by +360 (so
    /// [170, -170] becomes [170, 190]). Shifting per polygon, not per region, keeps a split
    /// multipolygon valid (its halves would otherwise share the edge at 180). A region with a
    /// shifted polygon is tested at lon and, when lon < 0, at lon + 360. A polygon genuinely
    /// wider than 180 degrees of longitude must be split to be read as intended.
    static func preparePolygon(_ p: PolygonRegion, slot: Int32, context: GEOSContext,
                               polygons: inout [PolygonEntry]) throws(RegionIndexError) -> (Entry, Box) {
        var shiftedPolygons: [Bool] = []
        for polygon in p.polygons {
            var minLon = Double.infinity, maxLon = -Double.infinity
            for ring in polygon {
                for c in ring {
                    guard c.latitude.isFinite, c.longitude.isFinite, (-90...90).contains(c.latitude),
                          (-180...180).contains(c.longitude) else {
                        throw RegionIndexError(slot: slot, reason: "position (\(c.longitude), \(c.latitude)) is not a valid longitude/latitude")
                    }
                    minLon = min(minLon, c.longitude)
                    maxLon = max(maxLon, c.longitude)
                }
            }
            guard minLon <= maxLon else { throw RegionIndexError(slot: slot, reason: "a polygon needs an outer ring") }
            shiftedPolygons.append(maxLon - minLon > 180)
        }
        guard !p.polygons.isEmpty else {
            throw RegionIndexError(slot: slot, reason: "a polygon region needs at least one polygon")
        }
        let shifted = shiftedPolygons.contains(true)
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        let rings = zip(p.polygons, shiftedPolygons).map { polygon, shift in
            polygon.map { ring in
                ring.map { c -> (x: Double, y: Double) in
                    let x = shift && c.longitude < 0 ? c.longitude + 360 : c.longitude
                    minX = min(minX, x); maxX = max(maxX, x)
                    minY = min(minY, c.latitude); maxY = max(maxY, c.latitude)
                    return (x, c.latitude)
                }
            }
        }
        // Validity is checked before preparing: GEOS predicates on invalid input may throw
        // TopologyException instead of answering, so invalid polygons never reach a query.
        var prepared: GEOSPreparedGeometry? = nil
        var invalidity: String? = nil
        do throws(GEOSError) {
            let geometry = try context.multiPolygon(rings)
            invalidity = try context.invalidityReason(geometry)
            if invalidity == nil {
                prepared = try GEOSPreparedGeometry(geometry, warmAt: (rings[0][0][0].x, rings[0][0][0].y))
            }
        } catch {
            throw RegionIndexError(slot: slot, reason: "invalid polygon: \(error.message)")
        }
        guard let prepared else {
            throw RegionIndexError(slot: slot, reason: "invalid polygon: \(invalidity ?? "unknown reason")")
        }
        polygons.append(PolygonEntry(prepared: prepared, minX: minX, maxX: maxX, minY: minY, maxY: maxY, shifted: shifted))
        let entry = Entry(latitude: minY, longitude: minX, radius: 0, plane: LocalPlane(latitude: 0),
                          polygon: Int32(polygons.count - 1), kind: .polygon)
        let box = Box(minLat: minY - boxPadding, maxLat: maxY + boxPadding, minLon: minX - boxPadding,
                      maxLon: maxX + boxPadding, allLongitudes: maxX - minX >= 360)
        return (entry, box)
    }
}
