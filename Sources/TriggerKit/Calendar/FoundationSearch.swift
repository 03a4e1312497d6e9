/// Foundation's own search for the next date, re-enacted natively for month-relative patterns.
///
/// The contract's answer is what `Calendar.nextDate(after:matching:matchingPolicy:
/// .nextTimePreservingSmallerComponents, repeatedTimePolicy: .first, direction: .forward)`
/// computes (Gregorian calendar). For `weekdayOrdinal`, `weekOfMonth` and weekday-with-day
/// patterns that answer is not always a real occurrence: Foundation's search walks days, weeks
/// and months field by field and, when a candidate lands in February with a mismatched
/// month-relative field, answers March 1st at the reference's time of day. No closed rule
/// reproduces when that happens, so this type follows the search itself, step by step, as
/// swift-foundation 6.3.1 performs it (`Calendar_Enumerate.swift`: the enumeration loop of at
/// most 101 steps, the per-field `dateAfterMatching...` walks, the mismatch handling and the
/// bump to the next higher unit), on the zone's ``ZoneTable`` instead of ICU-style calendar
/// calls: wall days are day numbers, offsets come from the table. Where Foundation steps one
/// hour, minute or second at a time the search jumps in closed form unless an offset change
/// lies in the way (then it steps as Foundation does).
///
/// Scope (``init(zone:pattern:)`` answers `nil` otherwise): Gregorian / ISO 8601 patterns
/// without `era` or `nanosecond`, `weekdayOrdinal` 1-5. Instants are epoch milliseconds.
///
/// Accuracy: exact against Foundation on `CalendarFoundationSearchTests` and the differential
/// tool (`CalendarDifferential`); where Foundation's search would stop with an error or a
/// non-advancing step, ``next(after:)`` throws and the caller asks Foundation itself.
struct FoundationSearch {
    /// The trigger's own fields (not the engine's resolved pattern), as Foundation sees them.
    struct Fields {
        var year: Int?
        var yearForWeekOfYear: Int?
        var weekOfYear: Int?
        var dayOfYear: Int?
        var month: Int?
        var day: Int?
        var weekday: Int?
        var ordinal: Int?
        var weekOfMonth: Int?
        var hour: Int?
        var minute: Int?
        var second: Int?
    }

    /// Foundation's units, in the order of its `highestSetUnit` for mismatches.
    enum Unit: Int, Comparable {
        case year, dayOfYear, month, day, hour, minute, second, weekday, ordinal, weekOfMonth, weekOfYear, yearForWeekOfYear
        static func < (a: Unit, b: Unit) -> Bool { a.rawValue < b.rawValue }

        /// Foundation's `nextHigherUnit`, except that the years stand for themselves (as its
        /// search treats them).
        var nextHigher: Unit {
            switch self {
            case .year, .month, .dayOfYear: .year
            case .yearForWeekOfYear, .weekOfYear: .yearForWeekOfYear
            case .day, .ordinal, .weekOfMonth: .month
            case .hour: .day
            case .minute: .hour
            case .second: .minute
            case .weekday: .weekOfMonth
            }
        }
    }

    /// The search met a case outside the re-enacted scope (Foundation answers instead).
    struct Unsupported: Error {}

    let zone: ZoneTable
    let fields: Fields
    /// The calendar's week rules (first weekday, minimum days in the first week).
    let weeks: CalendarPattern
    /// Whether the calendar is Foundation's `.gregorian`, not `.iso8601`: only there does its
    /// search answer March 1st for a February candidate with a mismatched day-level field
    /// (`isGregorianCalendar` in `_adjustedDateForMismatches`); in ISO 8601 it searches on in
    /// the next month.
    let gregorian: Bool

    static let msDay: Int64 = 86_400_000
    static let msHour: Int64 = 3_600_000
    static let msMinute: Int64 = 60_000

