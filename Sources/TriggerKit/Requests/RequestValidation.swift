import Foundation

/// What validation of a request needs beyond the request itself.
public struct ValidationOptions: Sendable {
    /// Reference instant for requests without `addedAt` (the contract's "now"). `nil` means
    /// the current time, unless ``deferTimeChecks`` is set.
    public var now: Date?
    /// Zone that floating calendar triggers follow.
    public var floatingTimeZone: TimeZone
    /// Per-device notification settings; devices not listed get ``defaultSettings``.
    public var deviceSettings: [String: NotificationSettings]
    /// Settings of devices not in ``deviceSettings``.
    public var defaultSettings: NotificationSettings
    /// When true and ``now`` is `nil`, a request without `addedAt` is not judged against the
    /// machine's clock: its reference instant is not known yet (`triggerkit run` learns it
    /// from the stream's first `t`). Components that can never match are still refused.
    public var deferTimeChecks: Bool
    /// The evaluator's hysteresis (`--margin`, ``CenterConfiguration/margin``), metres: a
    /// circle whose radius is not above it could never be entered (entering needs distance
    /// <= radius - margin) and is refused with `invalidRegion`.
    public var margin: Double = 0

    /// Options as the fields above say (by default: now, UTC, every device authorized).
    public init(now: Date? = nil, floatingTimeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current,
                deviceSettings: [String: NotificationSettings] = [:], defaultSettings: NotificationSettings = .authorized,
                deferTimeChecks: Bool = false) {
        self.now = now
        self.floatingTimeZone = floatingTimeZone
        self.deviceSettings = deviceSettings
        self.defaultSettings = defaultSettings
        self.deferTimeChecks = deferTimeChecks
    }
}

/// The one validator: every way a request comes in (requests file, stream line, `Codable`,
/// ``TriggerCenter/add(_:)``, `check`) goes through it, so all of them accept and refuse the
/// same requests with the same codes and messages.
public enum RequestValidation: Sendable {
    /// Why `isLeapMonth` is refused (by a file's reader and by a request built in code alike):
    /// a DateComponents field, but Foundation's search answers months that are not leap months
    /// for it (a helper's find); "not a DateComponents field" was not true.
    package static let leapMonthRefusal = "\"trigger.dateMatching.isLeapMonth\" is not supported: Foundation's search does not honour it (some of its answers are not leap months)"

    /// Checks every rule: ``checkValue(_:)`` and then what depends on context (whether a
    /// calendar trigger can still fire after its reference instant, the device's
    /// authorization).
    ///
    /// - Throws: ``RequestError`` naming the offending field.
    public static func validate(_ request: NotificationRequest, options: ValidationOptions) throws(RequestError) {
        try checkValue(request)
        // The caller's reference instant, when given, is held to the supported dates too (a NaN
        // or a year past 9999 was clamped, and a calendar trigger judged against year 1 or 9999).
        if let now = options.now, !RequestLimits.isSupported(now) {
            throw RequestError(.invalidRequest, "the validation's reference instant (\(now.timeIntervalSince1970) s since 1970) is outside the supported dates (years 1-9999)")
        }
        // Without its own `addedAt` a request is added at the reference instant: held to what
        // `checkValue` holds an explicit one to (a 60 s interval under `--now` 9999-12-31T23:59:59Z
        // passed and never fired; an `expiresAt` before the instant was taken silently).
        if request.addedAt == nil, let now = options.now, let added = RequestLimits.millis(now) {
            try checkFirstFire(request, added: added, after: "it is added (\(describe(now)))")
            try checkExpiry(request, added: added, after: "the instant it is added (\(describe(now)))")
        }
        if options.margin > 0, case .location(let t) = request.trigger, case .circular(let c) = t.region, c.radius <= options.margin {
            throw RequestError(.invalidRegion, "radius \(c.radius) m is not above the margin \(options.margin) m: the region could never be entered (entering needs distance <= radius - margin)", field: "trigger.region.radius")
        }
        if let device = request.device {
            let status = (options.deviceSettings[device] ?? options.defaultSettings).authorizationStatus
            guard status.allowsDelivery else {
                throw RequestError(.notificationsNotAllowed, "device \"\(device)\" has not authorized notifications (authorizationStatus \(status.rawValue))", field: "device")
            }
        }
        guard case .calendar(let trigger) = request.trigger else { return }
        let reference: Date
        if let added = request.addedAt ?? options.now {
            reference = added
        } else if options.deferTimeChecks {
            // Only what can be decided without a reference instant.
            if let why = CalendarSchedule(trigger, floatingTimeZone: options.floatingTimeZone).neverFiresReason {
                throw RequestError(.notificationInvalidNoDate, "\(why): the trigger can never fire", field: "trigger.dateMatching")
            }
            return
        } else {
            reference = Date()
        }
        if let reason = CalendarFeasibility.noDateReason(trigger, after: reference, floatingTimeZone: options.floatingTimeZone) {
            throw RequestError(.notificationInvalidNoDate, reason, field: "trigger.dateMatching")
        }
    }

