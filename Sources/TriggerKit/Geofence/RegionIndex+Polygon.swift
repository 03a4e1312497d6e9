// Polygons: GEOS validation, the antimeridian convention, preparation.

@_spi(Engine) extension RegionIndex {
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
    static func preparePolygon(_ p: PolygonRegion, slot: Int32, context: GEOSContext, validated: Bool = false,
                               polygons: inout [PolygonEntry]) throws(RegionIndexError) -> (Entry, Box) {
        let planar: PlanarPolygons
        do throws(RequestError) {
            planar = try PlanarPolygons(p)
        } catch {
            throw RegionIndexError(slot: slot, reason: error.message)
        }
        let rings = planar.rings, shifted = planar.shifted
        let (minX, maxX, minY, maxY) = (planar.minX, planar.maxX, planar.minY, planar.maxY)
        // Validity is checked here unless the validator did (the same check): GEOS predicates
        // on invalid input may throw TopologyException instead of answering, so invalid
        // polygons never reach a query. The geometry is not kept: the prepared one is made
        // when a test first needs it (``RegionIndex/preparedPolygon(_:)``), from the same points.
        if !validated {
            let invalidity: String?
            do throws(GEOSError) {
                invalidity = try context.invalidityReason(try context.multiPolygon(rings))
            } catch {
                throw RegionIndexError(slot: slot, reason: "invalid polygon: \(error.message)")
            }
            if let invalidity {
                throw RegionIndexError(slot: slot, reason: "invalid polygon: \(invalidity)")
            }
        }
        let storage = PlanarRings.Storage(rings)
        polygons.append(PolygonEntry(rings: storage.rings, ringStorage: storage, minX: minX, maxX: maxX, minY: minY, maxY: maxY, shifted: shifted))
        let entry = Entry(latitude: minY, longitude: minX, radius: 0, plane: LocalPlane(latitude: 0),
                          polygon: Int32(polygons.count - 1), kind: .polygon)
        let box = Box(minLat: minY - boxPadding, maxLat: maxY + boxPadding, minLon: minX - boxPadding,
                      maxLon: maxX + boxPadding, allLongitudes: maxX - minX >= 360)
        return (entry, box)
    }
}

/// A polygon region's rings in the plane GEOS works in: (x, y) = (longitude, latitude), with
/// the antimeridian convention of ``RegionIndex/preparePolygon(_:slot:context:polygons:)``
/// applied. Shared by the index and the validator so both judge the same geometry.
struct PlanarPolygons {
    var rings: [[[(x: Double, y: Double)]]]
    var shifted: Bool
    var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity

    init(_ p: PolygonRegion) throws(RequestError) {
        guard !p.polygons.isEmpty else { throw RequestError(.invalidRegion, "a polygon region needs at least one polygon") }
        var shiftedPolygons: [Bool] = []
        for polygon in p.polygons {
            var lo = Double.infinity, hi = -Double.infinity
            for ring in polygon {
                for c in ring {
                    guard c.latitude.isFinite, c.longitude.isFinite, (-90...90).contains(c.latitude),
                          (-180...180).contains(c.longitude) else {
                        throw RequestError(.invalidRegion, "position (\(c.longitude), \(c.latitude)) is not a valid longitude/latitude")
                    }
                    lo = Swift.min(lo, c.longitude)
                    hi = Swift.max(hi, c.longitude)
                }
            }
            guard lo <= hi else { throw RequestError(.invalidRegion, "a polygon needs an outer ring") }
            shiftedPolygons.append(hi - lo > 180)
        }
        shifted = shiftedPolygons.contains(true)
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        rings = zip(p.polygons, shiftedPolygons).map { polygon, shift in
            polygon.map { ring in
                ring.map { c -> (x: Double, y: Double) in
                    let x = shift && c.longitude < 0 ? c.longitude + 360 : c.longitude
                    minX = Swift.min(minX, x); maxX = Swift.max(maxX, x)
                    minY = Swift.min(minY, c.latitude); maxY = Swift.max(maxY, c.latitude)
                    return (x, c.latitude)
                }
            }
        }
        (self.minX, self.maxX, self.minY, self.maxY) = (minX, maxX, minY, maxY)
    }

    /// GEOS's reason the geometry is invalid (`GEOSisValidReason_r`), or nil when valid.
    func invalidity(context: GEOSContext) -> String? {
        do throws(GEOSError) {
            return try context.invalidityReason(try context.multiPolygon(rings))
        } catch {
            return error.message
        }
    }
}