    init?(zone: ZoneTable, pattern p: CalendarPattern, gregorian: Bool) {
        guard Self.reenacts(p) else { return nil }
        self.gregorian = gregorian
        let c = p.dateComponents
        self.zone = zone
        fields = Fields(year: c.year, yearForWeekOfYear: c.yearForWeekOfYear, weekOfYear: c.weekOfYear, dayOfYear: c.dayOfYear,
                        month: c.month, day: c.day, weekday: c.weekday, ordinal: c.weekdayOrdinal,
                        weekOfMonth: c.weekOfMonth, hour: c.hour, minute: c.minute, second: c.second)
        weeks = p
    }

    /// Whether the search is re-enacted for pattern `p`: no `era`, no `nanosecond`, no
    /// ordinal counted from the month's end (`weekdayOrdinal` is in -5...5, 0 unset) and no
    /// impossibility. Outside it Foundation itself is asked.
    static func reenacts(_ p: CalendarPattern) -> Bool {
        p.era < 0 && p.nanosecond < 0 && p.impossibilityBox == nil && p.weekdayOrdinal >= 0
    }

    /// Foundation's next date strictly after `start` (epoch ms), or `nil` where its search
    /// gives up (101 steps without a result).
    func next(after start: Int64) throws(Unsupported) -> Int64? {
        // Near a skipped or repeated calendar day the re-enactment's weeks and months are not
        // Foundation's (from 2011-10-28 in Pacific/Apia it answered a Thursday for "Friday of
        // week 5", a date Foundation does not give): Foundation is asked there, within two
        // years of the search either way (the searches span months, and a month's weeks).
        let room = 2 * 366 * Int64(CalendarPattern.msPerDay)
        if zone.hasDayStep(from: start - room, to: start + room) { throw Unsupported() }
        var searching = start
        for _ in 0...100 {
            let (result, newSearch) = try step(from: searching, start: start)
            if let result {
                if zone.hasDayStep(from: start, to: result + room) { throw Unsupported() }
                return result
            }
            searching = newSearch
        }
        return nil
    }

    /// One round of Foundation's enumeration: a candidate from `searching`, its mismatches
    /// corrected, the verdict, and where the next round searches from.
    private func step(from searching: Int64, start: Int64) throws(Unsupported) -> (Int64?, Int64) {
        let toMatch = adjusted(fields, searching: searching)
        let candidate = try matchingDate(after: searching, toMatch)
        var match: Int64? = candidate
        var forwardDST = false, leapDay = false
        let mismatched = mismatches(candidate, toMatch)
        if let bailed = mismatched.first {
            var handled = false
            if mismatched.count == 1, bailed == .hour, let shifted = forwardDSTAdjusted(candidate) {
                match = shifted
                forwardDST = true
                handled = true
            }
            if !handled {
                let next = bailed.nextHigher
                if bailed == .year || next == .year {
                    // With month and day to match and one of them wrong, a day the month
                    // lacks; else the candidate stays.
                    if toMatch.month != nil && toMatch.day != nil && (mismatched.contains(.month) || mismatched.contains(.day)) {
                        match = try missingDayAdjusted(searching: searching, start: start, toMatch)
                        leapDay = match != nil
                    }
                } else if next == .month, gregorian, month(of: candidate) == 2 {
                    // "A day February lacks": the start of March plus the reference's hour,
                    // minute and second, added as a duration.
                    let year = CivilDate.ymd(days: wallDay(candidate)).year
                    let local = wallTime(start)
                    let seconds = local / 1000
                    match = dayStart(CivilDate.days(year: year, month: 3, day: 1)) + seconds * 1000
                    leapDay = true
                } else {
                    match = try matchingDate(after: intervalEnd(next, of: searching), fields)
                }
            }
        }
        guard let match else { return (nil, bumped(searching, match: nil)) }
        let exact = mismatches(match, fields).isEmpty
        let newSearch = bumped(searching, match: match)
        if match < start {
            var resume = newSearch
            if highestSetUnit(toMatch) == .hour {
                // A repeated hour: the next round searches its second pass.
                let h = hour(of: match)
                let later = match + Self.msHour
                if hour(of: later) == h { resume = later }
            }
            return (nil, resume)
        }
        if !exact && !(forwardDST || leapDay) { return (nil, newSearch) }
        if match == start { return (nil, newSearch) }
        return (match, newSearch)
    }

