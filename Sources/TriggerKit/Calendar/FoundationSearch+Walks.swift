/// The field-by-field walks of Foundation's search (`_matchingDate` and its
/// `dateAfterMatching...` helpers), on wall-clock day numbers (primitives in
/// `FoundationSearch+Calendar.swift`).
extension FoundationSearch {
    // MARK: The walks

    /// Foundation's `_matchingDate(after:matching:)`: each set field, highest first, moves the
    /// search date to the first later date where that field matches.
    func matchingDate(after t: Int64, _ f: Fields) throws(Unsupported) -> Int64 {
        var r = t
        if let y = f.year, CivilDate.ymd(days: wallDay(r)).year != y {
            r = wallInstant(day: CivilDate.days(year: y, month: 1, day: 1))
        }
        if let y = f.yearForWeekOfYear, yearForWeekOfYear(day: wallDay(r)) != y {
            r = dayStart(weeks.week1Start(y))
        }
        if let w = f.weekOfYear {
            var d = wallDay(r)
            if weeks.weekOfYear(dayNumber: d, year: CivilDate.ymd(days: d).year).week != w {
                var steps = 0
                repeat {
                    d = d - weekPosition(d) + 7
                    steps += 1
                    if steps > 200 { throw Unsupported() }
                } while weeks.weekOfYear(dayNumber: d, year: CivilDate.ymd(days: d).year).week != w
                r = dayStart(d)
            }
        }
        if let n = f.dayOfYear {
            var d = wallDay(r)
            func doy(_ d: Int) -> Int { d - CivilDate.days(year: CivilDate.ymd(days: d).year, month: 1, day: 1) + 1 }
            if doy(d) != n {
                var steps = 0
                repeat {
                    d += 1
                    steps += 1
                    if steps > 3000 { throw Unsupported() }
                } while doy(d) != n
                r = dayStart(d)
            }
        }
        if let m = f.month {
            var (y, mm, _) = CivilDate.ymd(days: wallDay(r))
            if mm != m {
                repeat {
                    mm += 1
                    if mm > 12 { mm = 1; y += 1 }
                } while mm != m
                r = dayStart(CivilDate.days(year: y, month: mm, day: 1))
            }
        }
        if let w = f.weekOfMonth { r = try afterWeekOfMonth(r, w) }
        if let o = f.ordinal { r = afterOrdinal(r, o, weekday: f.weekday) }
        if let wd = f.weekday {
            let d0 = wallDay(r)
            if CivilDate.weekday(days: d0) != wd {
                r = dayStart(d0 + (wd - CivilDate.weekday(days: d0) + 7) % 7)
            }
        }
        if let d = f.day { r = afterDay(r, d) }
        if let h = f.hour { r = try afterHour(r, h) }
        if let m = f.minute { r = try afterMinute(r, m) }
        if let s = f.second { r = try afterSecond(r, s, original: t, minute: f.minute) }
        return r
    }

    private func afterWeekOfMonth(_ t: Int64, _ target: Int) throws(Unsupported) -> Int64 {
        var wom = weekOfMonth(day: wallDay(t))
        if wom == target { return t }
        var r = t
        var guardSteps = 0
        repeat {
            let d = wallDay(r)
            let weekStart = d - weekPosition(d)
            var advanceDaily = target == 1
            if advanceDaily {
                let (y, m, _) = CivilDate.ymd(days: d)
                let first = CivilDate.days(year: y, month: m, day: 1)
                let last = first + CivilDate.daysInMonth(year: y, month: m) - 1
                let weeks = weekOfMonth(day: last) + 1 - weekOfMonth(day: first)
                advanceDaily = wom == weeks
            }
            var next: Int64
            if advanceDaily {
                // Day by day from the week's first instant, keeping its wall time (01:00 when
                // the week starts in a midnight gap: Gaza 2022-03-27 gives April 1st 01:00).
                var day = weekStart
                next = dayStart(day)
                while CivilDate.ymd(days: day).day != 1 {
                    next = addDays(1, to: next)
                    day += 1
                }
            } else {
                next = dayStart(weekStart + 7)
            }
            wom = weekOfMonth(day: wallDay(next))
            guard next > r else { throw Unsupported() }
            r = next
            guardSteps += 1
            if guardSteps > 400 { throw Unsupported() }
        } while wom != target
        return r
    }

