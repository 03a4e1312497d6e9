import Foundation

// Decoding and validating the contract's request JSON (section 2). One path serves the
// requests-file reader and `Codable`, so both accept and refuse exactly the same things.

extension NotificationRequest {
    /// Builds a request from the contract's JSON and checks it with
    /// ``RequestValidation/checkValue(_:)`` (the rules that need no context).
    ///
    /// - Parameters:
    ///   - json: the request object.
    ///   - warnings: receives notes about accepted but suspicious input (unknown keys).
    /// - Throws: ``RequestError`` naming the offending field.
    public init(json: JSONValue, warnings: inout [String]) throws(RequestError) {
        try self.init(decoding: json, warnings: &warnings)
        try RequestValidation.checkValue(self)
    }

    /// The shape of the JSON only (types of fields, required fields); the values are judged
    /// by the validator, which every way in calls.
    init(decoding json: JSONValue, warnings: inout [String]) throws(RequestError) {
        guard case .object(let o) = json else {
            throw RequestError(.invalidRequest, "a request must be a JSON object, not \(json.typeName)")
        }
        var r = JSONFields(o, path: "", code: .invalidRequest)
        guard let identifier = try r.string("identifier") else {
            throw RequestError(.invalidRequest, "missing required field \"identifier\"", field: "identifier")
        }
        guard let contentJSON = try r.object("content") else {
            throw RequestError(.notificationInvalidNoContent, "missing \"content\": a notification needs a title, subtitle, body, sound or badge", field: "content")
        }
        let content = try NotificationContent(fields: contentJSON, warnings: &warnings)
        let device = try r.string("device")
        let addedAt = try r.date("addedAt")
        let expiresAt = try r.date("expiresAt")
        var trigger = NotificationTrigger.immediate
        if let t = r.take("trigger"), t != .null {
            trigger = try NotificationTrigger(json: t, requestIdentifier: identifier, warnings: &warnings)
        }
        warnings += r.unknownKeys()
        self.init(identifier: identifier, content: content, trigger: trigger, device: device, addedAt: addedAt, expiresAt: expiresAt)
    }

    static func show(_ v: JSONValue) -> String {
        var w = JSONWriter()
        w.value(v)
        let s = w.text
        return s.count > 40 ? String(s.prefix(40)) + "..." : s
    }

    /// The contract's JSON for this request.
    public var json: JSONValue {
        var o: [String: JSONValue] = ["identifier": .string(identifier), "content": content.json]
        if let device { o["device"] = .string(device) }
        if let addedAt { o["addedAt"] = .string(Timestamp.string(millis: Timestamp.millis(addedAt))) }
        if let expiresAt { o["expiresAt"] = .string(Timestamp.string(millis: Timestamp.millis(expiresAt))) }
        if let t = trigger.json { o["trigger"] = t }
        return .object(o)
    }
}

extension NotificationContent {
    init(fields: [String: JSONValue], warnings: inout [String]) throws(RequestError) {
        var r = JSONFields(fields, path: "content.", code: .invalidRequest)
        self.init()
        title = try r.string("title")
        subtitle = try r.string("subtitle")
        body = try r.string("body")
        sound = try r.string("sound")
        badge = try r.integer("badge")
        categoryIdentifier = try r.string("categoryIdentifier")
        threadIdentifier = try r.string("threadIdentifier")
        userInfo = try r.object("userInfo")
        // Unknown keys are not kept (a typo such as "tilte" would silently lose the title):
        // each is warned about, as elsewhere.
        warnings += r.unknownKeys()
    }

    /// The contract's JSON for this content.
    package var json: JSONValue {
        var o: [String: JSONValue] = [:]
        if let title { o["title"] = .string(title) }
        if let subtitle { o["subtitle"] = .string(subtitle) }
        if let body { o["body"] = .string(body) }
        if let sound { o["sound"] = .string(sound) }
        if let badge { o["badge"] = .number(Double(badge)) }
        if let categoryIdentifier { o["categoryIdentifier"] = .string(categoryIdentifier) }
        if let threadIdentifier { o["threadIdentifier"] = .string(threadIdentifier) }
        if let userInfo { o["userInfo"] = .object(userInfo) }
        return .object(o)
    }
}

