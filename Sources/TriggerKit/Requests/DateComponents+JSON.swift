import Foundation

/// The `DateComponents` fields a calendar trigger may match, by their Swift names, in
/// order from largest to smallest unit.
@_spi(Engine) public enum DateMatchingField: String, Sendable, CaseIterable {
    case era, year, yearForWeekOfYear, quarter, month, weekOfYear, weekOfMonth, dayOfYear, day,
         weekday, weekdayOrdinal, hour, minute, second, nanosecond

    /// The value of this field in `components`, if set.
    public func value(in components: DateComponents) -> Int? {
        switch self {
        case .era: components.era
        case .year: components.year
        case .yearForWeekOfYear: components.yearForWeekOfYear
        case .quarter: components.quarter
        case .month: components.month
        case .weekOfYear: components.weekOfYear
        case .weekOfMonth: components.weekOfMonth
        case .dayOfYear: components.dayOfYear
        case .day: components.day
        case .weekday: components.weekday
        case .weekdayOrdinal: components.weekdayOrdinal
        case .hour: components.hour
        case .minute: components.minute
        case .second: components.second
        case .nanosecond: components.nanosecond
        }
    }

    /// Sets this field of `c` to `v`.
    public func set(_ v: Int, in c: inout DateComponents) {
        switch self {
        case .era: c.era = v
        case .year: c.year = v
        case .yearForWeekOfYear: c.yearForWeekOfYear = v
        case .quarter: c.quarter = v
        case .month: c.month = v
        case .weekOfYear: c.weekOfYear = v
        case .weekOfMonth: c.weekOfMonth = v
        case .dayOfYear: c.dayOfYear = v
        case .day: c.day = v
        case .weekday: c.weekday = v
        case .weekdayOrdinal: c.weekdayOrdinal = v
        case .hour: c.hour = v
        case .minute: c.minute = v
        case .second: c.second = v
        case .nanosecond: c.nanosecond = v
        }
    }
}

/// Calendar identifiers by the names the contract accepts (Foundation's
/// `Calendar.Identifier` case names).
@_spi(Engine) public enum CalendarNames {
    /// Every supported name and its identifier.
    public static let all: [(name: String, identifier: Calendar.Identifier)] = [
        ("gregorian", .gregorian), ("iso8601", .iso8601), ("buddhist", .buddhist), ("chinese", .chinese),
        ("coptic", .coptic), ("ethiopicAmeteMihret", .ethiopicAmeteMihret), ("ethiopicAmeteAlem", .ethiopicAmeteAlem),
        ("hebrew", .hebrew), ("indian", .indian), ("islamic", .islamic), ("islamicCivil", .islamicCivil),
        ("islamicTabular", .islamicTabular), ("islamicUmmAlQura", .islamicUmmAlQura), ("japanese", .japanese),
        ("persian", .persian), ("republicOfChina", .republicOfChina),
    ]

    /// The identifier of a name, or `nil`.
    public static func identifier(_ name: String) -> Calendar.Identifier? {
        all.first { $0.name == name }?.identifier
    }

    /// The name of an identifier.
    public static func name(_ id: Calendar.Identifier) -> String {
        all.first { $0.identifier == id }?.name ?? "\(id)"
    }

    /// A calendar with TriggerKit's defaults: Gregorian weeks start on Sunday with
    /// `minimumDaysInFirstWeek` 1, ISO 8601 weeks on Monday with 4 (whatever the locale).
    public static func calendar(_ id: Calendar.Identifier, firstWeekday: Int? = nil, minimumDaysInFirstWeek: Int? = nil) -> Calendar {
        var c = Calendar(identifier: id)
        c.locale = Locale(identifier: "en_US_POSIX")
        c.timeZone = TimeZone(identifier: "UTC") ?? c.timeZone
        switch id {
        case .iso8601: c.firstWeekday = 2; c.minimumDaysInFirstWeek = 4
        default: c.firstWeekday = 1; c.minimumDaysInFirstWeek = 1
        }
        if let firstWeekday { c.firstWeekday = firstWeekday }
        if let minimumDaysInFirstWeek { c.minimumDaysInFirstWeek = minimumDaysInFirstWeek }
        return c
    }
}

