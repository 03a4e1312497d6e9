import Foundation
import Synchronization

// Component sets in other calendars that can never match, proved from the calendar's own
// ranges instead of searched for. Foundation's `nextDate` answers such sets by searching, and
// some searches take seconds (`make fuzz`, seed 1): a Chinese `era` 2500 with `weekOfYear` 32
// held one add to `serve` for 15.6 s, a `weekdayOrdinal` 5 with `dayOfYear` 39 for 4.1 s
// (`tools/serve-foreign-calendar.py`), and its tenant (and a thread of the server's pool) with
// it. The contract answers "can never match" at once (`notificationInvalidNoDate`).
//
// Every rule here is a necessary condition for a day to match, derived from ranges Foundation
// reports for the calendar (shortest and longest month, shortest and longest year, the era and
// year of the last supported instant): a rule never refuses a set some day matches.

/// What a calendar's own ranges say about which component sets can match (see the file's notes).
struct ForeignCalendarBounds: Sendable {
    /// The shortest and longest month (days): the longest as measured where Foundation reports
    /// a longer one (``longestMonthMeasured``), except for a set with a `day` (see there).
    let shortestMonth: Int
    private(set) var longestMonth: Int
    /// The longest month Foundation reports.
    let reportedLongestMonth: Int
    /// The fewest and most days in a year.
    let shortestYear: Int
    let longestYear: Int
    /// The era and year of the last supported instant (year 9999 in the Gregorian calendar).
    let lastEra: Int
    let lastYear: Int
    /// Whether the calendar has a single era (a `year` alone then names one year).
    let singleEra: Bool
    /// The calendar's first day of the week (1 Sunday ... 7 Saturday): where its weeks of a
    /// month begin.
    let firstWeekday: Int
    /// The fewest days of a month's (or year's) first partial week for it to count as week 1.
    let minimumDaysInFirstWeek: Int
    /// Foundation's widest range of each field a trigger can set (``fields``): the range
    /// check of every trigger in this calendar reads them here, not from Foundation.
    let widest: [Calendar.Component: Range<Int>]

    /// The fields a trigger can set, with their names in the contract.
    static let fields: [(Calendar.Component, String)] = [
        (.era, "era"), (.year, "year"), (.month, "month"), (.day, "day"), (.hour, "hour"), (.minute, "minute"),
        (.second, "second"), (.weekday, "weekday"), (.weekdayOrdinal, "weekdayOrdinal"), (.weekOfMonth, "weekOfMonth"),
        (.weekOfYear, "weekOfYear"), (.yearForWeekOfYear, "yearForWeekOfYear"), (.nanosecond, "nanosecond"),
        (.dayOfYear, "dayOfYear"),
    ]

    /// Foundation's widest range of each of ``fields`` in `calendar` (fourteen questions).
    static func widestRanges(_ calendar: Calendar) -> [Calendar.Component: Range<Int>] {
        var ranges: [Calendar.Component: Range<Int>] = [:]
        for (component, _) in fields { ranges[component] = calendar.maximumRange(of: component) }
        return ranges
    }

    /// The bounds of `calendar` (its identifier, week rules and zone), made once per such
    /// calendar: about twenty questions to Foundation, some slow (the Chinese calendar's year 9999).
    /// At most one entry per calendar, week rule and zone: a few thousand.
    static func shared(_ calendar: Calendar) -> ForeignCalendarBounds? {
        let key = "\(calendar.identifier) \(calendar.firstWeekday) \(calendar.minimumDaysInFirstWeek) \(calendar.timeZone.identifier)"
        if let known = cache.withLock({ $0[key] }) { return known }
        let made = ForeignCalendarBounds(calendar)
        cache.withLock { $0[key] = made }
        return made
    }
    private static let cache = Mutex<[String: ForeignCalendarBounds?]>([:])

    init?(_ calendar: Calendar) {
        let widest = Self.widestRanges(calendar)
        guard let shortest = calendar.minimumRange(of: .day), let longest = widest[.day],
              let year = calendar.minimumRange(of: .dayOfYear), let years = widest[.dayOfYear],
              let eras = widest[.era] else { return nil }
        self.widest = widest
        let last = calendar.dateComponents([.era, .year], from: Timestamp.date(millis: RequestLimits.latestMillis))
        guard let era = last.era, let y = last.year else { return nil }
        shortestMonth = shortest.upperBound - 1
        reportedLongestMonth = longest.upperBound - 1
        longestMonth = min(longest.upperBound - 1, Self.longestMonthMeasured[calendar.identifier] ?? .max)
        shortestYear = year.upperBound - 1
        longestYear = years.upperBound - 1
        lastEra = era
        lastYear = y
        singleEra = eras.count == 1
        firstWeekday = calendar.firstWeekday
        minimumDaysInFirstWeek = calendar.minimumDaysInFirstWeek
    }