extension NotificationTrigger {
    init(json: JSONValue, requestIdentifier: String, warnings: inout [String]) throws(RequestError) {
        guard case .object(let o) = json else {
            throw RequestError(.invalidTrigger, "\"trigger\" must be an object, not \(json.typeName)", field: "trigger")
        }
        var r = JSONFields(o, path: "trigger.", code: .invalidTrigger)
        guard let type = try r.string("type") else {
            throw RequestError(.invalidTrigger, "missing \"trigger.type\" (calendar, timeInterval or location)", field: "trigger.type")
        }
        let repeats = try r.bool("repeats") ?? false
        switch type {
        case "calendar":
            guard let dm = try r.object("dateMatching") else {
                throw RequestError(.invalidTrigger, "a calendar trigger needs \"dateMatching\"", field: "trigger.dateMatching")
            }
            self = .calendar(CalendarTrigger(dateMatching: try DateComponents(dateMatching: dm, warnings: &warnings), repeats: repeats))
        case "timeInterval":
            guard let interval = try r.number("timeInterval") else {
                throw RequestError(.invalidTrigger, "a timeInterval trigger needs \"timeInterval\" (seconds)", field: "trigger.timeInterval")
            }
            self = .timeInterval(TimeIntervalTrigger(timeInterval: interval, repeats: repeats))
        case "location":
            guard let region = r.take("region") else {
                throw RequestError(.invalidRegion, "a location trigger needs \"region\"", field: "trigger.region")
            }
            let parsed = try Region(json: region, defaultIdentifier: requestIdentifier, warnings: &warnings)
            let rules = try FenceRules(fields: &r, warnings: &warnings)
            let trigger = LocationTrigger(region: parsed, repeats: repeats, rules: rules)
            self = .location(trigger)
            if let silent = RequestValidation.silentRegionWarning(trigger) { warnings.append(silent) }
        default:
            throw RequestError(.invalidTrigger, "unknown trigger type \"\(type)\" (expected calendar, timeInterval or location)", field: "trigger.type")
        }
        warnings += r.unknownKeys()
    }

    /// The contract's JSON for this trigger; `nil` for ``immediate`` (no trigger field).
    package var json: JSONValue? {
        switch self {
        case .immediate:
            return nil
        case .calendar(let t):
            return .object(["type": .string("calendar"), "dateMatching": t.dateComponents.dateMatchingJSON, "repeats": .bool(t.repeats)])
        case .timeInterval(let t):
            return .object(["type": .string("timeInterval"), "timeInterval": .number(t.timeInterval), "repeats": .bool(t.repeats)])
        case .location(let t):
            var o: [String: JSONValue] = ["type": .string("location"), "region": t.region.json, "repeats": .bool(t.repeats)]
            if t.hasRules { t.rules.addJSON(to: &o) }
            return .object(o)
        }
    }
}