    /// The rules that depend on the request alone: a non-empty identifier and a device id of
    /// at most ``RequestLimits/maximumIdentifierBytes`` each (a device id may be empty), presentable content, a badge >= 0,
    /// `addedAt` within ``RequestLimits/supportedDates``, finite numbers, a time interval in
    /// (0, 100 years] and >= 60 s when repeating, calendar fields the engine supports,
    /// coordinates in range, a radius in (0, 1,000,000] m, and polygons that are valid
    /// (closed rings of >= 4 positions, GEOS `IsValid`, with GEOS's reason).
    ///
    /// - Complexity: O(1), plus O(v log v) for a polygon of v vertices.
    public static func checkValue(_ r: NotificationRequest) throws(RequestError) {
        try checkIdentifier(r.identifier, field: "identifier", code: .invalidRequest)
        if let d = r.device, let v = FixRules.deviceViolation(utf8Count: d.utf8.count) {
            throw RequestError(.invalidRequest, "\"device\" \(v.reason)", field: "device")
        }
        try checkContent(r.content)
        if let added = r.addedAt, RequestLimits.millis(added) == nil {
            throw RequestError(.invalidRequest, "\"addedAt\" must be between 0001-01-01 and 9999-12-31, not \(describe(added))", field: "addedAt")
        }
        if let expires = r.expiresAt, RequestLimits.millis(expires) == nil {
            throw RequestError(.invalidRequest, "\"expiresAt\" must be between 0001-01-01 and 9999-12-31, not \(describe(expires))", field: "expiresAt")
        }
        let added = r.addedAt.flatMap(RequestLimits.millis)
        if let added, let a = r.addedAt { try checkExpiry(r, added: added, after: "\"addedAt\" (\(describe(a)))") }
        switch r.trigger {
        case .immediate:
            break
        case .timeInterval(let t):
            try checkInterval(t)
            if let added { try checkFirstFire(r, added: added, after: "\"addedAt\"") }
        case .calendar(let t):
            try checkCalendar(t)
        case .location(let t):
            try checkRegion(t.region)
            if t.hasRules { try checkRules(t.rules, region: t.region, repeats: t.repeats) }
        }
    }

    static func checkIdentifier(_ s: String, field: String, code: RequestErrorCode) throws(RequestError) {
        guard !s.isEmpty else { throw RequestError(code, "\"\(field)\" must not be empty", field: field) }
        guard s.utf8.count <= RequestLimits.maximumIdentifierBytes else {
            throw RequestError(code, "\"\(field)\" is longer than \(RequestLimits.maximumIdentifierBytes) UTF-8 bytes", field: field)
        }
    }

    static func checkContent(_ c: NotificationContent) throws(RequestError) {
        // Identifiers, held to the bound every identifier has (a category named in 5,000 bytes
        // was taken: a helper embedding the library).
        for (field, value) in [("content.categoryIdentifier", c.categoryIdentifier), ("content.threadIdentifier", c.threadIdentifier)] {
            if let value, value.utf8.count > RequestLimits.maximumIdentifierBytes {
                throw RequestError(.invalidRequest, "\"\(field)\" is longer than \(RequestLimits.maximumIdentifierBytes) UTF-8 bytes", field: field)
            }
        }
        if let b = c.badge, b < 0 {
            throw RequestError(.invalidRequest, "\"content.badge\" must be >= 0, not \(b)", field: "content.badge")
        }
        // A JSON number holds every integer up to 2^53 and only some above: a badge built in
        // code past that (Int.max) would be written as another number.
        if let b = c.badge, Int(exactly: Double(b)) != b {
            throw RequestError(.invalidRequest, "\"content.badge\" \(b) is not an integer a JSON number holds exactly (every one up to 2^53 is)", field: "content.badge")
        }
        guard c.hasPresentableContent else {
            throw RequestError(.notificationInvalidNoContent, "content needs at least one of title, subtitle, body, sound, badge", field: "content")
        }
        if let info = c.userInfo, let bad = badJSON(.object(info), depth: 1) {
            let path = "content.userInfo" + bad.path.reversed().joined()
            throw RequestError(.invalidRequest, "\"\(path)\" \(bad.reason)", field: path)
        }
    }