    /// The longest month where Foundation reports a longer one than any it has: each of the
    /// Islamic calendars' 123,672 months from year 1 to 9999 is 29 or 30 days long (every
    /// month's `dateInterval` and `range(of: .day, in: .month)`, and every day's `day`, counted
    /// through Foundation; ``ForeignCalendarBoundsTests`` counts the months again), while
    /// `maximumRange(of: .day)` says 31. With 31, `{weekOfMonth 6, weekday 2}` under week rules
    /// 2 / 2 (days 31-37 of a month) passed, and Foundation searched 86-190 s for it, then
    /// answered nil. A set with a `day` is judged with Foundation's 31: its policy rolls a day a
    /// month lacks over to the next day (`{day 31}` fires on the day after each month's
    /// last, as `{month 2, day 30}` fires on 1 March in the Gregorian calendar).
    static let longestMonthMeasured: [Calendar.Identifier: Int] = [
        .islamic: 30, .islamicCivil: 30, .islamicTabular: 30, .islamicUmmAlQura: 30,
    ]

    /// The most weeks a week-year has. It runs from its week 1 to the next one's, and a week 1
    /// begins between 7 - minimumDays days before its year's first day and minimumDays - 1
    /// days after it: a week-year is at most its year's length + 6 days, so it has at most
    /// (longestYear + 6) / 7 weeks (55 in the Hebrew and Chinese calendars, where Foundation's
    /// `weekOfYear` range allows 56, and Foundation searched 50-200 s for a week 56).
    var mostWeeks: Int { (longestYear + 6) / 7 }

    /// Why `c` can never match a supported date, or nil.
    func neverMatches(_ c: DateComponents) -> String? {
        if c.day != nil, reportedLongestMonth != longestMonth {
            // A day Foundation's range allows and no month has is rolled over (see
            // ``longestMonthMeasured``): judged with the range Foundation reports.
            var reported = self
            reported.longestMonth = reportedLongestMonth
            return reported.neverMatches(c)
        }
        if let era = c.era, era > lastEra { return "era \(era) begins after the last supported date (year 9999)" }
        if let y = c.year, c.era == lastEra || (c.era == nil && singleEra), y > lastYear {
            return "year \(y) begins after the last supported date (year 9999)"
        }
        if let w = c.weekOfYear, w > mostWeeks {
            return "weekOfYear \(w): no week-year of this calendar has more than \(mostWeeks) weeks"
        }
        // The fields that place a day within its year: some day of a year must fit them all.
        var fields: [String] = []
        if let d = c.dayOfYear { fields.append("dayOfYear \(d)") }
        if let m = c.month { fields.append("month \(m)") }
        if let w = c.weekOfYear { fields.append("weekOfYear \(w)") }
        // The days of its month the day can be, from each field that bounds them; if no day
        // is in all of those ranges, no day of a month is.
        var lo = 1, hi = Int.max, monthFields = 0
        func within(_ days: ClosedRange<Int>) {
            lo = Swift.max(lo, days.lowerBound)
            hi = Swift.min(hi, days.upperBound)
            monthFields += 1
        }
        if let day = c.day {
            within(day...day)
            fields.append("day \(day)")
        }
        if let o = c.weekdayOrdinal, o >= 1 {
            let days = (7 * (o - 1) + 1)...(7 * o)
            within(days)
            fields.append("weekdayOrdinal \(o) (days \(days.lowerBound)-\(days.upperBound) of a month)")
        }
        if let w = c.weekOfMonth, w >= 1 {
            let days = Self.days(ofWeekOfMonth: w, weekday: c.weekday, firstWeekday: firstWeekday, minimumDays: minimumDaysInFirstWeek)
            within(days)
            fields.append(c.weekday.map { "weekday \($0) in weekOfMonth \(w)" } ?? "weekOfMonth \(w)")
        }
        if monthFields > 0, lo > longestMonth {
            return "\(fields.joined(separator: " with ")): no month of this calendar has a day \(lo) (its longest has \(longestMonth))"
        }
        guard fields.count >= 2 || (c.weekOfMonth != nil && c.weekday != nil) else { return nil }
        if lo > hi {
            return "\(fields.joined(separator: " with ")): no day of a month is \(monthFields == 2 ? "both" : "all of these")"
        }
        let inMonth = monthFields > 0 ? lo...hi : nil
        let candidates = c.dayOfYear.map { $0...$0 } ?? 1...longestYear
        for d in candidates where fits(d, month: c.month, weekOfYear: c.weekOfYear, inMonth: inMonth) { return nil }
        return "no day of a year fits \(fields.joined(separator: " with "))"
    }

