import Foundation
@_spi(Engine) import TriggerKit

/// SplitMix64: a small, fast, seedable generator (Steele, Lea, Flood 2014).
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random calendar triggers in the corpus's mixes, for differential runs against Foundation.
public enum RandomTriggers {
    public static let zones = [
        "America/New_York", "Europe/London", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago", "Asia/Tehran",
        "Pacific/Apia", "Africa/Casablanca", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "UTC", "Asia/Kathmandu",
        "America/Sao_Paulo", "Australia/Sydney", "America/Los_Angeles", "America/Havana", "Europe/Dublin", "Antarctica/Troll",
        "Asia/Tokyo", "Europe/Moscow", "America/Caracas", "Pacific/Kiritimati", "Asia/Gaza", "America/Godthab",
    ].compactMap { TimeZone(identifier: $0) }

    public static let kinds = [
        "hour+minute", "weekday+hour+minute", "day+hour+minute", "month+day+hour+minute", "hour", "minute",
        "minute+second", "second", "weekday", "day", "month", "hour+minute+second", "weekOfYear+weekday+hour+minute",
        "yearForWeekOfYear+weekOfYear+weekday+hour", "year+month+day+hour+minute", "weekday+weekdayOrdinal+hour+minute",
        "weekday+weekOfMonth+hour+minute", "month+day+hour+minute:impossible", "dayOfYear+hour", "weekday+day+hour",
        "iso8601:weekOfYear+weekday+hour", "firstWeekday:weekOfYear+weekday+hour",
    ]

    /// Zones whose offset changes are unusual: midnight repeated or skipped (Havana, Santiago,
    /// Asuncion, Sao Paulo), half-hour or 2-hour shifts (Lord Howe, Troll), 02:45 (Chatham),
    /// Ramadan reversals (Casablanca), negative DST (Dublin), odd offsets (Kathmandu, St. John's),
    /// a skipped day (Apia).
    public static let hardZones = [
        "America/Havana", "America/Santiago", "America/Asuncion", "America/Sao_Paulo", "Australia/Lord_Howe",
        "Antarctica/Troll", "Pacific/Chatham", "Africa/Casablanca", "Europe/Dublin", "Asia/Kathmandu",
        "America/St_Johns", "Pacific/Apia", "Asia/Gaza", "Asia/Tehran", "America/Godthab", "Africa/Cairo",
    ].compactMap { TimeZone(identifier: $0) }

    /// Every zone of the tz database Foundation knows (about 600).
    public static let allZones: [TimeZone] = TimeZone.knownTimeZoneIdentifiers.compactMap { TimeZone(identifier: $0) }

    /// A random case: (kind, trigger, reference epoch ms in 1970-2100), drawn from `kinds` and
    /// `zones` (default: the corpus's mixes and zones).
    public static func make(_ g: inout SplitMix64, kinds: [String] = RandomTriggers.kinds,
                            zones: [TimeZone] = RandomTriggers.zones) -> (kind: String, trigger: CalendarTrigger, after: Int64) {
        let kind = kinds[Int(g.next() % UInt64(kinds.count))]
        let zone = zones[Int(g.next() % UInt64(zones.count))]
        let lo = Int64(0), hi = Int64(4_102_444_800_000)  // 1970 ... 2100
        var after = lo + Int64(g.next() % UInt64(hi - lo))
        // Half the references on whole minutes or hours, as chains of fire dates are.
        switch g.next() % 4 {
        case 0: after -= after % 60_000
        case 1: after -= after % 3_600_000
        default: break
        }
        let refYear = CivilDate.ymd(days: Int(after / 86_400_000)).year
        func r(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(g.next() % UInt64(range.count)) }
        var c = DateComponents()
        var calendar: Calendar?
        let minutes = [0, 15, 30, 45, r(0...59)]
        for part in kind.split(separator: ":").last!.split(separator: "+") {
            switch part {
            case "hour": c.hour = r(0...23)
            case "minute": c.minute = minutes[r(0...4)]
            case "second": c.second = r(0...59)
            case "weekday": c.weekday = r(1...7)
            case "day": c.day = kind.hasSuffix(":impossible") ? r(29...31) : r(1...28)
            case "month": c.month = r(1...12)
            case "year": c.year = refYear + r(0...3)
            case "weekOfYear": c.weekOfYear = r(1...52)
            case "yearForWeekOfYear": c.yearForWeekOfYear = refYear + r(0...3)
            case "weekdayOrdinal": c.weekdayOrdinal = r(1...5)
            case "weekOfMonth": c.weekOfMonth = r(1...5)
            case "dayOfYear": c.dayOfYear = r(1...365)
            default: break
            }
        }
        if kind.hasSuffix(":impossible") { c.month = [2, 4, 6, 9, 11][r(0...4)]; c.day = c.month == 2 ? r(30...31) : 31 }
        if kind.hasPrefix("iso8601:") { calendar = CalendarNames.calendar(.iso8601) }
        if kind.hasPrefix("firstWeekday:") { calendar = CalendarNames.calendar(.gregorian, firstWeekday: r(1...7), minimumDaysInFirstWeek: r(1...7)) }
        c.timeZone = zone
        c.calendar = calendar
        return (kind, CalendarTrigger(dateMatching: c, repeats: true), after)
    }

