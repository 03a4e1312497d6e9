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
        guard !p.polygons.isEmpty else { throw RequestError(.invalidRegion, "a polygon region needs at least one polygon", field: "trigger.region.geometry.coordinates") }
        var shiftedPolygons: [Bool] = []
        for (k, polygon) in p.polygons.enumerated() {
            for ring in polygon {
                for c in ring {
                    guard c.latitude.isFinite, c.longitude.isFinite, (-90...90).contains(c.latitude),
                          (-180...180).contains(c.longitude) else {
                        throw RequestError(.invalidRegion, "position (\(c.longitude), \(c.latitude)) is not a valid longitude/latitude", field: Self.field(p, k))
                    }
                }
            }
            guard let reading = Self.longitudes(of: polygon) else { throw RequestError(.invalidRegion, "a polygon needs an outer ring", field: Self.field(p, k)) }
            if reading.span > 180 { throw Self.tooWide(polygon, reading, field: Self.field(p, k)) }
            shiftedPolygons.append(reading.shifted)
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

    /// How one polygon's longitudes are read: as given when they span at most 180 degrees,
    /// else across the antimeridian (negative ones shifted by +360). `west` and `east` are its
    /// extent in that reading (`east` may exceed 180 when shifted), `span` = `east - west`.
    /// Nil for a polygon without positions.
    struct Reading: Equatable {
        var shifted: Bool
        var west: Double
        var east: Double
        var span: Double { east - west }
        /// The extent as given (before any shift).
        var givenWest: Double
        var givenEast: Double
    }

    /// ``Reading`` of a polygon (its rings as given, longitudes in [-180, 180]).
    ///
    /// - Complexity: O(positions).
    static func longitudes(of polygon: [[Coordinate]]) -> Reading? {
        var lo = Double.infinity, hi = -Double.infinity
        for ring in polygon { for c in ring { lo = Swift.min(lo, c.longitude); hi = Swift.max(hi, c.longitude) } }
        guard lo <= hi else { return nil }
        guard hi - lo > 180 else { return Reading(shifted: false, west: lo, east: hi, givenWest: lo, givenEast: hi) }
        var west = Double.infinity, east = -Double.infinity
        for ring in polygon {
            for c in ring {
                let x = c.longitude < 0 ? c.longitude + 360 : c.longitude
                west = Swift.min(west, x)
                east = Swift.max(east, x)
            }
        }
        return Reading(shifted: true, west: west, east: east, givenWest: lo, givenEast: hi)
    }

    /// The refusal of a polygon wider than 180 degrees of longitude both as given and across
    /// the antimeridian: a ring around a pole (its longitudes, each step taken the short way,
    /// wind through 360 degrees) is named as such; either way no reading of it is a region.
    static func tooWide(_ polygon: [[Coordinate]], _ reading: Reading, field: String) -> RequestError {
        for (i, ring) in polygon.enumerated() where abs(winding(ring)) > 180 {
            return RequestError(.invalidRegion, "ring \"\(field)[\(i)]\" goes around the globe (taking each edge the short way, its longitudes wind through 360 degrees), so it would hold a pole: split it into polygons less than 180 degrees of longitude wide", field: "\(field)[\(i)]")
        }
        return RequestError(.invalidRegion, "polygon \"\(field)\" is more than 180 degrees of longitude wide both as given (\(degrees(reading.givenWest)) to \(degrees(reading.givenEast))) and across the antimeridian (\(degrees(reading.west)) east to \(degrees(reading.east - 360))): split it into polygons less than 180 degrees wide", field: field)
    }

    /// The warning for a polygon read across the antimeridian (``Reading/shifted``), which
    /// RFC 7946 (section 3.1.9) would read the long way, or nil.
    static func antimeridianNote(_ p: PolygonRegion) -> [String] {
        p.polygons.enumerated().compactMap { k, polygon in
            guard let r = longitudes(of: polygon), r.shifted, r.span <= 180 else { return nil }
            return "polygon \"\(field(p, k))\" has longitudes from \(degrees(r.givenWest)) to \(degrees(r.givenEast)): it is read as crossing the antimeridian, from \(degrees(r.west)) east to \(degrees(r.east - 360)) (\(degrees(r.span)) degrees wide); to mean the other way, split it into polygons less than 180 degrees wide"
        }
    }

    /// The sum of a ring's longitude steps, each taken the short way (in [-180, 180]): 0 for a
    /// ring that does not go around a pole, +-360 for one that does.
    static func winding(_ ring: [Coordinate]) -> Double {
        var sum = 0.0
        for (a, b) in zip(ring, ring.dropFirst()) {
            var d = b.longitude - a.longitude
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            sum += d
        }
        return sum
    }

    /// The JSON path of polygon `k` of a region, as the validator names it.
    static func field(_ p: PolygonRegion, _ k: Int) -> String {
        p.isMultiPolygon ? "trigger.region.geometry.coordinates[\(k)]" : "trigger.region.geometry.coordinates"
    }

    /// A longitude in a message: without a trailing ".0".
    private static func degrees(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : "\(x)"
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
