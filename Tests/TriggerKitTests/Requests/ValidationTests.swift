import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 8: one validator for every way in. Each case here was accepted (or trapped) by the
/// library's `add` or by `check` before, while the JSON path refused it or `run` crashed.
@Suite("One validator")
struct ValidationTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)  // 2026-11-27T09:00:00Z

    static func request(_ trigger: NotificationTrigger = .immediate, identifier: String = "r",
                        content: NotificationContent = NotificationContent(title: "t"), device: String? = nil,
                        addedAt: Date? = t0) -> NotificationRequest {
        NotificationRequest(identifier: identifier, content: content, trigger: trigger, device: device, addedAt: addedAt)
    }

    static func interval(_ s: Double, repeats: Bool = false) -> NotificationTrigger {
        .timeInterval(TimeIntervalTrigger(timeInterval: s, repeats: repeats))
    }

    static func circle(lat: Double = 40, lon: Double = -74, radius: Double = 100) -> NotificationTrigger {
        .location(LocationTrigger(region: .circular(CircularRegion(identifier: "c", center: Coordinate(latitude: lat, longitude: lon), radius: radius)), repeats: true))
    }

    static func polygon(_ rings: [[(Double, Double)]]) -> NotificationTrigger {
        let r = rings.map { $0.map { Coordinate(latitude: $0.1, longitude: $0.0) } }
        return .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "p", polygons: [r], isMultiPolygon: false)), repeats: true))
    }

    /// Requests the library used to accept; each must now be refused with this code.
    static let refused: [(String, NotificationRequest, RequestErrorCode)] = [
        ("empty identifier", request(identifier: ""), .invalidRequest),
        ("identifier over 1024 bytes", request(identifier: String(repeating: "é", count: 513)), .invalidRequest),
        ("nothing to present", request(content: NotificationContent(categoryIdentifier: "c")), .notificationInvalidNoContent),
        ("badge -3", request(content: NotificationContent(badge: -3)), .invalidRequest),
        ("repeating 10 s", request(interval(10, repeats: true)), .invalidTrigger),
        ("interval 0", request(interval(0)), .invalidTrigger),
        ("interval -60 repeating", request(interval(-60, repeats: true)), .invalidTrigger),
        ("interval NaN", request(interval(.nan)), .invalidTrigger),
        ("interval inf", request(interval(.infinity, repeats: true)), .invalidTrigger),
        ("interval 1e300", request(interval(1e300)), .invalidTrigger),
        ("interval 1e16", request(interval(1e16)), .invalidTrigger),
        // Its only fire after 9999-12-31 (it was accepted and never fired).
        ("one-shot firing after 9999", request(interval(1), addedAt: Date(timeIntervalSince1970: 253_402_300_799.999)), .invalidTrigger),
        ("one-shot firing after 9999, repeating", request(interval(3600, repeats: true), addedAt: Date(timeIntervalSince1970: 253_402_300_000)), .invalidTrigger),
        ("addedAt 1e16 s", request(addedAt: Date(timeIntervalSince1970: 1e16)), .invalidRequest),
        ("addedAt NaN", request(addedAt: Date(timeIntervalSince1970: .nan)), .invalidRequest),
        ("addedAt distantPast", request(addedAt: .distantPast), .invalidRequest),
        ("latitude NaN", request(circle(lat: .nan)), .invalidRegion),
        ("longitude 181", request(circle(lon: 181)), .invalidRegion),
        ("radius 0", request(circle(radius: 0)), .invalidRegion),
        ("radius NaN", request(circle(radius: .nan)), .invalidRegion),
        ("radius 1e300", request(circle(radius: 1e300)), .invalidRegion),
        ("three positions", request(polygon([[(0, 0), (1, 0), (0, 0)]])), .invalidRegion),
        ("unclosed ring", request(polygon([[(0, 0), (1, 0), (1, 1), (0, 1)]])), .invalidRegion),
        ("bowtie", request(polygon([[(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]])), .invalidRegion),
        ("hole outside its shell", request(polygon([[(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)],
                                                   [(5, 5), (6, 5), (6, 6), (5, 6), (5, 5)]])), .invalidRegion),
        ("year 10000", request(.calendar(CalendarTrigger(dateMatching: DateComponents(year: 10_000, month: 1), repeats: false))), .invalidTrigger),
        ("quarter", request(.calendar(CalendarTrigger(dateMatching: DateComponents(quarter: 1), repeats: true))), .invalidTrigger),
    ]

    @Test(arguments: refused.indices)
    func libraryAddRefusesWhatTheJSONPathRefuses(_ k: Int) async throws {
        let (name, r, code) = Self.refused[k]
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        do {
            try await center.add(r)
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
        }
        #expect(await center.pendingRequests().isEmpty, "\(name)")
        // The same verdict from the value check every path shares.
        #expect(throws: RequestError.self, "\(name)") { try RequestValidation.checkValue(r) }
    }

    /// A `nanosecond` field in the supported range's last second fires at the millisecond it
    /// falls in, the last supported one: Foundation's `Date` reads 23:59:59.999999999 as the
    /// next second (year 10000), and this request was refused as one that could never fire,
    /// while `{second 59, nanosecond 999999999}` fired at .999 every minute (found by a helper).
    @Test func aNanosecondInTheLastSupportedSecondFiresAtItsMillisecond() throws {
        func last(_ nanosecond: Int) -> NotificationRequest {
            NotificationRequest(identifier: "last", content: NotificationContent(title: "x"), trigger: .calendar(CalendarTrigger(
                dateMatching: DateComponents(timeZone: TimeZone(identifier: "UTC"), year: 9999, month: 12, day: 31, hour: 23, minute: 59,
                                             second: 59, nanosecond: nanosecond), repeats: false)))
        }
        let options = ValidationOptions(now: Self.t0)
        try RequestValidation.validate(last(999_999_999), options: options)
        try RequestValidation.validate(last(998_000_000), options: options)
        guard case .calendar(let lastOne) = last(999_999_999).trigger, case .calendar(let earlier) = last(998_000_000).trigger else { return }
        let utc = TimeZone(identifier: "UTC")!
        #expect(CalendarSchedule(lastOne, floatingTimeZone: utc).nextFire(afterMillis: Timestamp.millis(Self.t0)) == RequestLimits.latestMillis)
        #expect(CalendarSchedule(earlier, floatingTimeZone: utc).nextFire(afterMillis: Timestamp.millis(Self.t0)) == RequestLimits.latestMillis - 1)
    }

    /// A `Date` in the last millisecond of 9999 (253402300799.9995) was refused as `addedAt`
    /// and in a fix, while the same instant as JSON text or a number was accepted (read to its
    /// millisecond): every way in judges the millisecond (a helper's find).
    @Test func theLastMillisecondIsSupportedWhateverWayADateComes() throws {
        let inside = Date(timeIntervalSince1970: 253_402_300_799.9995)
        #expect(RequestLimits.millis(inside) == RequestLimits.latestMillis)
        #expect(RequestLimits.millis(Date(timeIntervalSince1970: 253_402_300_800)) == nil)
        #expect(RequestLimits.millis(Date(timeIntervalSince1970: -62_135_596_800)) == RequestLimits.earliestMillis)
        #expect(RequestLimits.millis(Date(timeIntervalSince1970: -62_135_596_800.0005)) == nil)
        let options = ValidationOptions(now: Self.t0)
        try RequestValidation.validate(Self.request(addedAt: inside), options: options)
        let text = try RequestsFile.parse(#"{"identifier": "r", "content": {"title": "t"}, "addedAt": 253402300799.9995}"#)
        #expect(text.requests.count == 1, "\(text.diagnostics)")
        // Past the years, whatever the form, the message says the range (year 10000 as text
        // and 1e300 were said not to be dates at all); text that is no date says so.
        for (value, message) in [(#""10000-01-01T00:00:00Z""#, "must be between 0001-01-01 and 9999-12-31"),
                                 ("1e300", "must be between 0001-01-01 and 9999-12-31"),
                                 ("253402300800", "must be between 0001-01-01 and 9999-12-31"),
                                 (#""10000-01-01""#, "must be an ISO 8601 date or seconds since 1970"),
                                 (#""soon""#, "must be an ISO 8601 date or seconds since 1970")] {
            let set = RequestsFile.parse(#"{"identifier": "r", "content": {"title": "t"}, "addedAt": \#(value)}"#)
            #expect(set.diagnostics.first?.message.contains(message) == true, "\(value): \(set.diagnostics)")
            let line = #"{"t": \#(value)}"#
            let e = #expect(throws: StreamLineError.self) { try StreamLineParser.time(try JSONValue.parse(line).objectValue?["t"]) }
            let said = message.hasPrefix("must be between") ? "must be within the supported dates (0001-01-01 to 9999-12-31)" : message
            #expect(e?.description.contains(said) == true, "\(value): \(String(describing: e))")
        }
    }

    /// A bad position is named by its path (its path is built only for the error).
    /// A request without `addedAt`, validated with a reference instant (`check --now`, a
    /// requests file under `run --now`), is added then: held to the rules an explicit
    /// `addedAt` is (a 60 s interval at 9999-12-31T23:59:59Z passed `check` and never fired;
    /// an `expiresAt` before the instant passed silently; helpers' finds).
    @Test func aRequestWithoutAddedAtIsJudgedAtTheReferenceInstant() throws {
        let late = try #require(Timestamp.parseMillis("9999-12-31T23:59:59Z")).map(Timestamp.date(millis:))
        let options = ValidationOptions(now: late)
        let interval = Self.request(Self.interval(60), addedAt: nil)
        let e1 = #expect(throws: RequestError.self) { try RequestValidation.validate(interval, options: options) }
        #expect(e1?.code == .invalidTrigger)
        #expect(e1?.message.hasPrefix("its first fire, 60 s after it is added (9999-12-31T23:59:59Z), is after") == true, "\(String(describing: e1))")
        // The same as with the instant written as `addedAt`.
        #expect(throws: RequestError.self) { try RequestValidation.validate(Self.request(Self.interval(60), addedAt: late), options: options) }
        var expired = Self.request(Self.circle(), addedAt: nil)
        expired.expiresAt = Self.t0
        let e2 = #expect(throws: RequestError.self) { try RequestValidation.validate(expired, options: ValidationOptions(now: Self.t0.addingTimeInterval(60))) }
        #expect(e2?.code == .invalidRequest)
        #expect(e2?.message.contains("is not after the instant it is added") == true, "\(String(describing: e2))")
        // Before the reference instant's rules apply, nothing else changed: both pass earlier.
        try RequestValidation.validate(interval, options: ValidationOptions(now: Self.t0))
        try RequestValidation.validate(expired, options: ValidationOptions(now: Self.t0.addingTimeInterval(-60)))
    }

    @Test func aBadPolygonPositionIsNamedByItsPath() {
        let bad = Self.request(Self.polygon([[(0, 0), (1, 0), (1, 91), (0, 1), (0, 0)]]))
        #expect(throws: RequestError(.invalidRegion, "latitude of \"trigger.region.geometry.coordinates[0][2]\" must be in [-90, 90], not 91",
                                     field: "trigger.region.geometry.coordinates[0][2]")) {
            try RequestValidation.checkValue(bad)
        }
        let multi = NotificationRequest(identifier: "m", content: NotificationContent(title: "t"), trigger: .location(LocationTrigger(
            region: .polygon(PolygonRegion(identifier: "m", polygons: [[[(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)].map { Coordinate(latitude: $0.1, longitude: $0.0) }],
                                                                       [[Coordinate(latitude: 5, longitude: 5), Coordinate(latitude: 5, longitude: -200)]]],
                                           isMultiPolygon: true)), repeats: true)))
        #expect(throws: RequestError(.invalidRegion, "longitude of \"trigger.region.geometry.coordinates[1][0][1]\" must be in [-180, 180], not -200",
                                     field: "trigger.region.geometry.coordinates[1][0][1]")) {
            try RequestValidation.checkValue(multi)
        }
    }

    @Test func checkAndRunGiveTheSameVerdictOnPolygons() {
        // A bowtie: `check` (the requests loader) used to accept it and `run` to refuse it.
        let text = """
        {"identifier": "bow", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}}}
        {"identifier": "ok", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1],[0,0]]]}}}}
        """
        let set = RequestsFile.parse(text, file: "p.ndjson", options: ValidationOptions(now: Self.t0))
        #expect(set.requests.map(\.identifier) == ["ok"])
        #expect(set.diagnostics.first?.code == .invalidRegion)
        #expect(set.diagnostics.first?.message.contains("Self-intersection") == true)
        #expect(StreamEvaluator(requests: set.requests).refusedRegions.isEmpty)
    }

    /// The region index checks a polygon's validity itself unless told the validator did: a
    /// bowtie given straight to the engine is refused there; a validated set's polygons are
    /// not checked again, and answer as when they are.
    @Test func theIndexChecksPolygonsTheValidatorHasNotSeen() {
        let bow = NotificationRequest(identifier: "bow", content: NotificationContent(title: "x"), trigger: .location(LocationTrigger(
            region: .polygon(PolygonRegion(identifier: "bow", polygons: [[[(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)].map { Coordinate(latitude: $0.1, longitude: $0.0) }]],
                                           isMultiPolygon: false)), repeats: true)))
        let unchecked = StreamEvaluator(requests: [bow])
        #expect(unchecked.refusedRegions.count == 1)
        #expect(unchecked.refusedRegions.first?.reason.contains("Self-intersection") == true)
        let text = """
        {"identifier": "ok", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1],[0,0]],[[0.2,0.2],[0.2,0.4],[0.4,0.4],[0.4,0.2],[0.2,0.2]]]}}}}
        {"identifier": "multi", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"geometry": {"type": "MultiPolygon", "coordinates": [[[[2,0],[3,0],[3,1],[2,0]]],[[[4,0],[5,0],[5,1],[4,0]]]]}}}}
        """
        let set = RequestsFile.parse(text, file: "p.ndjson", options: ValidationOptions(now: Self.t0))
        #expect(set.requests.count == 2)
        let checked = StreamEvaluator(requests: set.requests), trusted = StreamEvaluator(requests: set.requests, polygonsValidated: true)
        #expect(checked.refusedRegions.isEmpty && trusted.refusedRegions.isEmpty)
        for (lat, lon) in [(0.5, 0.5), (0.3, 0.3), (0.2, 0.3), (0.0, 0.5), (0.5, 2.9), (0.5, 4.5), (0.9, 4.95), (1.5, 1.5)] {
            #expect(checked.regionIndex.hits(lat, lon) == trusted.regionIndex.hits(lat, lon), "at (\(lat), \(lon))")
        }
        #expect(checked.regionIndex.hits(0.5, 0.5).count == 1 && checked.regionIndex.hits(0.3, 0.3).isEmpty)
    }

    /// User info built in code can hold what no JSON text can (a NaN, an infinity) or nest
    /// past every reader's limit; the validator refuses it, naming where, so a center never
    /// keeps a request its snapshot could not write and read back.
    @Test func userInfoMustBeWritableJSON() throws {
        func request(_ info: [String: JSONValue]) -> NotificationRequest {
            NotificationRequest(identifier: "u", content: NotificationContent(title: "t", userInfo: info))
        }
        let options = ValidationOptions(now: Self.t0)
        for (info, path, reason) in [
            (["x": JSONValue.number(.nan)], "content.userInfo.x", "must be a finite number, not nan"),
            (["a": .array([.number(1), .object(["b": .number(-.infinity)])])], "content.userInfo.a[1].b", "must be a finite number, not -inf"),
        ] {
            let error = #expect(throws: RequestError.self) { try RequestValidation.validate(request(info), options: options) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message == "\"\(path)\" \(reason)")
        }
        func nested(_ levels: Int) -> JSONValue {
            var v = JSONValue.array([])
            for _ in 0..<levels { v = .array([v]) }
            return v
        }
        // 511 levels below the user info object: accepted; 600: refused (no recursion past the limit).
        try RequestValidation.validate(request(["deep": nested(510)]), options: options)
        let deep = #expect(throws: RequestError.self) { try RequestValidation.validate(request(["deep": nested(600)]), options: options) }
        #expect(deep?.message.hasSuffix("is nested deeper than 512 levels") == true)
        // A badge JSON cannot hold exactly (Int.max) is refused; 2^53 and exact larger ones pass.
        for (badge, accepted) in [(Int.max, false), (1 << 53 + 1, false), (1 << 53, true), (9_223_372_036_854_774_784, true)] {
            let r = NotificationRequest(identifier: "b", content: NotificationContent(badge: badge))
            if accepted {
                try RequestValidation.validate(r, options: options)
            } else {
                #expect(throws: RequestError.self, "\(badge)") { try RequestValidation.validate(r, options: options) }
            }
        }
        // Finite numbers, strings, booleans and null pass.
        try RequestValidation.validate(request(["n": .number(1e300), "s": .string("x"), "b": .bool(true), "z": .null]), options: options)
    }

    /// A calendar trigger built in code must say what a requests file can: at least one date
    /// component (a file's reader refuses `{"timeZone": ...}` alone), and no `isLeapMonth`
    /// (the contract has no such field: it would be lost in every listing and snapshot).
    @Test func calendarTriggersHoldOnlyWhatTheContractCanSay() throws {
        let options = ValidationOptions(now: Self.t0)
        func request(_ c: DateComponents) -> NotificationRequest {
            NotificationRequest(identifier: "c", content: NotificationContent(title: "t"), trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)))
        }
        let empty = #expect(throws: RequestError.self) {
            try RequestValidation.validate(request(DateComponents(timeZone: TimeZone(identifier: "America/Asuncion"))), options: options)
        }
        #expect(empty?.message == "\"trigger.dateMatching\" needs at least one date component (e.g. \"hour\")")
        var leap = DateComponents(calendar: Calendar(identifier: .chinese), month: 4, day: 1)
        leap.isLeapMonth = true
        let leapError = #expect(throws: RequestError.self) { try RequestValidation.validate(request(leap), options: options) }
        #expect(leapError?.code == .invalidTrigger)
        // A file's reader names it the same way (it said "not a DateComponents field": a helper).
        let leapFile = RequestsFile.parse(#"{"identifier": "c", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"month": 4, "isLeapMonth": 1, "calendar": "chinese"}}}"#)
        #expect(leapFile.diagnostics.first?.message == leapError?.message)
        #expect(leapError?.message == RequestValidation.leapMonthRefusal)
        // The same through a file: the reader refuses the first with the same message.
        let set = RequestsFile.parse(#"{"identifier": "c", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"timeZone": "America/Asuncion"}}}"#)
        #expect(set.diagnostics.first?.message == empty?.message)
        try RequestValidation.validate(request(DateComponents(nanosecond: 5)), options: options)
    }

    @Test func codableDecodingRunsTheSameChecks() throws {
        let bad = #"{"identifier": "x", "content": {"badge": -3}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NotificationRequest.self, from: Data(bad.utf8)) }
        let good = #"{"identifier": "x", "content": {"badge": 3}}"#
        #expect(try JSONDecoder().decode(NotificationRequest.self, from: Data(good.utf8)).content.badge == 3)
    }

    @Test func identifiersAreExactScalarSequences() {
        // "café" precomposed and decomposed are two requests, not a replacement.
        let text = """
        {"identifier": "caf\\u00e9", "content": {"title": "1"}}
        {"identifier": "cafe\\u0301", "content": {"title": "2"}}
        """
        let set = RequestsFile.parse(text, file: "t", options: ValidationOptions(now: Self.t0))
        #expect(set.requests.count == 2)
        #expect(set.warningCount == 0)
    }

    @Test func invalidUTF8InARequestsFileNamesTheLine() {
        var bytes = Array(#"{"identifier": "a", "content": {"title": "ok"}}"#.utf8) + [0x0A]
        bytes += Array(#"{"identifier": "b"#.utf8) + [0xFF] + Array(#"", "content": {"title": "x"}}"#.utf8)
        let set = bytes.withUnsafeBufferPointer { RequestsFile.parse($0, file: "u", options: ValidationOptions(now: Self.t0)) }
        #expect(set.requests.map(\.identifier) == ["a"])
        #expect(set.diagnostics.first?.location == .line(2))
        #expect(set.diagnostics.first?.message.contains("UTF-8") == true)
    }

    @Test func runWithoutNowDoesNotJudgeRequestsByTheMachineClock() throws {
        // A replay of 2020: the request has no addedAt; its fixed-year date is in the past of
        // the machine's clock but not of the stream. It used to be refused as never firing.
        let text = #"{"identifier": "june", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"year": 2020, "month": 6, "day": 1, "hour": 9, "timeZone": "UTC"}}}"#
        let deferred = RequestsFile.parse(text, file: "t", options: ValidationOptions(deferTimeChecks: true))
        #expect(deferred.requests.count == 1)
        var options = StreamOptions()
        options.maxClockJump = nil
        var walk = StreamHarness(requests: text, options: options)
        #expect(walk.feed([#"{"t": "2020-01-01T00:00:00Z"}"#, #"{"t": "2020-06-02T00:00:00Z"}"#], format: .ids) == ["june"])
        // Still refused when nothing can ever match, reference or not.
        let never = #"{"identifier": "n", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"weekdayOrdinal": 6}}}"#
        #expect(RequestsFile.parse(never, file: "t", options: ValidationOptions(deferTimeChecks: true)).requests.isEmpty)
    }

    @Test func otherCalendarsAndFarWeekYearsAreAskedOfFoundationBeforeRefusing() throws {
        // These were refused as "never fires"; Foundation finds dates for all three.
        let ref = Date(timeIntervalSince1970: 1_795_305_600)  // 2026-11-22T00:00:00Z
        let utc = try #require(TimeZone(identifier: "UTC"))
        func comps(_ id: Calendar.Identifier?, _ c: DateComponents) -> CalendarTrigger {
            var c = c
            if let id { c.calendar = Calendar(identifier: id) }
            c.timeZone = utc
            return CalendarTrigger(dateMatching: c, repeats: false)
        }
        let cases = [
            comps(.hebrew, DateComponents(month: 13, day: 1)),
            comps(.japanese, DateComponents(era: 236, year: 10, month: 1, day: 1)),
            comps(nil, DateComponents(weekday: 2, weekOfYear: 1, yearForWeekOfYear: 2500)),
            // Adar I exists in leap years only (7 in 19); the next one is years away.
            comps(.hebrew, DateComponents(month: 6, day: 30)),
            comps(.buddhist, DateComponents(year: 2580, month: 1, day: 1)),
            comps(.islamicUmmAlQura, DateComponents(month: 9, day: 1)),
            comps(.iso8601, DateComponents(weekday: 5, weekOfYear: 53, yearForWeekOfYear: 2032)),
        ]
        for t in cases {
            #expect(CalendarFeasibility.noDateReason(t, after: ref, floatingTimeZone: utc) == nil, "\(t.dateComponents)")
            let foundation = CalendarEngine.foundationNextDate(t, after: ref, floatingTimeZone: utc)
            #expect(foundation != nil)
            #expect(CalendarSchedule(t, floatingTimeZone: utc).nextDate(after: ref) == foundation, "\(t.dateComponents)")
        }
    }

    /// A reference instant out of range was clamped: a calendar trigger without `addedAt`
    /// was judged against year 1 (a past year accepted) or 9999 (refused as never firing).
    @Test(arguments: [Double.nan, 1e12, -1e12])
    func aValidationReferenceOutsideTheSupportedDatesIsRefused(_ seconds: Double) {
        let r = Self.request(.calendar(CalendarTrigger(dateMatching: DateComponents(hour: 9), repeats: true)), addedAt: nil)
        let error = #expect(throws: RequestError.self) {
            try RequestValidation.validate(r, options: ValidationOptions(now: Date(timeIntervalSince1970: seconds)))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("reference instant") == true)
    }

    @Test func extremeValuesNeverTrapAnyEntryPoint() async throws {
        // Seeded property test: random extreme requests through every entry point; each is
        // accepted or refused with a typed error, and accepted ones plan without trapping.
        var rng = SeededGenerator(seed: 8)
        let doubles: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 0, -0.0, 1e-9, 59.999, 60, 1e16,
                                 .greatestFiniteMagnitude, .leastNonzeroMagnitude, 3_155_760_000, 3_155_760_001, -90, 90, 180]
        let dates: [Date?] = [nil, .distantPast, .distantFuture, Date(timeIntervalSince1970: 1e16), Date(timeIntervalSince1970: -1e16),
                              Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: 253_402_300_799), Self.t0]
        let ints = [Int.min, Int.max, Int(Int32.max), -1, 0, 1, 13, 236, 2500, 9999, 10_000]
        let clock = ManualClock(Self.t0)
        let center = try TriggerCenter(clock: clock)
        var accepted = 0, refused = 0
        for k in 0..<600 {
            let d = { doubles.randomElement(using: &rng)! }
            let trigger: NotificationTrigger
            switch k % 4 {
            case 0: trigger = Self.interval(d(), repeats: Bool.random(using: &rng))
            case 1: trigger = Self.circle(lat: d(), lon: d(), radius: d())
            case 2:
                var c = DateComponents()
                for f in DateMatchingField.allCases where Int.random(in: 0..<4, using: &rng) == 0 {
                    f.set(ints.randomElement(using: &rng)!, in: &c)
                }
                trigger = .calendar(CalendarTrigger(dateMatching: c, repeats: Bool.random(using: &rng)))
            default: trigger = Self.polygon([[(d(), d()), (d(), d()), (d(), d()), (d(), d())]])
            }
            let r = Self.request(trigger, identifier: "r\(k)", content: NotificationContent(badge: ints.randomElement(using: &rng)!),
                                 addedAt: dates.randomElement(using: &rng)!)
            do {
                try await center.add(r)
                accepted += 1
            } catch {
                refused += 1
            }
            // The evaluator takes unvalidated requests and must not trap either.
            let e = StreamEvaluator(requests: [r], options: StreamOptions(now: Self.t0))
            var out: [FiredEvent] = []
            try? e.process(.clock(Timestamp.millis(Self.t0) + 86_400_000), into: &out)
            // Bounded by the rules: at most one coalesced fire for what lies beyond the 7-day
            // window, then one per 60 s (intervals) or per second (calendars) within it.
            let window = Int(StreamOptions.defaultMaxClockJump)
            #expect(out.count <= (k % 4 == 2 ? window + 2 : window / 60 + 2))
        }
        #expect(accepted + refused == 600)
        #expect(accepted > 0 && refused > 0)
        clock.advance(to: Self.t0.addingTimeInterval(86_400))
        _ = await center.deliverDue()
    }
}

