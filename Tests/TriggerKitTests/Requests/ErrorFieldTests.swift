import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A refusal names its field for a program too (`RequestError.field`, `serve`'s
/// `error.field`), as a path into the request's JSON; before, only the message named it.
@Suite("Refusals name their field")
struct ErrorFieldTests {
    static let now = Date(timeIntervalSince1970: 1_795_770_000)  // 2026-11-27T09:00:00Z

    /// The refusal of one request line, read and validated as every way in does.
    static func refusal(_ line: String) -> RequestError? {
        do throws(RequestError) {
            var warnings: [String] = []
            let json: JSONValue
            do { json = try JSONValue.parse(line) } catch { return RequestError(.invalidRequest, "not JSON") }
            let r = try NotificationRequest(json: json, warnings: &warnings)
            try RequestValidation.validate(r, options: ValidationOptions(now: now))
            return nil
        } catch {
            return error
        }
    }

    static let content = #""content": {"title": "t"}"#
    static func circle(_ region: String, rules: String = "") -> String {
        #"{"identifier": "r", \#(content), "trigger": {"type": "location", "repeats": true\#(rules), "region": \#(region)}}"#
    }
    static let square = "[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]"

    /// Bad requests and the field each refusal names.
    static let cases: [(line: String, field: String?)] = [
        ("[1]", nil),
        (#"{\#(content)}"#, "identifier"),
        (#"{"identifier": "", \#(content)}"#, "identifier"),
        (#"{"identifier": 7, \#(content)}"#, "identifier"),
        (#"{"identifier": "r"}"#, "content"),
        (#"{"identifier": "r", "content": {"badge": -1}}"#, "content.badge"),
        (#"{"identifier": "r", "content": {}}"#, "content"),
        (#"{"identifier": "r", "content": {"title": "t", "categoryIdentifier": "\#(String(repeating: "c", count: 1025))"}}"#,
         "content.categoryIdentifier"),
        (#"{"identifier": "r", \#(content), "device": 3}"#, "device"),
        (#"{"identifier": "r", \#(content), "addedAt": "yesterday"}"#, "addedAt"),
        (#"{"identifier": "r", \#(content), "expiresAt": "2026-11-27T08:00:00Z"}"#, "expiresAt"),
        (#"{"identifier": "r", \#(content), "trigger": 5}"#, "trigger"),
        (#"{"identifier": "r", \#(content), "trigger": {}}"#, "trigger.type"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "weekly"}}"#, "trigger.type"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "timeInterval", "timeInterval": 30, "repeats": true}}"#,
         "trigger.timeInterval"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "timeInterval", "timeInterval": -1}}"#, "trigger.timeInterval"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "timeInterval", "timeInterval": "soon"}}"#, "trigger.timeInterval"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "timeInterval"}}"#, "trigger.timeInterval"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar"}}"#, "trigger.dateMatching"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar", "dateMatching": {"weekDay": 2}}}"#,
         "trigger.dateMatching.weekDay"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar", "dateMatching": {"hour": 9.5}}}"#,
         "trigger.dateMatching.hour"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "timeZone": "BST"}}}"#,
         "trigger.dateMatching.timeZone"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "calendar": {"identifier": "gregorian", "firstWeekday": 9}}}}"#,
         "trigger.dateMatching.calendar.firstWeekday"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "calendar": "mayan"}}}"#,
         "trigger.dateMatching.calendar"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "calendar", "dateMatching": {"year": 2020, "month": 1, "day": 1}}}"#,
         "trigger.dateMatching"),
        (#"{"identifier": "r", \#(content), "trigger": {"type": "location"}}"#, "trigger.region"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 0}"#), "trigger.region.radius"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}}"#), "trigger.region.radius"),
        (circle(#"{"center": {"latitude": 91, "longitude": -74}, "radius": 10}"#), "trigger.region.center.latitude"),
        (circle(#"{"center": {"latitude": 40}, "radius": 10}"#), "trigger.region.center.longitude"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#, rules: #", "window": {"opens": "09:00"}"#),
         "trigger.window.closes"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#,
                rules: #", "window": {"timeZone": "Europe/Paris", "intervals": [{"start": "2026-11-28T00:00:00Z", "end": "2026-11-29T00:00:00Z"}]}"#),
         "trigger.window.timeZone"),
        (circle(#"{"center": {"latitude": "north", "longitude": -74}, "radius": 10}"#), "trigger.region.center.latitude"),
        (circle(#"{"identifier": "", "center": {"latitude": 40, "longitude": -74}, "radius": 10}"#), "trigger.region.identifier"),
        (circle(#"{"geometry": {"type": "Point", "coordinates": [0, 0]}}"#), "trigger.region.geometry.type"),
        (circle(#"{"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0.5]]]}}"#),
         "trigger.region.geometry.coordinates[0]"),
        (circle(#"{"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 95], [0, 0]]]}}"#),
         "trigger.region.geometry.coordinates[0][3]"),
        (circle(#"{"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], "x", [0, 0]]]}}"#),
         "trigger.region.geometry.coordinates[0][2]"),
        (circle(#"{"geometry": {"type": "MultiPolygon", "coordinates": [[\#(square)], [[[0, 0], [1, 0], [0, 0]]]]}}"#),
         "trigger.region.geometry.coordinates[1][0]"),
        (circle(#"{"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}}"#),
         "trigger.region.geometry"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#, rules: #", "dwell": {"inside": -5}"#),
         "trigger.dwell.inside"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#, rules: #", "accuracy": {"maximum": 0}"#),
         "trigger.accuracy.maximum"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#, rules: #", "window": {"opens": "25:00", "closes": "18:00"}"#),
         "trigger.window.opens"),
        (circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#,
                rules: #", "window": {"intervals": [{"start": "2026-11-28T00:00:00Z", "end": "2026-11-29T00:00:00Z"}, {"start": "2026-11-28T12:00:00Z", "end": "2026-11-30T00:00:00Z"}]}"#),
         "trigger.window.intervals[1]"),
    ]

    @Test(arguments: cases.indices)
    func aRefusalNamesItsFieldAsAPath(_ k: Int) throws {
        let (line, field) = Self.cases[k]
        let e = try #require(Self.refusal(line), "accepted: \(line)")
        #expect(e.field == field, "\(line) -> \(e)")
    }

    /// A requests file's diagnostics name the field too (they had the message only).
    @Test func aRequestsFileDiagnosticNamesItsField() {
        let lines = [Self.circle(#"{"identifier": "g", "center": {"latitude": 91, "longitude": 0}, "radius": 100}"#),
                     #"{"identifier": "t", \#(Self.content), "trigger": {"type": "timeInterval", "timeInterval": -5, "repeats": false}}"#,
                     #"{"identifier": "u", \#(Self.content), "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": false}, "extra": 1}"#]
        let set = RequestsFile.parse(lines.joined(separator: "\n"), file: "r.ndjson", options: ValidationOptions(now: Self.now))
        let errors = set.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.field) == [Self.refusal(lines[0])?.field, Self.refusal(lines[1])?.field])
        #expect(errors.map(\.field) == ["trigger.region.center.latitude", "trigger.timeInterval"], "\(errors)")
        let warnings = set.diagnostics.filter { $0.severity == .warning }
        #expect(!warnings.isEmpty && warnings.allSatisfy { $0.field == nil }, "\(set.diagnostics)")
    }

    /// Every field named is a path into the request's JSON: each member or position on the
    /// way to it exists there (the last may be the one missing).
    @Test func theFieldIsAPathIntoTheRequest() throws {
        var checked = 0
        for (line, _) in Self.cases {
            guard let field = Self.refusal(line)?.field, let json = try? JSONValue.parse(line) else { continue }
            // "a.b[1][2]" -> ["a", "b", "#1", "#2"]
            var steps: [String] = []
            for part in field.split(separator: ".") {
                let name = part.prefix { $0 != "[" }
                steps.append(String(name))
                steps += part.dropFirst(name.count).split(separator: "]").map { "#" + $0.dropFirst() }
            }
            var v: JSONValue? = json
            for step in steps.dropLast() {
                switch v {
                case .object(let o)? where !step.hasPrefix("#"): v = o[step]
                case .array(let a)? where step.hasPrefix("#"): v = Int(step.dropFirst()).flatMap { a.indices.contains($0) ? a[$0] : nil }
                default: v = nil
                }
            }
            switch v {
            case .object?, .array?: checked += 1
            default: Issue.record("\(field) is not a path into \(line)")
            }
        }
        #expect(checked >= Self.cases.count - 2)
    }

    /// A request made in code is named as its JSON form would be.
    @Test func aRequestMadeInCodeIsNamedAsItsJSONWouldBe() async throws {
        let bad = NotificationRequest(identifier: "r", content: NotificationContent(title: "t"),
                                      trigger: .location(LocationTrigger(region: .circular(CircularRegion(
                                          identifier: "c", center: Coordinate(latitude: 40, longitude: -74), radius: -5)), repeats: true)),
                                      addedAt: Self.now)
        let e = #expect(throws: RequestError.self) { try RequestValidation.validate(bad, options: ValidationOptions(now: Self.now)) }
        #expect(e?.field == "trigger.region.radius")
        let center = try TriggerCenter(configuration: CenterConfiguration(), clock: ManualClock(Self.now))
        let fromCenter = await #expect(throws: RequestError.self) { try await center.add(bad) }
        #expect(fromCenter?.field == "trigger.region.radius")
        let interval = NotificationRequest(identifier: "r", content: NotificationContent(title: "t"),
                                           trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 10, repeats: true)))
        let fromInterval = await #expect(throws: RequestError.self) { try await center.add(interval) }
        #expect(fromInterval?.field == "trigger.timeInterval")
    }

    /// A date out of the supported years is quoted as written (its seconds since 1970 were
    /// given), and an interval's bad end is named as its end (both were said to be missing);
    /// a GeoJSON position by its whole path (a helper sending the same requests every way in).
    @Test func badValuesAreQuotedAsWrittenAtTheirFullPath() throws {
        let early = try #require(Self.refusal(#"{"identifier": "y0", "addedAt": "0000-06-15T00:00:00Z", \#(Self.content)}"#))
        #expect(early.field == "addedAt")
        #expect(early.message.contains(#"not "0000-06-15T00:00:00Z""#), "\(early)")
        let end = try #require(Self.refusal(Self.circle(#"{"center": {"latitude": 40, "longitude": -74}, "radius": 10}"#,
            rules: #", "window": {"intervals": [{"start": "2026-11-28T00:00:00Z", "end": "10000-01-01T00:00:00Z"}]}"#)))
        #expect(end.field == "trigger.window.intervals[0].end")
        #expect(end.message.contains(#""trigger.window.intervals[0].end" must be"#) && end.message.contains("10000-01-01"), "\(end)")
        let position = try #require(Self.refusal(Self.circle(#"{"geometry": {"type": "Polygon", "coordinates": [[[0, 0], ["1", 0], [1, 1], [0, 0]]]}}"#)))
        #expect(position.message.hasPrefix(#""trigger.region.geometry.coordinates[0][1]" must be a position"#), "\(position)")
    }

    /// An expiry at or before the instant a request without `addedAt` is added is named in
    /// the same words by a requests file and by an add (the center, `run`'s `add` lines,
    /// `serve`), which named an "addedAt" the request did not have.
    @Test func anExpiryBeforeTheAddIsNamedAlikeByEveryWay() async throws {
        let line = #"{"identifier": "p5", "expiresAt": "2026-11-27T08:00:00Z", \#(Self.content)}"#
        let fromFile = try #require(Self.refusal(line))
        #expect(fromFile.message.contains("is not after the instant it is added"), "\(fromFile)")
        var warnings: [String] = []
        let request = try NotificationRequest(json: try JSONValue.parse(line), warnings: &warnings)
        let center = try TriggerCenter(configuration: CenterConfiguration(), clock: ManualClock(Self.now))
        let fromAdd = await #expect(throws: RequestError.self) { try await center.add(request) }
        #expect(fromAdd?.message == fromFile.message)
        #expect(fromAdd?.field == "expiresAt")
    }
}
