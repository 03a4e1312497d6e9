import CGEOS

// Building polygons from coordinates and validating them.

extension GEOSContext {
    /// A GEOS (multi)polygon from rings of (x, y) = (longitude, latitude). Each polygon is an
    /// outer ring followed by its holes; rings are closed.
    ///
    /// - Throws: ``GEOSError`` with GEOS's message when a ring is degenerate (fewer than 4
    ///   points, not closed).
    /// - Complexity: O(n) in the number of vertices.
    func multiPolygon(_ polygons: [[[(x: Double, y: Double)]]]) throws(GEOSError) -> GEOSGeometry {
        var parts: [OpaquePointer?] = []
        // Until handed to the collection, the parts are ours to free on error.
        var handedOver = false
        defer { if !handedOver { for p in parts { if let p { GEOSGeom_destroy_r(handle, p) } } } }
        for rings in polygons {
            parts.append(try polygon(rings))
        }
        let collection = parts.withUnsafeMutableBufferPointer { buf in
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), buf.baseAddress, UInt32(buf.count))
        }
        handedOver = collection != nil
        guard let collection else { throw takeError("GEOSGeom_createCollection_r failed") }
        return GEOSGeometry(context: self, pointer: collection)
    }

    private func polygon(_ rings: [[(x: Double, y: Double)]]) throws(GEOSError) -> OpaquePointer {
        var made: [OpaquePointer?] = []
        var handedOver = false
        defer { if !handedOver { for r in made { if let r { GEOSGeom_destroy_r(handle, r) } } } }
        for ring in rings {
            var flat: [Double] = []
            flat.reserveCapacity(ring.count * 2)
            for p in ring { flat.append(p.x); flat.append(p.y) }
            guard let seq = GEOSCoordSeq_copyFromBuffer_r(handle, flat, UInt32(ring.count), 0, 0) else {
                throw takeError("GEOSCoordSeq_copyFromBuffer_r failed")
            }
            // createLinearRing takes ownership of the sequence, also when it fails.
            guard let r = GEOSGeom_createLinearRing_r(handle, seq) else {
                throw takeError("invalid ring")
            }
            made.append(r)
        }
        guard let shell = made.first ?? nil else { throw GEOSError(message: "a polygon needs an outer ring") }
        var holes = Array(made.dropFirst())
        let polygon = holes.withUnsafeMutableBufferPointer { buf in
            GEOSGeom_createPolygon_r(handle, shell, buf.baseAddress, UInt32(buf.count))
        }
        // createPolygon takes ownership of shell and holes.
        handedOver = true
        guard let polygon else { throw takeError("GEOSGeom_createPolygon_r failed") }
        return polygon
    }

    /// nil when `geometry` is valid (OGC rules, `GEOSisValid_r`), else GEOS's reason, e.g.
    /// "Self-intersection[0.5 0.5]" (`GEOSisValidReason_r`).
    ///
    /// - Complexity: O(n log n) in the number of vertices.
    func invalidityReason(_ geometry: GEOSGeometry) throws(GEOSError) -> String? {
        switch GEOSisValid_r(handle, geometry.pointer) {
        case 1: return nil
        case 0:
            guard let reason = GEOSisValidReason_r(handle, geometry.pointer) else { return "invalid geometry" }
            defer { GEOSFree_r(handle, reason) }
            return String(cString: reason)
        default: throw takeError("GEOSisValid_r failed")
        }
    }
}
