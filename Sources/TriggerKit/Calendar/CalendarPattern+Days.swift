/// Date-level matching on day numbers (days since 1970-01-01, proleptic Gregorian).
///
/// `nextDay(from:limit:)` finds the first day at or after a day number whose date fields all
/// match, by constraint jumping: each field that does not match moves the day to the first
/// later day that field alone allows (never past a day it would accept), until all agree.
/// A yearly trigger takes a handful of jumps; an unsatisfiable mix stops at `limit`.
extension CalendarPattern {
    /// Weekday-in-week position of a day (0 = the calendar's first weekday).
    @inline(__always)
    func weekPosition(_ d: Int) -> Int {
        (CivilDate.weekday(days: d) - Int(firstWeekday) + 7) % 7
    }

    /// Day number of the first day of week 1 of week-year `y`: the week holding at least
    /// `minimumDaysInFirstWeek` days of January.
    @inline(__always)
    func week1Start(_ y: Int) -> Int {
        let jan1 = CivilDate.days(year: y, month: 1, day: 1)
        let back = weekPosition(jan1)
        return 7 - back >= Int(minimumDaysInFirstWeek) ? jan1 - back : jan1 - back + 7
    }

    func weeksInWeekYear(_ y: Int) -> Int { (week1Start(y + 1) - week1Start(y)) / 7 }

    /// (yearForWeekOfYear, weekOfYear, start of week 1 of that week-year) of a day.
    @inline(__always)
    func weekOfYear(dayNumber d: Int, year y: Int) -> (year: Int, week: Int, week1: Int) {
        var wy = y
        var s = week1Start(y)
        if d < s {
            wy = y - 1
            s = week1Start(wy)
        } else {
            let n = week1Start(y + 1)
            if d >= n { wy = y + 1; s = n }
        }
        return (wy, (d - s) / 7 + 1, s)
    }

    /// Week of the month of a day (0 for days before week 1 when `minimumDaysInFirstWeek` > 1).
    @inline(__always)
    func weekOfMonth(dayNumber d: Int, firstOfMonth f: Int) -> Int {
        let s = monthWeek1Start(firstOfMonth: f)
        return d < s ? 0 : (d - s) / 7 + 1
    }

    @inline(__always)
    func monthWeek1Start(firstOfMonth f: Int) -> Int {
        let back = weekPosition(f)
        return 7 - back >= Int(minimumDaysInFirstWeek) ? f - back : f - back + 7
    }

    /// A day the pattern's date fields match, at or after `from`, and no later than `limit`.
    /// `rollover` is set when the day stands for a day its month lacks (the 1st of the next
    /// month, which Foundation's search answers for such patterns). O(number of jumps): a few
    /// for usual triggers.
    func nextDay(from: Int, limit: Int, rollover: inout Bool) -> Int? {
        var d = from
        rollover = false
        let rolls = rollsOverMissingDays
        while d <= limit {
            let (y, m, dd) = CivilDate.ymd(days: d)
            if year != Self.unset32 {
                let Y = Int(year)
                if y < Y { d = CivilDate.days(year: Y, month: 1, day: 1); continue }
                if y > Y {
                    return nil
                }
            }
            if month > 0, m != Int(month) {
                let M = Int(month)
                d = CivilDate.days(year: m < M ? y : y + 1, month: M, day: 1)
                continue
            }
            if day > 0, dd != Int(day) {
                let D = Int(day)
                let dim = CivilDate.daysInMonth(year: y, month: m)
                if dd < D && D <= dim {
                    d = CivilDate.days(year: y, month: m, day: D)
                } else {
                    // The month lacks day D: with only year/month/day set, Foundation fires
                    // on the 1st of the next month instead.
                    let next = CivilDate.days(year: y, month: m, day: dim + 1)
                    if rolls, D > dim, dd <= dim {
                        rollover = true
                        return next
                    }
                    d = next
                }
                continue
            }
            if dayOfYear > 0 {
                let jan1 = CivilDate.days(year: y, month: 1, day: 1)
                let doy = d - jan1 + 1
                let N = Int(dayOfYear)
                if doy != N {
                    let len = CivilDate.isLeapYear(y) ? 366 : 365
                    d = doy < N && N <= len ? jan1 + N - 1 : CivilDate.days(year: y + 1, month: 1, day: 1)
                    continue
                }
            }
            if weekOfYear > 0 || yearForWeekOfYear != Self.unset32 {
                let (wy, w, s) = weekOfYear(dayNumber: d, year: y)
                if yearForWeekOfYear != Self.unset32 {
                    let YW = Int(yearForWeekOfYear)
                    if wy < YW { d = week1Start(YW); continue }
                    if wy > YW { return nil }
                }
                if weekOfYear > 0, w != Int(weekOfYear) {
                    let W = Int(weekOfYear)
                    if w < W && W <= weeksInWeekYear(wy) {
                        d = s + (W - 1) * 7
                    } else {
                        d = week1Start(wy + 1)
                    }
                    continue
                }
            }
            if weekOfMonth >= 0 {
                let f = d - dd + 1
                let w = weekOfMonth(dayNumber: d, firstOfMonth: f)
                let W = Int(weekOfMonth)
                if w != W {
                    let dim = CivilDate.daysInMonth(year: y, month: m)
                    let target = monthWeek1Start(firstOfMonth: f) + (W - 1) * 7
                    if w < W && target <= f + dim - 1 {
                        d = max(target, f)
                    } else {
                        d = f + dim
                    }
                    continue
                }
            }
            if weekdayOrdinal > 0 {
                let o = (dd - 1) / 7 + 1
                let O = Int(weekdayOrdinal)
                if o != O {
                    let dim = CivilDate.daysInMonth(year: y, month: m)
                    let target = (O - 1) * 7 + 1
                    d = o < O && target <= dim ? d - dd + target : d - dd + 1 + dim
                    continue
                }
            } else if weekdayOrdinal < 0 {
                // Counted from the month's end: -1 covers its last 7 days, -2 the 7 before.
                let dim = CivilDate.daysInMonth(year: y, month: m)
                let o = -((dim - dd) / 7 + 1)
                let O = Int(weekdayOrdinal)
                if o != O {
                    let first = dim + 1 + 7 * O
                    d = dd < first && first >= 1 ? d - dd + first : d - dd + 1 + dim
                    continue
                }
            }
            if weekday > 0 {
                let wd = CivilDate.weekday(days: d)
                if wd != Int(weekday) {
                    d += (Int(weekday) - wd + 7) % 7
                    continue
                }
            }
            return d
        }
        return nil
    }
}
