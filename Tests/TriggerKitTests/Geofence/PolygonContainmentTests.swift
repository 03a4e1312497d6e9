import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Polygons: GEOS covers")
struct PolygonContainmentTests {
    @Test("a polygon with a hole; the boundary (edges, vertices, hole edge) counts as inside")
    func holeAndBoundary() {
        let index = RegionIndex(regions: [polygon([[square(0, 0, 10, 10), square(4, 4, 6, 6)]])])
        #expect(index.invalid.isEmpty)
        #expect(index.hits(1, 1) == [RegionHit(slot: 0, inner: true, contains: true)])
        #expect(index.hits(5, 5).isEmpty)        // in the hole
        #expect(index.hits(4, 5).count == 1)     // on the hole's edge
        #expect(index.hits(0, 5).count == 1)     // on the outer edge
        #expect(index.hits(10, 10).count == 1)   // a vertex
        #expect(index.hits(10.000001, 5).isEmpty)
        #expect(index.contains(slot: 0, latitude: 2, longitude: 2))
        #expect(!index.contains(slot: 0, latitude: 5, longitude: 5))
    }

    @Test("a multipolygon matches in each part and not between them")
    func multiPolygon() {
        let index = RegionIndex(regions: [polygon([[square(0, 0, 1, 1)], [square(2, 0, 3, 1)]])])
        #expect(index.hits(0.5, 0.5).count == 1)
        #expect(index.hits(0.5, 2.5).count == 1)
        #expect(index.hits(0.5, 1.5).isEmpty)
    }

    @Test("a bowtie is invalidRegion with GEOS's reason; the other regions still work")
    func invalidBowtie() {
        let bowtie = [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)]
        let index = RegionIndex(regions: [circle(0.5, 0.5, 100), polygon([[bowtie]]), polygon([[square(0, 0, 1, 1)]])])
        #expect(index.invalid.map(\.slot) == [1])
        #expect(index.invalid.first?.reason.contains("Self-intersection") == true, "\(index.invalid)")
        #expect(index.hits(0.5, 0.5).map(\.slot) == [0, 2])
    }

    @Test("degenerate rings are invalidRegion, not a crash")
    func degenerateRing() {
        let index = RegionIndex(regions: [polygon([[[(0, 0), (1, 1), (0, 0)]]]), polygon([[[(0, 0), (1, 0), (1, 1), (0, 1)]]])])
        #expect(index.invalid.map(\.slot) == [0, 1], "\(index.invalid)")
    }

    @Test("an unsplit polygon across the antimeridian, and a split one")
    func antimeridianPolygon() {
        let unsplit = polygon([[[(170, -10), (-170, -10), (-170, 10), (170, 10), (170, -10)]]])
        let split = polygon([[square(175, 20, 180, 30)], [square(-180, 20, -175, 30)]])
        let index = RegionIndex(regions: [unsplit, split])
        #expect(index.hits(0, 175).map(\.slot) == [0])
        #expect(index.hits(0, -175).map(\.slot) == [0])
        #expect(index.hits(0, 180).map(\.slot) == [0])
        #expect(index.hits(0, -180).map(\.slot) == [0])
        #expect(index.hits(0, 0).isEmpty)
        #expect(index.hits(0, -160).isEmpty)
        #expect(index.hits(25, 178).map(\.slot) == [1])
        #expect(index.hits(25, -178).map(\.slot) == [1])
        #expect(index.hits(25, 180).map(\.slot) == [1])
        #expect(index.hits(25, -180).map(\.slot) == [1])
        #expect(index.hits(25, 170).isEmpty)
    }

    @Test("hits from circles and polygons at several grid levels come sorted by slot")
    func sortedAcrossLevels() {
        let index = RegionIndex(regions: [circle(1, 1, 900_000), polygon([[square(0, 0, 2, 2)]]), circle(1, 1, 50), circle(1, 1, 5_000)])
        #expect(index.hits(1, 1).map(\.slot) == [0, 1, 2, 3])
    }
}