    /// Foundation's `_adjustedComponents`: a month-level pattern searches in the year of the
    /// search date (or the next), a day-level one in its month when the day is still ahead.
    private func adjusted(_ f: Fields, searching s: Int64) -> Fields {
        var a = f
        if f.year != nil || f.dayOfYear != nil { return a }
        if f.month != nil {
            a.year = CivilDate.ymd(days: wallDay(s)).year
            if let d = date(from: a), s > d { a.year! += 1 }
        } else if let d = f.day {
            let (_, m, dd) = CivilDate.ymd(days: wallDay(s))
            if d > dd { a.month = m }
        }
        return a
    }

    private func highestSetUnit(_ f: Fields) -> Unit? {
        if f.year != nil { return .year }
        if f.dayOfYear != nil { return .dayOfYear }
        if f.month != nil { return .month }
        if f.day != nil { return .day }
        if f.hour != nil { return .hour }
        if f.minute != nil { return .minute }
        if f.second != nil { return .second }
        if f.weekday != nil { return .weekday }
        if f.ordinal != nil { return .ordinal }
        if f.weekOfMonth != nil { return .weekOfMonth }
        if f.weekOfYear != nil { return .weekOfYear }
        if f.yearForWeekOfYear != nil { return .yearForWeekOfYear }
        return nil
    }

    private func lowestSetUnit(_ f: Fields) -> Unit? {
        if f.yearForWeekOfYear != nil { return .yearForWeekOfYear }
        if f.weekOfYear != nil { return .weekOfYear }
        if f.weekOfMonth != nil { return .weekOfMonth }
        if f.ordinal != nil { return .ordinal }
        if f.weekday != nil { return .weekday }
        if f.second != nil { return .second }
        if f.minute != nil { return .minute }
        if f.hour != nil { return .hour }
        if f.day != nil { return .day }
        if f.month != nil { return .month }
        if f.dayOfYear != nil { return .dayOfYear }
        if f.year != nil { return .year }
        return nil
    }

    /// A set of ``Unit``s as bits (no allocation on the search's hot path); ``first`` is the
    /// highest unit in Foundation's order.
    struct Units {
        var bits: UInt16 = 0
        mutating func insert(_ u: Unit) { bits |= 1 << u.rawValue }
        func contains(_ u: Unit) -> Bool { bits & (1 << u.rawValue) != 0 }
        var isEmpty: Bool { bits == 0 }
        var count: Int { bits.nonzeroBitCount }
        var first: Unit? { bits == 0 ? nil : Unit(rawValue: bits.trailingZeroBitCount) }
    }

    /// The units of `f` that instant `t` does not show.
    private func mismatches(_ t: Int64, _ f: Fields) -> Units {
        let day = wallDay(t)
        let time = wallTime(t)
        let (y, m, d) = CivilDate.ymd(days: day)
        var out = Units()
        if let v = f.year, v != y { out.insert(.year) }
        if let v = f.dayOfYear, v != day - CivilDate.days(year: y, month: 1, day: 1) + 1 { out.insert(.dayOfYear) }
        if let v = f.month, v != m { out.insert(.month) }
        if let v = f.day, v != d { out.insert(.day) }
        if let v = f.hour, v != Int(time / Self.msHour) { out.insert(.hour) }
        if let v = f.minute, v != Int(time / Self.msMinute % 60) { out.insert(.minute) }
        if let v = f.second, v != Int(time / 1000 % 60) { out.insert(.second) }
        if let v = f.weekday, v != CivilDate.weekday(days: day) { out.insert(.weekday) }
        if let v = f.ordinal, v != (d - 1) / 7 + 1 { out.insert(.ordinal) }
        if let v = f.weekOfMonth, v != weekOfMonth(day: day) { out.insert(.weekOfMonth) }
        if f.weekOfYear != nil || f.yearForWeekOfYear != nil {
            let (wy, w, _) = weeks.weekOfYear(dayNumber: day, year: y)
            if let v = f.weekOfYear, v != w { out.insert(.weekOfYear) }
            if let v = f.yearForWeekOfYear, v != wy { out.insert(.yearForWeekOfYear) }
        }
        return out
    }