/// Integers too large for a JSON number to hold exactly (the bound is 9e15) are refused saying so, not quoted as
/// a neighbouring number as if it were the one given ("not 9007199254740992.0" for ...993).
@Suite("Integers past 15 digits")
struct LargeIntegerMessageTests {
    @Test(arguments: [
        (#""trigger": {"type": "calendar", "dateMatching": {"year": 9223372036854775807}, "repeats": false}"#, "trigger.dateMatching.year"),
        (#""trigger": {"type": "calendar", "dateMatching": {"nanosecond": -9223372036854775809}, "repeats": false}"#, "trigger.dateMatching.nanosecond"),
    ])
    func aHugeDateComponentIsNamedAsTooLong(trigger: String, field: String) {
        let set = RequestsFile.parse(#"{"identifier": "r", "content": {"title": "t"}, \#(trigger)}"#)
        let message = set.diagnostics.first?.message ?? ""
        #expect(message.contains("\"\(field)\" must be an integer between -8999999999999999 and 8999999999999999"), "\(message)")
        #expect(!message.contains("must be an integer, not"), "\(message)")
    }

    @Test func aHugeBadgeIsNamedAsTooLong() {
        let set = RequestsFile.parse(#"{"identifier": "r", "content": {"title": "t", "badge": 9007199254740993}}"#)
        let message = set.diagnostics.first?.message ?? ""
        #expect(message.contains("\"content.badge\" must be an integer between -8999999999999999 and 8999999999999999"), "\(message)")
        #expect(set.requests.isEmpty)
    }
}
