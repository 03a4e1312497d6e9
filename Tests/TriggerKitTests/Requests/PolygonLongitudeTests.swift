import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// How a polygon's longitudes are read: as given up to 180 degrees wide, else across the
/// antimeridian (with a warning, since RFC 7946 would read it the long way); a ring around a
/// pole, or a polygon wider than 180 degrees either way, is refused by name. A ring around a
/// pole used to pass as a planar triangle, or be refused as "Self-intersection", and a band
/// from -100 to 100 was silently read as the 160 degrees through 180.
@Suite("Polygons: longitudes read as given or across the antimeridian")
struct PolygonLongitudeTests {
    static let now = Timestamp.date(millis: Timestamp.parseMillis("2026-11-21T06:00:00Z") ?? 0)

    static func line(_ id: String, _ geometry: String) -> String {
        #"{"identifier": "\#(id)", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"geometry": \#(geometry)}}}"#
    }

    static func request(_ id: String, _ rings: [[(Double, Double)]], multi: [[[(Double, Double)]]]? = nil) -> NotificationRequest {
        let polygons = (multi ?? [rings]).map { $0.map { $0.map { Coordinate(latitude: $0.1, longitude: $0.0) } } }
        return NotificationRequest(identifier: id, content: NotificationContent(title: "x"), trigger: .location(LocationTrigger(
            region: .polygon(PolygonRegion(identifier: id, polygons: polygons, isMultiPolygon: multi != nil)), repeats: true)))
    }

    // A ring around the north pole that GEOS, reading it in the plane after the shift, took
    // for a valid triangle; and one it called self-intersecting.
    static let poleTriangle: [(Double, Double)] = [(0, 80), (120, 75), (-120, 80), (0, 80)]
    static let poleSquare: [(Double, Double)] = [(0, 80), (90, 80), (180, 80), (-90, 80), (0, 80)]
    // Wider than 180 degrees both ways: a band from -170 through 0 to 170 (every step under
    // 180 degrees, so it winds through 0, not around a pole).
    static let wide: [(Double, Double)] = [(-170, 0), (0, 0), (170, 0), (170, 10), (0, 10), (-170, 10), (-170, 0)]