    /// Foundation's `_adjustedDateForMismatchedHour`: a candidate whose hour alone is wrong
    /// because the hour does not exist (spring forward) moves one hour later when it lies
    /// before the gap and stays when it lies after it.
    private func forwardDSTAdjusted(_ t: Int64) -> Int64? {
        let start = hourStart(t)
        let current = hour(of: start)
        let next = hour(of: start + Self.msHour)
        if next - current > 1 || (current == 23 && next > 0) { return t + Self.msHour }
        let previous = hour(of: start - 1000)
        if current - previous > 1 || (previous == 23 && current > 0) { return t }
        return nil
    }

    /// Foundation's `_adjustedDateForMismatchedLeapMonthOrDay` (Gregorian, preserving smaller
    /// units), for a day-level pattern whose adjusted month lacks the day: the 1st of the
    /// following month at the pattern's time (or the reference's where unset), if that date
    /// matches the other fields; `nil` otherwise (the round finds nothing).
    private func missingDayAdjusted(searching: Int64, start: Int64, _ toMatch: Fields) throws(Unsupported) -> Int64? {
        guard let month = toMatch.month, let day = toMatch.day else { return nil }
        let (sy, sm, sd) = CivilDate.ymd(days: wallDay(searching))
        guard sd != day || sm != month else { return nil }
        if month == 2 && fields.month == 2 {
            // February asked for by the trigger itself: first look in the next leap year
            // (Foundation adds 4 - year % 4 years, not always a leap year: 2100).
            let inYear = addYears(4 - sy % 4, to: searching)
            let yearStart = dayStart(CivilDate.days(year: CivilDate.ymd(days: wallDay(inYear)).year, month: 1, day: 1))
            let inner = try matchingDate(after: yearStart, toMatch)
            if mismatches(inner, toMatch).isEmpty { return inner }
        }
        var copy = toMatch
        let time = wallTime(start)
        copy.hour = toMatch.hour ?? Int(time / Self.msHour)
        copy.minute = toMatch.minute ?? Int(time / Self.msMinute % 60)
        copy.second = toMatch.second ?? Int(time / 1000 % 60)
        copy.year = toMatch.year.map { Swift.max($0, sy) } ?? sy
        copy.month = month == 12 ? 1 : month + 1
        copy.day = 1
        let inner = try matchingDate(after: searching, copy)
        return mismatches(inner, copy).isEmpty ? inner : nil
    }

    /// Foundation's `bumpedDateUpToNextHigherUnitInComponents`: where the next round searches.
    private func bumped(_ searching: Int64, match: Int64?) -> Int64 {
        guard let highest = highestSetUnit(fields), let lowest = lowestSetUnit(fields) else { return searching }
        let result = intervalEnd(highest.nextHigher, of: searching)
        guard let match, match >= result else { return result }
        switch lowest {
        case .weekOfMonth, .ordinal, .weekOfYear: return addDays(7, to: match)
        case .weekday, .day, .dayOfYear: return addDays(1, to: match)
        case .yearForWeekOfYear: return addWeekYear(to: match)
        case .hour: return match + Self.msHour
        case .minute: return match + Self.msMinute
        case .second: return match + 1000
        case .month, .year: return addMonths(lowest == .year ? 12 : 1, to: match)
        }
    }
}