    /// The deepest JSON nesting user info may have (as the JSON reader's limit): a value built
    /// in code could be nested a million levels deep, and every writer recurses.
    static let maximumUserInfoDepth = 512

    /// The first value JSON cannot hold in `v` (a NaN or an infinity, which no JSON text can
    /// write), or nesting past ``maximumUserInfoDepth``: its path (innermost first) and what
    /// is wrong; nil when there is none. Stops at the first (the path is built only then).
    static func badJSON(_ v: JSONValue, depth: Int) -> (path: [String], reason: String)? {
        switch v {
        case .number(let d):
            return d.isFinite ? nil : ([], "must be a finite number, not \(d)")
        case .array(let items):
            guard depth < maximumUserInfoDepth || items.isEmpty else { return ([], "is nested deeper than \(maximumUserInfoDepth) levels") }
            for (i, item) in items.enumerated() {
                if var bad = badJSON(item, depth: depth + 1) {
                    bad.path.append("[\(i)]")
                    return bad
                }
            }
        case .object(let members):
            guard depth < maximumUserInfoDepth || members.isEmpty else { return ([], "is nested deeper than \(maximumUserInfoDepth) levels") }
            for (key, member) in members {
                if var bad = badJSON(member, depth: depth + 1) {
                    bad.path.append(".\(key)")
                    return bad
                }
            }
        case .null, .bool, .string:
            break
        }
        return nil
    }

    static func checkInterval(_ t: TimeIntervalTrigger) throws(RequestError) {
        let v = t.timeInterval
        guard v.isFinite else {
            throw RequestError(.invalidTrigger, "\"trigger.timeInterval\" must be a finite number of seconds, not \(v)", field: "trigger.timeInterval")
        }
        guard v > 0 else {
            throw RequestError(.invalidTrigger, "time interval must be greater than 0, not \(NotificationRequest.show(.number(v)))", field: "trigger.timeInterval")
        }
        guard v <= RequestLimits.maximumTimeInterval else {
            throw RequestError(.invalidTrigger, "time interval must be at most 100 years (3155760000 s), not \(NotificationRequest.show(.number(v)))", field: "trigger.timeInterval")
        }
        guard !t.repeats || v >= RequestLimits.minimumRepeatingInterval else {
            throw RequestError(.invalidTrigger, "time interval must be at least 60 if repeating (got \(NotificationRequest.show(.number(v))))", field: "trigger.timeInterval")
        }
    }

    static func checkCalendar(_ t: CalendarTrigger) throws(RequestError) {
        let c = t.dateComponents
        // What the contract's `dateMatching` can say, and the requests file's reader asks: a
        // trigger built in code must not hold what no file could (its snapshot, `pending`
        // listing and fingerprint are that JSON).
        guard DateMatchingField.allCases.contains(where: { $0.value(in: c) != nil }) else {
            throw RequestError(.invalidTrigger, "\"trigger.dateMatching\" needs at least one date component (e.g. \"hour\")", field: "trigger.dateMatching")
        }
        if c.isLeapMonth != nil {
            throw RequestError(.invalidTrigger, RequestValidation.leapMonthRefusal, field: "trigger.dateMatching.isLeapMonth")
        }
        if c.quarter != nil {
            throw RequestError(.invalidTrigger, "\"trigger.dateMatching.quarter\" is not supported: Apple's calendar triggers never fire with it", field: "trigger.dateMatching.quarter")
        }
        try checkZone(c.timeZone, field: "trigger.dateMatching.timeZone")
        let cal = c.calendar?.identifier ?? .gregorian
        if cal == .gregorian || cal == .iso8601 {
            for (field, v) in [("year", c.year), ("yearForWeekOfYear", c.yearForWeekOfYear)] {
                if let v, v > 9999 {
                    throw RequestError(.invalidTrigger, "\"trigger.dateMatching.\(field)\" \(v) is after 9999, the last supported year", field: "trigger.dateMatching.\(field)")
                }
            }
        }
    }

    /// A zone made in code (`TimeZone(identifier: "BST")` is ICU's legacy ID for Dhaka) held
    /// to the rule new input's names are (``ZoneNames/zone(named:)``): a snapshot or `pending`
    /// listing writes its name.
    static func checkZone(_ zone: TimeZone?, field: String) throws(RequestError) {
        if let zone, ZoneNames.zone(named: zone.identifier) == nil {
            throw RequestError(.invalidTrigger, ZoneNames.refusal(zone.identifier, field: field), field: field)
        }
    }