    /// A geometry of another GeoJSON type is named as the wrong type whether it has
    /// `coordinates` (a Point) or not (a GeometryCollection, a Feature): those two were
    /// "needs coordinates" (found by a helper).
    @Test(arguments: [#"{"type": "Point", "coordinates": [0, 0]}"#, #"{"type": "GeometryCollection", "geometries": []}"#,
                      #"{"type": "Feature", "geometry": null, "properties": {}}"#])
    func aGeometryOfAnotherTypeIsNamedAsSuch(geometry: String) {
        let set = RequestsFile.parse(Self.line("p", geometry), file: "f", options: ValidationOptions(now: Self.now))
        #expect(set.requests.isEmpty)
        #expect(set.diagnostics.first?.message.contains("is not a region (expected Polygon or MultiPolygon)") == true, "\(set.diagnostics)")
    }

    @Test func aRingAroundAPoleIsRefusedByNameEveryWayIn() {
        for ring in [Self.poleTriangle, Self.poleSquare] {
            let expected = "ring \"trigger.region.geometry.coordinates[0]\" goes around the globe (taking each edge the short way, its longitudes wind through 360 degrees), so it would hold a pole: split it into polygons less than 180 degrees of longitude wide"
            #expect(throws: RequestError(.invalidRegion, expected, field: "trigger.region.geometry.coordinates[0]")) {
                try RequestValidation.checkValue(Self.request("p", [ring]))
            }
            // The engine, given it without the validator, refuses it in the same words.
            let engine = StreamEvaluator(requests: [Self.request("p", [ring])])
            #expect(engine.refusedRegions.map(\.reason) == [expected])
            // A file, through the JSON reader.
            let json = "{\"type\": \"Polygon\", \"coordinates\": [[" + ring.map { "[\($0.0), \($0.1)]" }.joined(separator: ", ") + "]]}"
            let set = RequestsFile.parse(Self.line("p", json), file: "f", options: ValidationOptions(now: Self.now))
            #expect(set.requests.isEmpty)
            #expect(set.diagnostics.map(\.message) == [expected])
        }
    }

    @Test func aPolygonWiderThan180DegreesBothWaysIsRefusedNamingBothReadings() {
        let multi = Self.request("w", [], multi: [[square(0, 0, 1, 1)], [Self.wide]])
        #expect(throws: RequestError(.invalidRegion, "polygon \"trigger.region.geometry.coordinates[1]\" is more than 180 degrees of longitude wide both as given (-170 to 170) and across the antimeridian (0 east to -170): split it into polygons less than 180 degrees wide",
                                     field: "trigger.region.geometry.coordinates[1]")) {
            try RequestValidation.checkValue(multi)
        }
        #expect(StreamEvaluator(requests: [multi]).refusedRegions.count == 1)
    }

    @Test func aPolygonReadAcrossTheAntimeridianIsAcceptedWithAWarningOnBothDecoders() throws {
        let band = Self.line("band", #"{"type": "Polygon", "coordinates": [[[-100, 0], [100, 0], [100, 10], [-100, 10], [-100, 0]]]}"#)
        let plain = Self.line("plain", #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}"#)
        let text = band + "\n" + plain
        let warning = "polygon \"trigger.region.geometry.coordinates\" has longitudes from -100 to 100: it is read as crossing the antimeridian, from 100 east to -100 (160 degrees wide); to mean the other way, split it into polygons less than 180 degrees wide"
        // The mapped file (the record decoder's fast path) and the general path agree.
        for parallel in [false, true] {
            var t = text
            let set = t.withUTF8 { RequestsFile.parse($0, file: "f", options: ValidationOptions(now: Self.now), parallel: parallel) }
            #expect(set.requests.map(\.identifier) == ["band", "plain"])
            #expect(set.diagnostics.map(\.message) == [warning])
            #expect(set.diagnostics.first?.severity == .warning)
        }
        // A stream's add line or an HTTP body: the same reader, the same warning.
        var warnings: [String] = []
        _ = try NotificationRequest(json: JSONValue.parse(document: Data(band.utf8)), warnings: &warnings)
        #expect(warnings == [warning])
        // Read as said: 180 is inside, 0 is not.
        let set = RequestsFile.parse(text, file: "f", options: ValidationOptions(now: Self.now))
        let index = StreamEvaluator(requests: set.requests).regionIndex
        #expect(index.hits(5, 180).map(\.slot) == [0])
        #expect(index.hits(5, -150).map(\.slot) == [0])
        #expect(index.hits(5, 0).isEmpty)
    }

    /// A stored request is read for its shape, not judged again: a polygon an older version
    /// accepted and these rules refuse must not fail a restore (the serve snapshot's request
    /// lines and the journal's add rows and delivered section read records so; a reviewer's
    /// find: `serve` would not start, and a journal replay dropped the request silently).
    @Test func aStoredPolygonTheRulesNowRefuseStillReadsBack() async throws {
        let pole = Self.request("pole", [Self.poleTriangle])
        let record = pole.contractRecord
        let read = try record.withUnsafeBufferPointer { b throws(RequestError) in try NotificationRequest(contractRecord: b) }
        #expect(read == pole)
        var snapshot = await Center().center.snapshot()
        snapshot.requests = [pole, Self.request("plain", [square(0, 0, 1, 1)])]
        let back = try CenterSnapshot(serialized: snapshot.serialized())
        #expect(back.requests == snapshot.requests)
        // The JSON form services stored before the byte form existed, too.
        let fromJSON = try CenterSnapshot(serialized: JSONEncoder().encode(snapshot))
        #expect(fromJSON.requests == snapshot.requests)
    }

    /// Such a request, once held (restored, or replayed from a service's journal), is kept
    /// and listed, never fires, and is named by `refusedRequests()` until it is replaced or
    /// removed; a snapshot carries it to a restored center as it is.
    @Test func aCenterKeepsAndNamesAStoredRequestTheRulesRefuse() async throws {
        let c = Center()
        var pole = Self.request("pole", [Self.poleTriangle])
        await #expect(throws: RequestError.self) { try await c.center.add(pole) }
        pole.addedAt = Center.t0
        await c.center.add(stored: pole)
        try await c.center.add(Self.request("plain", [square(0, 0, 1, 1)]))
        func names(_ center: TriggerCenter) async -> (pending: [String], refused: [String]) {
            (await center.pendingRequests().map(\.identifier), await center.refusedRequests().map { "\($0.identifier) \($0.error.code)" })
        }
        #expect(await names(c.center) == (["pole", "plain"], ["pole invalidRegion"]))
        // Never fires, even from inside the ring's planar triangle (or around the pole).
        for (lat, lon) in [(78.0, 0.0), (89.0, 10.0), (0.5, 0.5)] {
            let fired = try await c.center.receive(LocationFix(device: "d", date: Center.t0.addingTimeInterval(1), latitude: lat, longitude: lon))
            #expect(!fired.contains { $0.request.identifier == "pole" })
        }
        let restored = try TriggerCenter(restoring: CenterSnapshot(serialized: await c.center.snapshot().serialized()), clock: c.clock)
        #expect(await names(restored) == (["pole", "plain"], ["pole invalidRegion"]))
        await restored.removePendingRequests(withIdentifiers: ["pole"])
        #expect(await names(restored) == (["plain"], []))
    }

    /// A stored polygon GEOS finds invalid (a bowtie) stays refused through every later
    /// build (a compaction, a snapshot): the first build refused it and the next indexed it
    /// as valid, and it fired (found by a reviewer).
    @Test func aStoredInvalidPolygonStaysRefusedThroughLaterBuilds() async throws {
        let c = Center()
        var bow = Self.request("bow", [[(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]])
        bow.addedAt = Center.t0
        await c.center.add(stored: bow)
        try await c.center.add(Self.request("plain", [square(10, 10, 11, 11)]))
        #expect(await c.center.refusedRequests().map(\.identifier) == ["bow"])
        // A removal and a snapshot: the snapshot compacts, a build over the requests left.
        await c.center.removePendingRequests(withIdentifiers: ["plain"])
        let snapshot = await c.center.snapshot()
        #expect(await c.center.refusedRequests().map(\.identifier) == ["bow"])
        let fired = try await c.center.receive(LocationFix(device: "d", date: Center.t0.addingTimeInterval(1), latitude: 0.5, longitude: 0.9))
        #expect(fired.isEmpty)
        let restored = try TriggerCenter(restoring: snapshot, clock: c.clock)
        #expect(await restored.refusedRequests().map(\.identifier) == ["bow"])
    }

    @Test func theWindingOfARingCountsEachStepTheShortWay() {
        func coords(_ r: [(Double, Double)]) -> [Coordinate] { r.map { Coordinate(latitude: $0.1, longitude: $0.0) } }
        #expect(PlanarPolygons.winding(coords(Self.poleSquare)) == 360)
        #expect(PlanarPolygons.winding(coords(Self.poleTriangle.reversed())) == -360)
        #expect(PlanarPolygons.winding(coords(square(170, 0, 190 - 360, 10))) == 0)
        #expect(PlanarPolygons.winding(coords(square(0, 0, 10, 10))) == 0)
        #expect(PlanarPolygons.winding(coords(Self.wide)) == 0)
    }
}
