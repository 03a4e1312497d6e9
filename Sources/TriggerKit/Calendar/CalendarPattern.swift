import Foundation

/// The date components of a Gregorian or ISO 8601 calendar trigger, packed into a few bytes
/// and pre-resolved for matching: unset time fields below the smallest set one are fixed to
/// their minimum, and the nanosecond is reduced to milliseconds (the engine's resolution).
///
/// `Int32.min` / `-1` mark unset fields, keeping the struct small: a stream evaluator holds a
/// million compiled triggers.
struct CalendarPattern: Sendable, Hashable {
    static let unset32 = Int32.min
    var year: Int32 = unset32
    var yearForWeekOfYear: Int32 = unset32
    var dayOfYear: Int16 = -1
    var era: Int8 = -1
    var month: Int8 = -1
    var day: Int8 = -1
    var weekday: Int8 = -1
    /// 1...5 from the month's start, -5...-1 from its end (-1: the last), 0: unset.
    var weekdayOrdinal: Int8 = 0
    var weekOfMonth: Int8 = -1
    var weekOfYear: Int8 = -1
    /// Time-of-day constraints after resolution: -1 = any value.
    var hour: Int8 = -1
    var minute: Int8 = -1
    var second: Int8 = -1
    /// Which of hour, minute, second the trigger itself sets (bits 0, 1, 2).
    var timeSet: UInt8 = 0
    /// Millisecond of the second every match has (from `nanosecond`, truncated; else 0).
    var millisecond: Int16 = 0
    /// The trigger's own `nanosecond`, or -1 (kept to hand the trigger back to Foundation).
    var nanosecond: Int32 = -1
    var firstWeekday: Int8 = 1
    var minimumDaysInFirstWeek: Int8 = 1
    /// Date fields filled in by the minimum rule (bit 0: day, 1: month, 2: weekday,
    /// 3: weekOfYear, 4: weekdayOrdinal), left out when the trigger is handed back to Foundation;
    /// bit 5: ``isBeyondNativeRules``.
    var implicit: UInt8 = 0
    /// Why the components can never match, if they can't (independently of any date); boxed
    /// so that the common case costs one pointer.
    var impossibilityBox: ImpossibilityBox?
    var impossibility: Impossibility? {
        get { impossibilityBox?.reason }
        set { impossibilityBox = newValue.map(ImpossibilityBox.init) }
    }

    final class ImpossibilityBox: Sendable, Hashable {
        let reason: Impossibility
        init(_ r: Impossibility) { reason = r }
        static func == (a: ImpossibilityBox, b: ImpossibilityBox) -> Bool { a.reason == b.reason }
        func hash(into h: inout Hasher) { h.combine(reason) }
    }

    /// Reasons components can never match, found without searching.
    enum Impossibility: Sendable, Hashable {
        case outOfRange(DateMatchingField, Int, ClosedRange<Int>)
        case beforeCommonEra
        case noSuchWeek(weekOfYear: Int, yearForWeekOfYear: Int)
        case noSuchWeekOfMonth(weekOfMonth: Int, month: Int)
        case noSuchOrdinal(weekdayOrdinal: Int, month: Int)
        case conflictingYears(year: Int, yearForWeekOfYear: Int)
        case dayOfYearOutsideMonth(dayOfYear: Int, month: Int)
        case yearOutsideTable(Int)
        /// Week 0 of a month, which exists where a first week needs several days (ISO 8601's
        /// four): Foundation's search for it never returns (`make fuzz`), so it is never a fire.
        case weekZeroNotSearched

