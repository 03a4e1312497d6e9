import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A fix is held to one set of rules (``FixRules``) whichever way it comes in: a stream line
/// (`run`, and `POST /v1/fixes`, which reads its body with the same parser) and
/// ``TriggerCenter/receive(_:)``. Before, each had its own checks with their own words
/// (`latitude 91.0 is outside [-90, 90]` against `latitude must be in [-90, 90], not 91.0`), and
/// the center's error named no field.
@Suite("Fixes: one set of rules for every way in")
struct FixRulesTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)
    static let longDevice = String(repeating: "d", count: RequestLimits.maximumIdentifierBytes + 1)

    struct Case: Sendable, CustomTestStringConvertible {
        var line: String
        var fix: LocationFix
        /// The field as a line names it and as ``LocationFix`` does.
        var key: String
        var property: FixError.Field
        var reason: String
        var testDescription: String { line }
    }

    static func fix(device: String = "d", latitude: Double = 40, longitude: Double = -74) -> LocationFix {
        LocationFix(device: device, date: t0, latitude: latitude, longitude: longitude)
    }

    static let cases: [Case] = [
        Case(line: #"{"device": "d", "t": 1795770000, "lat": 91, "lon": -74}"#, fix: fix(latitude: 91),
             key: "lat", property: .latitude, reason: "must be in [-90, 90], not 91"),
        Case(line: #"{"device": "d", "t": 1795770000, "lat": -90.5, "lon": -74}"#, fix: fix(latitude: -90.5),
             key: "lat", property: .latitude, reason: "must be in [-90, 90], not -90.5"),
        Case(line: #"{"device": "d", "t": 1795770000, "lat": 40, "lon": 200}"#, fix: fix(longitude: 200),
             key: "lon", property: .longitude, reason: "must be in [-180, 180], not 200"),
        Case(line: #"{"device": "\#(longDevice)", "t": 1795770000, "lat": 40, "lon": -74}"#, fix: fix(device: longDevice),
             key: "device", property: .device, reason: "is longer than 1024 UTF-8 bytes"),
    ]

    @Test(arguments: cases)
    func aLineAndTheCenterRefuseAFixInTheSameWords(_ c: Case) async throws {
        let lineError = #expect(throws: StreamLineError.self) { try StreamLineParser.parse(c.line) }
        #expect(lineError?.reason == "\"\(c.key)\" \(c.reason)")

        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        let error = await #expect(throws: FixError.self) { try await center.receive(c.fix) }
        #expect(error == .invalid(field: c.property, reason: c.reason))
        #expect(error?.description == "invalid fix: \(c.property.rawValue) \(c.reason)")
        #expect(await center.statistics.rejectedFixes == 1)
    }

    /// NaN and infinities have no JSON spelling (the parser refuses 1e400 as out of range):
    /// only the center meets them, and names the field.
    @Test func notANumberIsNamedByItsField() async throws {
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        for (fix, field) in [(Self.fix(latitude: .nan), "latitude"), (Self.fix(longitude: .nan), "longitude"),
                             (Self.fix(latitude: .infinity), "latitude"), (Self.fix(longitude: -.infinity), "longitude"),
                             (LocationFix(device: "d", date: Self.t0, latitude: 0, longitude: 0, horizontalAccuracy: .nan),
                              "horizontalAccuracy"),
                             // An infinite accuracy entered a plain circle (a helper's find).
                             (LocationFix(device: "d", date: Self.t0, latitude: 0, longitude: 0, horizontalAccuracy: .infinity),
                              "horizontalAccuracy"),
                             (LocationFix(device: "d", date: Self.t0, latitude: 0, longitude: 0, horizontalAccuracy: -.infinity),
                              "horizontalAccuracy")] {
            let error = await #expect(throws: FixError.self) { try await center.receive(fix) }
            guard case .invalid(let named, _) = error else { Issue.record("\(String(describing: error))"); continue }
            #expect(named.rawValue == field)
        }
    }

    /// A date outside years 1-9999: the same rule, each way showing the value as it came.
    @Test func aDateOutsideTheSupportedYearsIsRefusedByBoth() async throws {
        let lineError = #expect(throws: StreamLineError.self) {
            try StreamLineParser.parse(#"{"device": "d", "t": 253402300800, "lat": 40, "lon": -74}"#)
        }
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        let far = LocationFix(device: "d", date: Date(timeIntervalSince1970: 253_402_300_800), latitude: 40, longitude: -74)
        let error = await #expect(throws: FixError.self) { try await center.receive(far) }
        let rule = "must be within the supported dates (0001-01-01 to 9999-12-31), not "
        #expect(lineError?.reason == "\"t\" \(rule)253402300800")
        guard case .invalid(let field, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(field == .date)
        #expect(reason == rule + "253402300800 s since 1970")
    }
}
