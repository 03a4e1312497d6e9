import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Polygons touching a pole")
struct PolarPolygonTests {
    /// Found by the extreme-value property test (issue 8): a valid triangle with a vertex on
    /// the south pole got a bounding box padded below -90, grid row -1, and a trap building
    /// its cell key.
    @Test func aPolygonWithAVertexOnTheSouthPoleIsIndexedAndFound() throws {
        let ring = [(60.0, 59.999), (1e-9, -90.0), (0.0, 59.999), (60.0, 59.999)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let region = Region.polygon(PolygonRegion(identifier: "p", polygons: [[ring]], isMultiPolygon: false))
        let index = RegionIndex(regions: [region])
        #expect(index.invalid.isEmpty)
        var hits: [RegionHit] = []
        index.query(latitude: 50, longitude: 30, margin: 0, into: &hits)
        #expect(hits.map(\.slot) == [0])
        index.query(latitude: -89.999_999, longitude: 0.0000001, margin: 0, into: &hits)
        index.query(latitude: 50, longitude: 90, margin: 0, into: &hits)
        #expect(hits.isEmpty)
    }
}