        var description: String {
            switch self {
            case let .outOfRange(f, v, r) where f == .weekdayOrdinal:
                "\(f.rawValue) \(v) is outside 1...\(r.upperBound) (or \(r.lowerBound)...-1, counted from the month's end)"
            case let .outOfRange(f, v, r):
                "\(f.rawValue) \(v) is outside \(r.lowerBound)...\(r.upperBound)"
            case .beforeCommonEra:
                "era 0 (before the common era) has no future dates"
            case let .noSuchWeek(w, y):
                "week \(w) does not exist in week-year \(y)"
            case let .noSuchWeekOfMonth(w, m) where m == 0:
                // (No month given: it said "month 0 never has a week 0"; a helper's find.)
                "no month has a week \(w) when a month's first week may be one day long"
            case let .noSuchWeekOfMonth(w, m):
                "month \(m) never has a week \(w)"
            case let .noSuchOrdinal(o, m):
                "month \(m) never has a \(o)th weekday of one kind"
            case let .conflictingYears(y, yw):
                "year \(y) and yearForWeekOfYear \(yw) never overlap"
            case let .dayOfYearOutsideMonth(d, m):
                "day \(d) of the year is never in month \(m)"
            case .weekZeroNotSearched:
                "weekOfMonth 0 is not supported where a month's first week needs several days (Foundation's search for it never ends)"
            case let .yearOutsideTable(y):
                "year \(y) is beyond the engine's range"
            }
        }
    }

    /// Valid ranges of each field; a value outside its range never matches (`weekdayOrdinal`
    /// 0 neither). A negative `weekdayOrdinal` counts from the month's end, as Foundation's
    /// `date(from:)` reads it (-1: the last Friday), though its `nextDate` answers nil. `weekdayOrdinal`
    /// 6 and 7 are in Foundation's range but never match (and make it loop forever).
    static let ranges: [(DateMatchingField, ClosedRange<Int>)] = [
        (.era, 0...1), (.year, 1...Int(Int32.max)), (.yearForWeekOfYear, 1...Int(Int32.max)),
        (.month, 1...12), (.weekOfYear, 1...53), (.weekOfMonth, 0...6), (.dayOfYear, 1...366), (.day, 1...31),
        (.weekday, 1...7), (.weekdayOrdinal, -5...5), (.hour, 0...23), (.minute, 0...59), (.second, 0...59),
        (.nanosecond, 0...999_999_999), (.quarter, 1...4),
    ]