    /// The class a difference from Foundation falls in: which side is earlier, whether
    /// TriggerKit's date really matches every set component (checked with Foundation's own
    /// `dateComponents` in the trigger's calendar and zone), and the pattern family.
    public static func differenceClass(kind: String, trigger: CalendarTrigger, after: Int64, native: Int64?, foundation: Int64?) -> String {
        let c = trigger.dateComponents
        let zone = c.timeZone ?? TimeZone(identifier: "UTC")!
        let direction: String
        switch (native, foundation) {
        case let (n?, f?): direction = n < f ? "TriggerKit earlier" : "TriggerKit later"
        case (nil, _?): direction = "TriggerKit nil"
        case (_?, nil): direction = "Foundation nil"
        case (nil, nil): direction = "?"
        }
        var verdict: String
        if let n = native {
            verdict = matches(trigger, n) ? "TK date matches" : "TK date does NOT match"
        } else {
            verdict = "no TK date"
        }
        if let f = foundation {
            verdict += matches(trigger, f) ? ", Foundation's matches" : ", Foundation's does not match"
        }
        if let z = c.timeZone, z.secondsFromGMT(for: Timestamp.date(millis: after)) % 60 != 0 {
            verdict += ", zone offset with seconds"
        }
        func nearTransition(_ t: Int64?) -> Bool {
            guard let t else { return false }
            let d = Timestamp.date(millis: t - 86_400_000 * 2)
            guard let next = zone.nextDaylightSavingTimeTransition(after: d) else { return false }
            return Timestamp.millis(next) <= t + 86_400_000 * 2
        }
        let family: String
        if c.weekdayOrdinal != nil || c.weekOfMonth != nil { family = "weekdayOrdinal/weekOfMonth" }
        else if (c.day ?? 0) > 28 { family = "missing day (rollover)" }
        else if c.weekday != nil, c.day != nil { family = "weekday+day" }
        else if nearTransition(native) || nearTransition(foundation) || nearTransition(after) { family = "near an offset change" }
        else { family = "other: \(kind)" }
        return "\(family); \(direction); \(verdict)"
    }

    /// Whether `millis` shows every set component of the trigger in its calendar and zone.
    public static func matches(_ trigger: CalendarTrigger, _ millis: Int64) -> Bool {
        let c = trigger.dateComponents
        var cal = c.calendar ?? CalendarNames.calendar(.gregorian)
        cal.timeZone = c.timeZone ?? TimeZone(identifier: "UTC")!
        let d = cal.dateComponents([.era, .year, .yearForWeekOfYear, .month, .weekOfYear, .weekOfMonth, .dayOfYear, .day,
                                    .weekday, .weekdayOrdinal, .hour, .minute, .second], from: Timestamp.date(millis: millis))
        func ok(_ want: Int?, _ got: Int?) -> Bool { want == nil || want == got }
        return ok(c.era, d.era) && ok(c.year, d.year) && ok(c.yearForWeekOfYear, d.yearForWeekOfYear) && ok(c.month, d.month)
            && ok(c.weekOfYear, d.weekOfYear) && ok(c.weekOfMonth, d.weekOfMonth) && ok(c.dayOfYear, d.dayOfYear)
            && ok(c.day, d.day) && ok(c.weekday, d.weekday) && ok(c.weekdayOrdinal, d.weekdayOrdinal)
            && ok(c.hour, d.hour) && ok(c.minute, d.minute) && ok(c.second, d.second)
    }
}