    /// Foundation's `dateAfterMatchingWeekdayOrdinal`: a day-by-day walk to the first day with
    /// the ordinal and then, if the weekday differs, a walk from the search date to the first
    /// day with both (a real occurrence). In closed form, month by month.
    private func afterOrdinal(_ t: Int64, _ target: Int, weekday: Int?) -> Int64 {
        let d0 = wallDay(t)
        let (y0, m0, dd0) = CivilDate.ymd(days: d0)
        if (dd0 - 1) / 7 + 1 == target { return t }
        let lo = 7 * (target - 1) + 1, hi = 7 * target
        // The block of days with the ordinal, month by month from the search date's.
        var (y, m, first) = (y0, m0, d0 - dd0 + 1)
        var dim = CivilDate.daysInMonth(year: y, month: m)
        var from = dd0 + 1
        func nextMonth() {
            first += dim
            (y, m) = m == 12 ? (y + 1, 1) : (y, m + 1)
            dim = CivilDate.daysInMonth(year: y, month: m)
            from = 1
        }
        while Swift.max(from, lo) > Swift.min(hi, dim) { nextMonth() }
        let firstWithOrdinal = first + Swift.max(from, lo) - 1
        guard let weekday, CivilDate.weekday(days: firstWithOrdinal) != weekday else { return dayStart(firstWithOrdinal) }
        (y, m, first) = (y0, m0, d0 - dd0 + 1)
        dim = CivilDate.daysInMonth(year: y, month: m)
        from = dd0 + 1
        while true {
            let start = Swift.max(from, lo), end = Swift.min(hi, dim)
            if start <= end {
                let k = first + start - 1
                let x = k + (weekday - CivilDate.weekday(days: k) + 7) % 7
                if x <= first + end - 1 { return dayStart(x) }
            }
            nextMonth()
        }
    }

    /// Foundation's `dateAfterMatchingDay`: a day-by-day walk to the day of the month, which
    /// stops once the month number is two away from the start's (December to January counts
    /// as eleven) and steps back one day. In closed form.
    private func afterDay(_ t: Int64, _ target: Int) -> Int64 {
        let d0 = wallDay(t)
        let (y0, m0, dd0) = CivilDate.ymd(days: d0)
        if dd0 == target { return dayStart(d0) }
        let dim0 = CivilDate.daysInMonth(year: y0, month: m0)
        if dd0 < target && target <= dim0 { return dayStart(d0 + target - dd0) }
        let first1 = d0 - dd0 + dim0 + 1
        let (y1, m1) = m0 == 12 ? (y0 + 1, 1) : (y0, m0 + 1)
        if abs(m1 - m0) >= 2 { return dayStart(first1 - 1) }
        let dim1 = CivilDate.daysInMonth(year: y1, month: m1)
        if target <= dim1 { return dayStart(first1 + target - 1) }
        // The month after next is always two or more away: back to the last day of m1.
        return dayStart(first1 + dim1 - 1)
    }

    private func afterHour(_ t: Int64, _ target: Int) throws(Unsupported) -> Int64 {
        var r = t
        var adjusted = false
        var dateHour = hour(of: r)
        if target == 0 {
            // A day without hour 0 (a gap at midnight) starts at its first hour: that is a match.
            let begin = dayStart(wallDay(r))
            let firstHour = hour(of: begin)
            if firstHour != 0 && dateHour == firstHour { adjusted = true }
        }
        if target != dateHour && !adjusted {
            let start = hourStart(r)
            let steps = Int64((target - dateHour + 24) % 24)
            if !zone.hasTransition(from: start, to: start + (steps + 1) * Self.msHour) {
                // No offset change on the way: Foundation's hour-by-hour walk, in one jump.
                return start + steps * Self.msHour
            }
            var count = 0
            repeat {
                let last = r
                let found = hourStart(r)
                let previousHour = dateHour
                let next = found + Self.msHour
                dateHour = hour(of: next)
                if dateHour - previousHour == 2 || (previousHour == 23 && dateHour == 1) {
                    // A skipped hour: Foundation stays before it and counts the hour as passed.
                    dateHour -= 1
                    r = found
                } else {
                    r = next
                }
                if r == last && previousHour == dateHour { throw Unsupported() }
                count += 1
                if count > 60 { throw Unsupported() }
            } while target != dateHour
            return r
        }
        return adjusted ? r : hourStart(r)
    }

    private func afterMinute(_ t: Int64, _ target: Int) throws(Unsupported) -> Int64 {
        let current = minute(of: t)
        if current == target { return minuteStart(t) }
        let start = minuteStart(t)
        let steps = Int64((target - current + 60) % 60)
        let end = start + steps * Self.msMinute
        if zone.offset(atUTC: t) % Self.msMinute == 0 && !zone.hasTransition(from: t, to: end) { return end }
        var r = t
        var count = 0
        repeat {
            r = minuteStart(r) + Self.msMinute
            count += 1
            if count > 10_000 { throw Unsupported() }
        } while minute(of: r) != target
        return r
    }

    private func afterSecond(_ t: Int64, _ target: Int, original: Int64, minute wanted: Int?) throws(Unsupported) -> Int64 {
        let current = second(of: t)
        if current == target { return secondStart(t) }
        let start = secondStart(t)
        let steps = Int64((target - current + 60) % 60)
        var r = start + steps * 1000
        if zone.offset(atUTC: t) % 1000 != 0 || zone.hasTransition(from: t, to: r) {
            r = t
            var count = 0
            repeat {
                r = secondStart(r) + 1000
                count += 1
                if count > 10_000 { throw Unsupported() }
            } while second(of: r) != target
        }
        if original < r, let wanted {
            // Crossed into a later minute than the pattern's: back up minute by minute.
            var count = 0
            while minute(of: r) > wanted {
                r = minuteStart(r) - Self.msMinute
                count += 1
                if count > 100 { throw Unsupported() }
            }
        }
        return r
    }
}
