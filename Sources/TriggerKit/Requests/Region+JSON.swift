// Decoding and encoding regions: CLCircularRegion-style circles and GeoJSON polygons.

extension Region {
    init(json: JSONValue, defaultIdentifier: String, warnings: inout [String]) throws(RequestError) {
        guard case .object(let o) = json else {
            throw RequestError(.invalidRegion, "\"trigger.region\" must be an object, not \(json.typeName)", field: "trigger.region")
        }
        var r = JSONFields(o, path: "trigger.region.", code: .invalidRegion)
        let identifier = try r.string("identifier") ?? defaultIdentifier
        let onEntry = try r.bool("notifyOnEntry") ?? true
        let onExit = try r.bool("notifyOnExit") ?? true
        let center = try r.object("center")
        let radius = try r.number("radius")
        let geometry = try r.object("geometry")
        if let geometry {
            guard center == nil, radius == nil else {
                throw RequestError(.invalidRegion, "a region has either \"center\"/\"radius\" or \"geometry\", not both", field: "trigger.region")
            }
            let (polygons, multi) = try Self.polygons(geoJSON: geometry)
            let region = PolygonRegion(identifier: identifier, polygons: polygons, isMultiPolygon: multi,
                                       notifyOnEntry: onEntry, notifyOnExit: onExit)
            warnings += PlanarPolygons.antimeridianNote(region)
            self = .polygon(region)
        } else {
            guard let center else {
                throw RequestError(.invalidRegion, "a region needs \"center\" and \"radius\", or a GeoJSON \"geometry\"", field: "trigger.region")
            }
            var c = JSONFields(center, path: "trigger.region.center.", code: .invalidRegion)
            let (lat, lon) = (try c.number("latitude"), try c.number("longitude"))
            guard let lat, let lon else {
                throw RequestError(.invalidRegion, "\"trigger.region.center\" needs \"latitude\" and \"longitude\"",
                                   field: lat == nil ? "trigger.region.center.latitude" : "trigger.region.center.longitude")
            }
            let coordinate = Coordinate(latitude: lat, longitude: lon)
            guard let radius else { throw RequestError(.invalidRegion, "a circular region needs \"radius\" (metres)", field: "trigger.region.radius") }
            warnings += c.unknownKeys()
            self = .circular(CircularRegion(identifier: identifier, center: coordinate, radius: radius,
                                            notifyOnEntry: onEntry, notifyOnExit: onExit))
        }
        warnings += r.unknownKeys()
    }

    /// Reads a GeoJSON `Polygon` or `MultiPolygon` (RFC 7946 section 3.1.6-7): positions are
    /// [longitude, latitude(, altitude)], rings have at least four positions and are closed.
    /// Ring sizes, closure, ranges and topological validity are the validator's
    /// (``RequestValidation/checkValue(_:)``).
    static func polygons(geoJSON o: [String: JSONValue]) throws(RequestError) -> ([[[Coordinate]]], Bool) {
        guard case .string(let type)? = o["type"] else {
            throw RequestError(.invalidRegion, "\"trigger.region.geometry\" needs a GeoJSON \"type\" (Polygon or MultiPolygon)", field: "trigger.region.geometry.type")
        }
        // The type first: a GeometryCollection or a Feature (no "coordinates") is named as the
        // wrong type, as a Point is, not as a polygon missing its coordinates.
        guard type == "Polygon" || type == "MultiPolygon" else {
            throw RequestError(.invalidRegion, "GeoJSON type \"\(type)\" is not a region (expected Polygon or MultiPolygon)", field: "trigger.region.geometry.type")
        }
        guard case .array(let coords)? = o["coordinates"] else {
            throw RequestError(.invalidRegion, "\"trigger.region.geometry\" needs \"coordinates\" (an array)", field: "trigger.region.geometry.coordinates")
        }
        switch type {
        case "Polygon":
            return ([try polygon(coords, field: "trigger.region.geometry.coordinates")], false)
        case "MultiPolygon":
            guard !coords.isEmpty else { throw RequestError(.invalidRegion, "a MultiPolygon needs at least one polygon", field: "trigger.region.geometry.coordinates") }
            var out: [[[Coordinate]]] = []
            for (k, p) in coords.enumerated() {
                guard case .array(let rings) = p else {
                    throw RequestError(.invalidRegion, "\"trigger.region.geometry.coordinates[\(k)]\" must be an array of rings", field: "trigger.region.geometry.coordinates[\(k)]")
                }
                out.append(try polygon(rings, field: "trigger.region.geometry.coordinates[\(k)]"))
            }
            return (out, true)
        default:
            throw RequestError(.invalidRegion, "GeoJSON type \"\(type)\" is not a region (expected Polygon or MultiPolygon)", field: "trigger.region.geometry.type")
        }
    }

    private static func polygon(_ rings: [JSONValue], field: String) throws(RequestError) -> [[Coordinate]] {
        var out: [[Coordinate]] = []
        for (k, ring) in rings.enumerated() {
            let f = "\(field)[\(k)]"
            guard case .array(let positions) = ring else { throw RequestError(.invalidRegion, "\"\(f)\" must be an array of positions", field: f) }
            var pts: [Coordinate] = []
            pts.reserveCapacity(positions.count)
            for (j, pos) in positions.enumerated() {
                guard case .array(let xy) = pos, xy.count >= 2, case .number(let lon) = xy[0], case .number(let lat) = xy[1] else {
                    throw RequestError(.invalidRegion, "\"\(f)[\(j)]\" must be a position [longitude, latitude]", field: "\(f)[\(j)]")
                }
                pts.append(Coordinate(latitude: lat, longitude: lon))
            }
            out.append(pts)
        }
        return out
    }

    /// The contract's JSON for this region.
    package var json: JSONValue {
        var o: [String: JSONValue] = [
            "identifier": .string(identifier),
            "notifyOnEntry": .bool(notifyOnEntry),
            "notifyOnExit": .bool(notifyOnExit),
        ]
        switch self {
        case .circular(let c):
            o["center"] = .object(["latitude": .number(c.center.latitude), "longitude": .number(c.center.longitude)])
            o["radius"] = .number(c.radius)
        case .polygon(let p):
            func ring(_ r: [Coordinate]) -> JSONValue { .array(r.map { .array([.number($0.longitude), .number($0.latitude)]) }) }
            func poly(_ p: [[Coordinate]]) -> JSONValue { .array(p.map(ring)) }
            o["geometry"] = p.isMultiPolygon
                ? .object(["type": .string("MultiPolygon"), "coordinates": .array(p.polygons.map(poly))])
                : .object(["type": .string("Polygon"), "coordinates": p.polygons.first.map(poly) ?? .array([])])
        }
        return .object(o)
    }
}
