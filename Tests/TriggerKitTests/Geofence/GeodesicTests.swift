import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Rows of Fixtures/geodesic/distances.csv (GeographicLib reference values).
struct GeodesicFixture: Sendable, CustomStringConvertible {
    var kind: String
    var lat1, lon1, lat2, lon2, s12: Double
    var description: String { "\(kind) (\(lat1), \(lon1)) -> (\(lat2), \(lon2)) = \(s12)" }

    static func load() throws -> [GeodesicFixture] {
        try Fixture.text("geodesic/distances.csv").split(separator: "\n").compactMap { line in
            if line.hasPrefix("#") || line.hasPrefix("kind") { return nil }
            let f = line.split(separator: ",")
            guard f.count == 6, let a = Double(f[1]), let b = Double(f[2]), let c = Double(f[3]),
                  let d = Double(f[4]), let s = Double(f[5]) else {
                throw FixtureError(line: String(line))
            }
            return GeodesicFixture(kind: String(f[0]), lat1: a, lon1: b, lat2: c, lon2: d, s12: s)
        }
    }
}

struct FixtureError: Error { var line: String }

@Suite("Geodesic distance vs GeographicLib")
struct GeodesicTests {
    @Test("every fixture pair within 1 cm (typically < 0.1 mm)")
    func fixtures() throws {
        let rows = try GeodesicFixture.load()
        #expect(rows.count > 300)
        var worst: [String: Double] = [:]
        for r in rows {
            let s = Geodesic.distance(latitude1: r.lat1, longitude1: r.lon1, latitude2: r.lat2, longitude2: r.lon2)
            let err = abs(s - r.s12)
            worst[r.kind] = max(worst[r.kind] ?? 0, err)
            #expect(err < 0.01, "\(r): got \(s), error \(err) m")
            // Symmetric, and the same with the points swapped.
            let t = Geodesic.distance(latitude1: r.lat2, longitude1: r.lon2, latitude2: r.lat1, longitude2: r.lon1)
            #expect(abs(t - r.s12) < 0.01, "swapped \(r): got \(t)")
        }
        print("geodesic worst error by kind (m):", worst.sorted { $0.key < $1.key })
    }

    @Test("the robust solver alone agrees with every fixture too")
    func antipodalSolverEverywhere() throws {
        for r in try GeodesicFixture.load() {
            let s = Geodesic.antipodalDistance(latitude1: r.lat1, latitude2: r.lat2,
                                               lon12: Geodesic.unwrapDegrees(r.lon2 - r.lon1))
            #expect(abs(s - r.s12) < 0.01, "\(r): got \(s)")
        }
    }

    @Test func longitudeUnwrap() {
        #expect(Geodesic.unwrapDegrees(359) == -1)
        #expect(Geodesic.unwrapDegrees(-359) == 1)
        #expect(Geodesic.unwrapDegrees(180) == 180)
        #expect(Geodesic.unwrapDegrees(-180) == -180)
        #expect(Geodesic.unwrapDegrees(720.5) == 0.5)
    }
}