    init(_ c: DateComponents, firstWeekday: Int, minimumDaysInFirstWeek: Int) {
        self.firstWeekday = Int8(clamping: firstWeekday)
        self.minimumDaysInFirstWeek = Int8(clamping: minimumDaysInFirstWeek)
        for (field, range) in Self.ranges {
            if let v = field.value(in: c), !range.contains(v) || (field == .weekdayOrdinal && v == 0) {
                impossibility = .outOfRange(field, v, range)
                return
            }
        }
        if let v = c.era { era = Int8(v); if v == 0 { impossibility = .beforeCommonEra } }
        if let v = c.year { year = Int32(v) }
        if let v = c.yearForWeekOfYear { yearForWeekOfYear = Int32(v) }
        if let v = c.dayOfYear { dayOfYear = Int16(v) }
        if let v = c.month { month = Int8(v) }
        if let v = c.day { day = Int8(v) }
        if let v = c.weekday { weekday = Int8(v) }
        if let v = c.weekdayOrdinal { weekdayOrdinal = Int8(v) }
        if let v = c.weekOfMonth { weekOfMonth = Int8(v) }
        if let v = c.weekOfYear { weekOfYear = Int8(v) }
        if let v = c.nanosecond { millisecond = Int16(v / 1_000_000); nanosecond = Int32(v) }
        // A date matches when every component smaller than the smallest set one is at its
        // minimum: {hour: 14} is 14:00:00.000 only, {minute: 5} is every hour at :05:00.
        let h = c.hour, m = c.minute, s = c.second, ns = c.nanosecond
        timeSet = (h != nil ? 1 : 0) | (m != nil ? 2 : 0) | (s != nil ? 4 : 0)
        second = Int8(s ?? (ns != nil ? -1 : 0))
        minute = Int8(m ?? ((s != nil || ns != nil) ? -1 : 0))
        hour = Int8(h ?? ((m != nil || s != nil || ns != nil) ? -1 : 0))
        // Foundation also fixes unset fields *between* set ones of the chain year > month >
        // day > hour > minute > second at their minimum: {day 29, second 52} is 00:00:52
        // only, {hour 9, second 30} 09:00:30, {month 3, hour 9} March 1st. Weekday-type fields
        // do not anchor the chain ({weekday 3, minute 15} fires every hour of Tuesdays). The
        // time fields keep their "unset" bit: a rolled-over day takes them from the reference.
        let weekFields = c.weekOfYear != nil || c.yearForWeekOfYear != nil || c.dayOfYear != nil
        let dateAnchor = c.month != nil || c.day != nil || (c.year != nil && !weekFields)
        if dateAnchor, h == nil, m != nil || s != nil || ns != nil { hour = 0 }
        if h != nil || dateAnchor, m == nil, s != nil || ns != nil { minute = 0 }
        if h != nil || m != nil || dateAnchor, s == nil, ns != nil { second = 0 }
        let timeBelow = h != nil || m != nil || s != nil || ns != nil
        let dayFixedOtherwise = c.weekday != nil || c.weekdayOrdinal != nil || c.weekOfMonth != nil || weekFields
        if c.month != nil, c.day == nil, !dayFixedOtherwise, timeBelow { day = 1; implicit |= 1 }
        // With the month set, a weekday alone does not free the day either: Foundation starts
        // at the 1st and slides to the first matching weekday, so {month 9, weekday 6} is the
        // first Friday of September only (once a year), i.e. weekdayOrdinal 1.
        if c.month != nil, c.day == nil, c.weekday != nil, c.weekdayOrdinal == nil, c.weekOfMonth == nil, !weekFields {
            weekdayOrdinal = 1
            implicit |= 16
        }
        if c.year != nil, c.month == nil, !dayFixedOtherwise, c.day != nil || timeBelow { month = 1; implicit |= 2 }
        if c.year != nil, c.month == nil, c.day == nil, !dayFixedOtherwise, timeBelow { day = 1; implicit |= 1 }
        // The minimum rule applies to date fields too: {month: 10} is October 1st 00:00 only,
        // {year: 2030} January 1st, a week without a weekday its first day.
        let dayLevel = day > 0 || weekday > 0 || dayOfYear > 0 || weekdayOrdinal != 0
        if !dayLevel, timeSet == 0, nanosecond < 0 {
            if weekOfYear > 0 || weekOfMonth >= 0 {
                weekday = Int8(firstWeekday); implicit |= 4
            } else if month > 0 {
                day = 1; implicit |= 1
            } else if yearForWeekOfYear != Self.unset32 {
                weekOfYear = 1; weekday = Int8(firstWeekday); implicit |= 8 | 4
            } else if year != Self.unset32 {
                month = 1; day = 1; implicit |= 2 | 1
            }
        }
        if Self.isBeyondNativeRules(c) { implicit |= 32 }
        impossibility = impossibility ?? staticImpossibility()
    }

    /// Whether Foundation's answer is not always a real occurrence: its month-stepping search
    /// for `weekdayOrdinal` / `weekOfMonth`, and weekday-with-day mixes, answers March 1st after
    /// many February candidates and skips real occurrences after late-month ones. For these
    /// the schedule re-enacts that search and reconciles it with the real occurrence (see
    /// ``CalendarSchedule/nextFire(afterMillis:)``).
    var needsFoundationCheck: Bool {
        weekdayOrdinal > 0 || weekOfMonth >= 0 || (weekday > 0 && day > 0)
    }