    /// Whether day `d` of a year can be in month `month`, in week `weekOfYear`, and on a day
    /// of its month in `inMonth` (each nil: any), by the necessary conditions below.
    func fits(_ d: Int, month: Int?, weekOfYear: Int?, inMonth: ClosedRange<Int>?) -> Bool {
        // Months before month m: m - 1, one more where a leap month comes first (Chinese),
        // one fewer where a month number is skipped (Hebrew's 6 in a common year); month 1
        // comes first in every calendar, so a later month has at least one before it.
        let before = month.map { m in (m >= 2 ? Swift.max(1, m - 2) : 0)...Swift.max(0, m) } ?? 0...Int.max
        if let w = weekOfYear, !week(w, canHoldDayOfYear: d) { return false }
        return dayOfMonth(of: d, canBeIn: inMonth ?? 1...longestMonth, monthsBefore: before)
    }

    /// The days of a month that week `w` (>= 1) of it can hold, on weekday `weekday` if set.
    /// The month's first day falls q = 0...6 days after the week's first day (`firstWeekday`),
    /// so its first week is 7 - q days long: week 1 when that is at least `minimumDays` (q <=
    /// 7 - minimumDays), else week 0. A day at o = 0...6 days into its week is then day
    /// 7(w - 1) + 1 + o - q of the month, or 7w + 1 + o - q after a week 0; over the q each case
    /// allows, 7w - 13 + minimumDays + o ... 7w - 6 + o, and (minimumDays >= 2 only)
    /// 7w - 5 + o ... 7w - 7 + minimumDays + o. Without a weekday, any o. A necessary condition,
    /// as every rule here.
    static func days(ofWeekOfMonth w: Int, weekday: Int?, firstWeekday: Int, minimumDays: Int) -> ClosedRange<Int> {
        let m = Swift.min(7, Swift.max(1, minimumDays))
        let o: ClosedRange<Int> = weekday.flatMap { (1...7).contains($0) ? $0 : nil }
            .map { let k = (($0 - firstWeekday) % 7 + 7) % 7; return k...k } ?? 0...6
        // Week 1 is bounded below by the month's first day only: Foundation's Chinese calendar
        // names a few days day 0 of the month after (2057-09-28, 2097-08-07), in its week 1 on
        // their weekdays, which the rule above would refuse.
        let lower = w == 1 ? 1 : 7 * w - 13 + m + o.lowerBound
        let upper = (m >= 2 ? 7 * w - 7 + m : 7 * w - 6) + o.upperBound
        return Swift.min(upper, Swift.max(1, lower))...upper
    }

    /// Whether `c` can match only before `ref` (its era, or year of a single-era calendar, is
    /// past): one question to Foundation, against searches that can take seconds.
    func isPast(_ c: DateComponents, calendar: Calendar, ref: Date) -> Bool {
        guard c.era != nil || (singleEra && c.year != nil) else { return false }
        let now = calendar.dateComponents([.era, .year], from: ref)
        guard let era = now.era, let year = now.year else { return false }
        if let e = c.era, e != era { return e < era }
        if let y = c.year { return y < year }
        return false
    }

    /// Whether day `d` of a year can be a day of its month in `days`, after a number of
    /// months in `monthsBefore`: it is `d` less the lengths of the k months before it, each
    /// between the shortest and longest month.
    func dayOfMonth(of d: Int, canBeIn days: ClosedRange<Int>, monthsBefore: ClosedRange<Int> = 0...Int.max) -> Bool {
        guard d >= 1, shortestMonth >= 1 else { return true }
        var k = monthsBefore.lowerBound
        while k <= monthsBefore.upperBound && k * shortestMonth < d {
            // The day of the month after k whole months: from d - k * longest to d - k * shortest.
            let lo = max(1, d - k * longestMonth), hi = min(longestMonth, d - k * shortestMonth)
            if lo <= hi && lo <= days.upperBound && hi >= days.lowerBound { return true }
            k += 1
        }
        return false
    }

    /// Whether week `w` of a week-year can hold day `d` of a year: weeks are 7 days and the
    /// first may start up to 6 days before or after the year (its number then 0 or 1), so day
    /// `d` is in week (d - 1) / 7 to (d + 5) / 7 + 1; within the first week it may be in the
    /// previous week-year's last weeks, and within a week of the shortest year's end in the
    /// next one's first.
    func week(_ w: Int, canHoldDayOfYear d: Int) -> Bool {
        guard d >= 1 else { return true }
        if (d - 1) / 7 <= w && w <= (d + 5) / 7 + 1 { return true }
        if d <= 7 && w >= shortestYear / 7 - 1 { return true }
        if d >= shortestYear - 7 && w <= 1 { return true }
        return false
    }
}