extension NotificationRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        var warnings: [String] = []
        do throws(RequestError) {
            try self.init(json: json, warnings: &warnings)  // shape and values
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// Reads the members of one JSON object with typed accessors that throw the right error
/// code and name the field, and remembers which members were read so the rest can be
/// reported as unknown.
struct JSONFields {
    private var members: [String: JSONValue]
    let path: String
    let code: RequestErrorCode

    init(_ members: [String: JSONValue], path: String, code: RequestErrorCode) {
        self.members = members
        self.path = path
        self.code = code
    }

    mutating func take(_ key: String) -> JSONValue? { members.removeValue(forKey: key) }

    private func wrong(_ key: String, _ expected: String, _ v: JSONValue) -> RequestError {
        RequestError(code, "\"\(path)\(key)\" must be \(expected), not \(NotificationRequest.show(v))", field: "\(path)\(key)")
    }

    mutating func string(_ key: String) throws(RequestError) -> String? {
        guard let v = take(key), v != .null else { return nil }
        guard case .string(let s) = v else { throw wrong(key, "a string", v) }
        return s
    }

    mutating func bool(_ key: String) throws(RequestError) -> Bool? {
        guard let v = take(key), v != .null else { return nil }
        guard case .bool(let b) = v else { throw wrong(key, "true or false", v) }
        return b
    }

    mutating func number(_ key: String) throws(RequestError) -> Double? {
        guard let v = take(key), v != .null else { return nil }
        guard case .number(let n) = v else { throw wrong(key, "a number", v) }
        return n
    }

    mutating func integer(_ key: String) throws(RequestError) -> Int? {
        guard let v = take(key), v != .null else { return nil }
        guard case .number(let n) = v, n == n.rounded() else { throw wrong(key, "an integer", v) }
        guard abs(n) < 9.0e15 else {
            // Near and past 2^53 a JSON number is not always read exactly: say so, rather than
            // quote a neighbouring number as if it were the one given.
            throw RequestError(code, "\"\(path)\(key)\" must be an integer between -8999999999999999 and 8999999999999999 (larger JSON numbers are not always read exactly), not about \(n)", field: "\(path)\(key)")
        }
        return Int(n)
    }

    mutating func object(_ key: String) throws(RequestError) -> [String: JSONValue]? {
        guard let v = take(key), v != .null else { return nil }
        guard case .object(let o) = v else { throw wrong(key, "an object", v) }
        return o
    }

    /// Warnings for the members nobody read.
    func unknownKeys() -> [String] {
        members.keys.sorted().map { "unknown field \"\(path)\($0)\" ignored" }
    }

    /// The date under `key` (an ISO 8601 string or seconds since 1970, in years 1-9999), nil
    /// when absent or null. Refused as written: the validator, which sees only the date,
    /// gives its seconds.
    mutating func date(_ key: String) throws(RequestError) -> Date? {
        guard let v = take(key), v != .null else { return nil }
        guard let ms = Self.dateMillis(v) else {
            if Self.isOutsideSupportedYears(v) {
                throw RequestError(code, "\"\(path)\(key)\" must be between 0001-01-01 and 9999-12-31, not \(NotificationRequest.show(v))", field: path + key)
            }
            throw RequestError(code, "\"\(path)\(key)\" must be an ISO 8601 date or seconds since 1970, not \(NotificationRequest.show(v))", field: path + key)
        }
        guard RequestLimits.isSupported(millis: ms) else {
            throw RequestError(code, "\"\(path)\(key)\" must be between 0001-01-01 and 9999-12-31, not \(NotificationRequest.show(v))", field: path + key)
        }
        return Timestamp.date(millis: ms)
    }

    /// The path of the first of ``unknownKeys()`` (``RequestError/field``).
    var firstUnknownField: String? { members.keys.min().map { path + $0 } }

    /// Epoch milliseconds of a contract date: an ISO 8601 string or seconds since 1970.
    static func dateMillis(_ v: JSONValue) -> Int64? {
        switch v {
        case .string(let s): return Timestamp.parseMillis(s)
        case .number(let n) where n.isFinite && abs(n) < 1.0e13: return Int64(Timestamp.wholeMillis(seconds: n))
        default: return nil
        }
    }

    /// Whether `v`, which ``dateMillis(_:)`` does not read, is a date outside the supported
    /// years rather than no date: a finite number of seconds too large, or an ISO 8601 date
    /// whose year has five digits or more (`10000-01-01T00:00:00Z` and `1e300` were said not
    /// to be dates; a helper's find).
    static func isOutsideSupportedYears(_ v: JSONValue) -> Bool {
        switch v {
        case .number(let n): return n.isFinite
        case .string(let s):
            let digits = s.utf8.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            return digits > 4 && s.utf8.dropFirst(digits).first == UInt8(ascii: "-")
                && Timestamp.parseMillis("9999" + s.dropFirst(digits)) != nil
        default: return false
        }
    }
}