    /// Combinations that can never match whatever the date (see ``Impossibility``).
    private func staticImpossibility() -> Impossibility? {
        if weekOfMonth == 0, minimumDaysInFirstWeek > 1 { return .weekZeroNotSearched }
        if yearForWeekOfYear != Self.unset32, weekOfYear > 0,
           weekOfYear > weeksInWeekYear(Int(yearForWeekOfYear)) {
            return .noSuchWeek(weekOfYear: Int(weekOfYear), yearForWeekOfYear: Int(yearForWeekOfYear))
        }
        if year != Self.unset32, yearForWeekOfYear != Self.unset32, abs(Int(year) - Int(yearForWeekOfYear)) > 1 {
            return .conflictingYears(year: Int(year), yearForWeekOfYear: Int(yearForWeekOfYear))
        }
        if month > 0 {
            let m = Int(month)
            if weekOfMonth >= 0, weekOfMonth > maxWeekOfMonth(month: m) || (weekOfMonth == 0 && minimumDaysInFirstWeek == 1) {
                return .noSuchWeekOfMonth(weekOfMonth: Int(weekOfMonth), month: m)
            }
            if abs(weekdayOrdinal) == 5, m == 2 , weekday > 0, year != Self.unset32, !CivilDate.isLeapYear(Int(year)) {
                return .noSuchOrdinal(weekdayOrdinal: Int(weekdayOrdinal), month: 2)
            }
            if dayOfYear > 0 {
                // Month m covers days of year first...last in a common or leap year.
                let first = CivilDate.days(year: 2001, month: m, day: 1) - CivilDate.days(year: 2001, month: 1, day: 1) + 1
                let last = first + CivilDate.daysInMonth(year: 2000, month: m) - 1 + (m > 2 ? 1 : 0)
                if Int(dayOfYear) < first || Int(dayOfYear) > last {
                    return .dayOfYearOutsideMonth(dayOfYear: Int(dayOfYear), month: m)
                }
            }
        } else if weekOfMonth == 0, minimumDaysInFirstWeek == 1 {
            return .noSuchWeekOfMonth(weekOfMonth: 0, month: 0)
        }
        if year != Self.unset32, year > Int32(ZoneTable.defaultYears.upperBound) {
            return nil  // Not impossible: answered by Foundation.
        }
        return nil
    }

    /// The most weeks (by this pattern's week rules) month `m` can have in any year.
    func maxWeekOfMonth(month m: Int) -> Int {
        var best = 0
        // Every combination of leap year and weekday of the 1st occurs within 28 years.
        for y in 2000..<2028 {
            let first = CivilDate.days(year: y, month: m, day: 1)
            let last = first + CivilDate.daysInMonth(year: y, month: m) - 1
            best = max(best, weekOfMonth(dayNumber: last, firstOfMonth: first))
        }
        return best
    }

    /// The components this pattern was built from (without calendar and zone).
    var dateComponents: DateComponents {
        var c = DateComponents()
        if era >= 0 { c.era = Int(era) }
        if year != Self.unset32 { c.year = Int(year) }
        if yearForWeekOfYear != Self.unset32 { c.yearForWeekOfYear = Int(yearForWeekOfYear) }
        if dayOfYear > 0 { c.dayOfYear = Int(dayOfYear) }
        if month > 0, implicit & 2 == 0 { c.month = Int(month) }
        if day > 0, implicit & 1 == 0 { c.day = Int(day) }
        if weekday > 0, implicit & 4 == 0 { c.weekday = Int(weekday) }
        if weekdayOrdinal != 0, implicit & 16 == 0 { c.weekdayOrdinal = Int(weekdayOrdinal) }
        if weekOfMonth >= 0 { c.weekOfMonth = Int(weekOfMonth) }
        if weekOfYear > 0, implicit & 8 == 0 { c.weekOfYear = Int(weekOfYear) }
        if timeSet & 1 != 0 { c.hour = Int(hour) }
        if timeSet & 2 != 0 { c.minute = Int(minute) }
        if timeSet & 4 != 0 { c.second = Int(second) }
        if nanosecond >= 0 { c.nanosecond = Int(nanosecond) }
        return c
    }

    var hasDateFields: Bool {
        year != Self.unset32 || yearForWeekOfYear != Self.unset32 || dayOfYear > 0 || month > 0 || day > 0
            || weekday > 0 || weekdayOrdinal != 0 || weekOfMonth >= 0 || weekOfYear > 0
    }

    /// Whether a day the month lacks rolls over to the 1st of the next month (Foundation's
    /// behaviour when only year, month and day fix the date).
    var rollsOverMissingDays: Bool {
        day > 28 && dayOfYear < 0 && weekday < 0 && weekdayOrdinal == 0 && weekOfMonth < 0 && weekOfYear < 0
            && yearForWeekOfYear == Self.unset32
    }
}