    static func checkRegion(_ region: Region) throws(RequestError) {
        try checkIdentifier(region.identifier, field: "trigger.region.identifier", code: .invalidRegion)
        switch region {
        case .circular(let c):
            try checkCoordinate(c.center, field: "trigger.region.center", members: true)
            guard c.radius.isFinite, c.radius > 0, c.radius <= RequestLimits.maximumRadius else {
                throw RequestError(.invalidRegion, "\"trigger.region.radius\" must be > 0 and <= 1000000 metres, not \(NotificationRequest.show(.number(c.radius)))", field: "trigger.region.radius")
            }
        case .polygon(let p):
            try checkPolygon(p)
        }
    }

    /// `field` is made only for the error: a polygon's positions are many, and building each
    /// one's path up front (`coordinates[0][17]`) took 40 % of a valid polygon's validation.
    /// (`members`: `field` is an object with `latitude` and `longitude`, each named in
    /// ``RequestError/field``; else a GeoJSON position, named whole.)
    static func checkCoordinate(_ c: Coordinate, field: @autoclosure () -> String, members: Bool = false) throws(RequestError) {
        guard c.latitude.isFinite, (-90...90).contains(c.latitude) else {
            throw RequestError(.invalidRegion, "latitude of \"\(field())\" must be in [-90, 90], not \(NotificationRequest.show(.number(c.latitude)))",
                               field: members ? field() + ".latitude" : field())
        }
        guard c.longitude.isFinite, (-180...180).contains(c.longitude) else {
            throw RequestError(.invalidRegion, "longitude of \"\(field())\" must be in [-180, 180], not \(NotificationRequest.show(.number(c.longitude)))",
                               field: members ? field() + ".longitude" : field())
        }
    }

    static func checkPolygon(_ p: PolygonRegion) throws(RequestError) {
        guard !p.polygons.isEmpty else { throw RequestError(.invalidRegion, "a MultiPolygon needs at least one polygon", field: "trigger.region.geometry.coordinates") }
        for (k, polygon) in p.polygons.enumerated() {
            let field = PlanarPolygons.field(p, k)
            guard !polygon.isEmpty else { throw RequestError(.invalidRegion, "\"\(field)\" needs an outer ring", field: field) }
            for (i, ring) in polygon.enumerated() {
                for (j, c) in ring.enumerated() { try checkCoordinate(c, field: "\(field)[\(i)][\(j)]") }
                guard ring.count >= 4 else {
                    throw RequestError(.invalidRegion, "ring \"\(field)[\(i)]\" has \(ring.count) positions; a ring needs at least 4 (closed)", field: "\(field)[\(i)]")
                }
                guard ring.first == ring.last else {
                    throw RequestError(.invalidRegion, "ring \"\(field)[\(i)]\" is not closed: its first and last positions differ", field: "\(field)[\(i)]")
                }
            }
        }
        let planar = try PlanarPolygons(p)
        let context: GEOSContext
        do throws(GEOSError) {
            context = try GEOSContext()
        } catch {
            throw RequestError(.invalidRegion, "the geometry engine could not start: \(error.message)")
        }
        if let why = planar.invalidity(context: context) {
            throw RequestError(.invalidRegion, "invalid polygon: \(why)", field: "trigger.region.geometry")
        }
    }

    /// The rules on the instant a request is added (its own `addedAt`, or the reference
    /// instant it is added at), each naming that instant as `after` says: an `expiresAt`
    /// comes after it...
    static func checkExpiry(_ r: NotificationRequest, added: Int64, after: String) throws(RequestError) {
        if let expires = r.expiresAt, let e = RequestLimits.millis(expires), e <= added {
            throw RequestError(.invalidRequest, "\"expiresAt\" (\(describe(expires))) is not after \(after): the request would never be pending", field: "expiresAt")
        }
    }

    /// ...and a valid time interval's first fire is a supported date (one after 9999 was
    /// accepted and never fired).
    static func checkFirstFire(_ r: NotificationRequest, added: Int64, after: String) throws(RequestError) {
        if case .timeInterval(let t) = r.trigger, TimeRule(r.trigger, addedAt: added, floatingTimeZone: .gmt)?.firstFire == nil {
            throw RequestError(.invalidTrigger, "its first fire, \(NotificationRequest.show(.number(t.timeInterval))) s after \(after), is after 9999-12-31T23:59:59.999Z, the last supported date", field: "trigger.timeInterval")
        }
    }

    /// A date in a message: as the contract writes dates when it is a supported one (an
    /// `expiresAt` error printed `1795421520.0 seconds since 1970`), else its seconds.
    static func describe(_ d: Date) -> String {
        if let ms = RequestLimits.millis(d) { return Timestamp.string(millis: ms) }
        let s = d.timeIntervalSince1970
        return s.isFinite ? "\(s) seconds since 1970" : "\(s)"
    }
}