extension DateComponents {
    /// Builds the components of a calendar trigger's `dateMatching` object.
    init(dateMatching o: [String: JSONValue], warnings: inout [String]) throws(RequestError) {
        self.init()
        var r = JSONFields(o, path: "trigger.dateMatching.", code: .invalidTrigger)
        var any = false
        for field in DateMatchingField.allCases {
            guard let v = try r.integer(field.rawValue) else { continue }
            field.set(v, in: &self)
            any = true
        }
        if quarter != nil {
            throw RequestError(.invalidTrigger, "\"trigger.dateMatching.quarter\" is not supported: Apple's calendar triggers never fire with it", field: "trigger.dateMatching.quarter")
        }
        // Refused by name, as in code (``RequestValidation/leapMonthRefusal``), not as a field
        // that does not exist.
        if r.take("isLeapMonth") != nil { throw RequestError(.invalidTrigger, RequestValidation.leapMonthRefusal, field: "trigger.dateMatching.isLeapMonth") }
        if let tz = try r.string("timeZone") {
            guard let zone = ZoneNames.storedZone(named: tz) else {
                throw RequestError(.invalidTrigger, ZoneNames.refusal(tz, field: "trigger.dateMatching.timeZone"), field: "trigger.dateMatching.timeZone")
            }
            timeZone = zone
        }
        if let cal = r.take("calendar"), cal != .null {
            calendar = try Self.calendar(json: cal)
        }
        let unknown = r.unknownKeys()
        if let first = unknown.first {
            // An unknown component would be silently ignored and change when the trigger
            // fires (a typo like "weekDay" would make it fire every day): refuse it. Named
            // before "no component": a typo alone was refused as an empty object, which hid it.
            throw RequestError(.invalidTrigger, first.replacingOccurrences(of: " ignored", with: "") + " (not a DateComponents field)", field: r.firstUnknownField)
        }
        guard any else {
            throw RequestError(.invalidTrigger, "\"trigger.dateMatching\" needs at least one date component (e.g. \"hour\")", field: "trigger.dateMatching")
        }
    }

    private static func calendar(json: JSONValue) throws(RequestError) -> Calendar {
        let known = CalendarNames.all.map(\.name).joined(separator: ", ")
        switch json {
        case .string(let name):
            guard let id = CalendarNames.identifier(name) else {
                throw RequestError(.invalidTrigger, "unknown calendar \"\(name)\" (expected one of \(known))", field: "trigger.dateMatching.calendar")
            }
            return CalendarNames.calendar(id)
        case .object(let o):
            var r = JSONFields(o, path: "trigger.dateMatching.calendar.", code: .invalidTrigger)
            let name = try r.string("identifier") ?? "gregorian"
            guard let id = CalendarNames.identifier(name) else {
                throw RequestError(.invalidTrigger, "unknown calendar \"\(name)\" (expected one of \(known))", field: "trigger.dateMatching.calendar.identifier")
            }
            let fw = try r.integer("firstWeekday")
            let md = try r.integer("minimumDaysInFirstWeek")
            if let fw, !(1...7).contains(fw) {
                throw RequestError(.invalidTrigger, "\"trigger.dateMatching.calendar.firstWeekday\" must be 1...7 (1 = Sunday), not \(fw)", field: "trigger.dateMatching.calendar.firstWeekday")
            }
            if let md, !(1...7).contains(md) {
                throw RequestError(.invalidTrigger, "\"trigger.dateMatching.calendar.minimumDaysInFirstWeek\" must be 1...7, not \(md)", field: "trigger.dateMatching.calendar.minimumDaysInFirstWeek")
            }
            if let extra = r.unknownKeys().first {
                throw RequestError(.invalidTrigger, extra.replacingOccurrences(of: " ignored", with: ""), field: r.firstUnknownField)
            }
            return CalendarNames.calendar(id, firstWeekday: fw, minimumDaysInFirstWeek: md)
        default:
            throw RequestError(.invalidTrigger, "\"trigger.dateMatching.calendar\" must be a calendar name or an object, not \(json.typeName)", field: "trigger.dateMatching.calendar")
        }
    }

    /// The contract's `dateMatching` JSON of these components.
    package var dateMatchingJSON: JSONValue {
        var o: [String: JSONValue] = [:]
        for field in DateMatchingField.allCases {
            if let v = field.value(in: self) { o[field.rawValue] = .number(Double(v)) }
        }
        if let timeZone { o["timeZone"] = .string(timeZone.identifier) }
        if let calendar {
            let defaults = CalendarNames.calendar(calendar.identifier)
            let name = CalendarNames.name(calendar.identifier)
            if calendar.firstWeekday == defaults.firstWeekday, calendar.minimumDaysInFirstWeek == defaults.minimumDaysInFirstWeek {
                o["calendar"] = .string(name)
            } else {
                o["calendar"] = .object([
                    "identifier": .string(name),
                    "firstWeekday": .number(Double(calendar.firstWeekday)),
                    "minimumDaysInFirstWeek": .number(Double(calendar.minimumDaysInFirstWeek)),
                ])
            }
        }
        return .object(o)
    }
}
