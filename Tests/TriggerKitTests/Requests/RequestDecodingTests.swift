import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Request decoding")
struct RequestDecodingTests {
    func decode(_ text: String) throws -> NotificationRequest {
        var warnings: [String] = []
        return try NotificationRequest(json: try JSONValue.parse(text), warnings: &warnings)
    }

    @Test func everyContentField() throws {
        let r = try decode("""
        {"identifier": "x", "device": "d-1", "addedAt": "2026-11-21T09:00:00.250+01:00",
         "content": {"title": "T", "subtitle": "S", "body": "B", "sound": "default", "badge": 3,
                     "categoryIdentifier": "cat", "threadIdentifier": "th", "userInfo": {"k": [1, "two", null, true]}}}
        """)
        #expect(r.identifier == "x")
        #expect(r.device == "d-1")
        #expect(r.addedAt.map(Timestamp.millis) == Timestamp.parseMillis("2026-11-21T08:00:00.250Z"))
        #expect(r.content == NotificationContent(title: "T", subtitle: "S", body: "B", sound: "default", badge: 3,
                                                categoryIdentifier: "cat", threadIdentifier: "th",
                                                userInfo: ["k": .array([.number(1), .string("two"), .null, .bool(true)])]))
        #expect(r.trigger == .immediate)
    }

    @Test func addedAtAsEpochSeconds() throws {
        let r = try decode(#"{"identifier": "x", "content": {"badge": 0}, "addedAt": 1795770000.5}"#)
        #expect(r.addedAt.map(Timestamp.millis) == 1_795_770_000_500)
    }

    @Test func calendarTriggerEveryField() throws {
        let r = try decode("""
        {"identifier": "c", "content": {"title": "t"}, "trigger": {"type": "calendar", "repeats": true, "dateMatching":
         {"era": 1, "year": 2030, "month": 2, "day": 3, "hour": 4, "minute": 5, "second": 6, "nanosecond": 7000000,
          "weekday": 2, "weekdayOrdinal": 1, "weekOfMonth": 1, "weekOfYear": 5, "yearForWeekOfYear": 2030, "dayOfYear": 34,
          "timeZone": "Asia/Kathmandu", "calendar": {"identifier": "iso8601", "firstWeekday": 3, "minimumDaysInFirstWeek": 2}}}}
        """)
        guard case .calendar(let t) = r.trigger else { Issue.record("not calendar"); return }
        let c = t.dateComponents
        #expect(t.repeats)
        #expect([c.era, c.year, c.month, c.day, c.hour, c.minute, c.second, c.nanosecond] == [1, 2030, 2, 3, 4, 5, 6, 7_000_000])
        #expect([c.weekday, c.weekdayOrdinal, c.weekOfMonth, c.weekOfYear, c.yearForWeekOfYear, c.dayOfYear] == [2, 1, 1, 5, 2030, 34])
        #expect(c.timeZone?.identifier == "Asia/Kathmandu")
        #expect(c.calendar?.identifier == .iso8601)
        #expect(c.calendar?.firstWeekday == 3)
        #expect(c.calendar?.minimumDaysInFirstWeek == 2)
    }

    @Test func calendarDefaultsAndNames() throws {
        let r = try decode(#"{"identifier": "c", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "calendar": "iso8601"}}}"#)
        guard case .calendar(let t) = r.trigger else { Issue.record("not calendar"); return }
        #expect(t.repeats == false)
        #expect(t.dateComponents.timeZone == nil)
        #expect(t.dateComponents.calendar?.firstWeekday == 2)
        #expect(t.dateComponents.calendar?.minimumDaysInFirstWeek == 4)
        let h = try decode(#"{"identifier": "h", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"month": 1, "calendar": "hebrew"}}}"#)
        guard case .calendar(let ht) = h.trigger else { Issue.record("not calendar"); return }
        #expect(ht.dateComponents.calendar?.identifier == .hebrew)
    }

    @Test func timeIntervalTrigger() throws {
        let r = try decode(#"{"identifier": "t", "content": {"body": "b"}, "trigger": {"type": "timeInterval", "timeInterval": 90.5, "repeats": true}}"#)
        #expect(r.trigger == .timeInterval(TimeIntervalTrigger(timeInterval: 90.5, repeats: true)))
        let once = try decode(#"{"identifier": "t", "content": {"body": "b"}, "trigger": {"type": "timeInterval", "timeInterval": 0.5}}"#)
        #expect(once.trigger == .timeInterval(TimeIntervalTrigger(timeInterval: 0.5, repeats: false)))
    }

    @Test func circularRegionEveryField() throws {
        let r = try decode("""
        {"identifier": "l", "content": {"body": "b"}, "trigger": {"type": "location", "repeats": true, "region":
         {"identifier": "office", "center": {"latitude": 40.7484, "longitude": -73.9857}, "radius": 150, "notifyOnEntry": false, "notifyOnExit": true}}}
        """)
        let expected = CircularRegion(identifier: "office", center: Coordinate(latitude: 40.7484, longitude: -73.9857),
                                      radius: 150, notifyOnEntry: false, notifyOnExit: true)
        #expect(r.trigger == .location(LocationTrigger(region: .circular(expected), repeats: true)))
    }

    @Test func regionDefaults() throws {
        let r = try decode(#"{"identifier": "l", "content": {"body": "b"}, "trigger": {"type": "location", "region": {"center": {"latitude": 1, "longitude": 2}, "radius": 5}}}"#)
        guard case .location(let t) = r.trigger else { Issue.record("not location"); return }
        #expect(t.region.identifier == "l")
        #expect(t.region.notifyOnEntry && t.region.notifyOnExit)
        #expect(!t.repeats)
    }

    @Test func polygonAndMultiPolygon() throws {
        let p = try decode("""
        {"identifier": "p", "content": {"body": "b"}, "trigger": {"type": "location", "region": {"identifier": "park", "geometry":
         {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [2, 1], [2, 2, 30], [1, 1]]]}}}}
        """)
        guard case .location(let t) = p.trigger, case .polygon(let poly) = t.region else { Issue.record("not polygon"); return }
        #expect(poly.identifier == "park")
        #expect(!poly.isMultiPolygon)
        #expect(poly.polygons.count == 1)
        #expect(poly.polygons[0].count == 2)
        #expect(poly.polygons[0][1][2] == Coordinate(latitude: 2, longitude: 2))
        let m = try decode("""
        {"identifier": "m", "content": {"body": "b"}, "trigger": {"type": "location", "region": {"geometry":
         {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]]}}}}
        """)
        guard case .location(let mt) = m.trigger, case .polygon(let mp) = mt.region else { Issue.record("not polygon"); return }
        #expect(mp.isMultiPolygon)
        #expect(mp.polygons.count == 2)
    }

    /// A mistyped component is named whether or not another component is given: alone it was
    /// refused as an empty `dateMatching`, which hid the typo (found by a helper checking the
    /// docs' quoted message).
    @Test(arguments: [#"{"weekDay": 3}"#, #"{"hour": 9, "weekDay": 3}"#])
    func aMistypedComponentIsNamed(dateMatching: String) throws {
        let json = #"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": "# + dateMatching + "}}"
        #expect(throws: RequestError(.invalidTrigger, #"unknown field "trigger.dateMatching.weekDay" (not a DateComponents field)"#,
                                     field: "trigger.dateMatching.weekDay")) {
            try decode(json)
        }
    }

    @Test func unknownKeysWarn() throws {
        var warnings: [String] = []
        _ = try NotificationRequest(json: try JSONValue.parse(#"{"identifier": "x", "content": {"title": "t"}, "colour": "red"}"#), warnings: &warnings)
        #expect(warnings == [#"unknown field "colour" ignored"#])
    }

    @Test(arguments: [
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "weekDay": 2}}}"#, RequestErrorCode.invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {}}}"#, .invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 9.5}}}"#, .invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "calendar": "martian"}}}"#, .invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 0}}"#, .invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 59.9, "repeats": true}}"#, .invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": "yes"}}"#, .invalidTrigger),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"center": {"latitude": 0, "longitude": 181}, "radius": 1}}}"#, .invalidRegion),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"center": {"latitude": 0, "longitude": 1}, "radius": 1000001}}}"#, .invalidRegion),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"center": {"latitude": 0, "longitude": 1}}}}"#, .invalidRegion),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"geometry": {"type": "Point", "coordinates": [0, 0]}}}}"#, .invalidRegion),
        (#"{"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "location"}}"#, .invalidRegion),
        (#"{"identifier": "", "content": {"title": "t"}}"#, .invalidRequest),
        (#"{"identifier": 7, "content": {"title": "t"}}"#, .invalidRequest),
        (#"{"identifier": "x", "content": {"title": "t", "badge": -1}}"#, .invalidRequest),
        (#"{"identifier": "x", "content": {"title": "t"}, "addedAt": "yesterday"}"#, .invalidRequest),
        (#"{"identifier": "x"}"#, .notificationInvalidNoContent),
        (#"{"identifier": "x", "content": {"userInfo": {"a": 1}}}"#, .notificationInvalidNoContent),
    ])
    func refusals(json: String, code: RequestErrorCode) throws {
        do {
            _ = try decode(json)
            Issue.record("accepted \(json)")
        } catch let e as RequestError {
            #expect(e.code == code, "\(e)")
            #expect(!e.message.isEmpty)
        }
    }
}
