/// The calendar primitives Foundation's search is made of (a date's wall day, time and
/// fields; the start of a day, hour or month; adding days, months, week-years; `date(from:)`),
/// as Foundation's Gregorian calendar computes them, on the zone's offset table.
extension FoundationSearch {
    @inline(__always) func wallDay(_ t: Int64) -> Int {
        Int(CivilDate.floorDiv(t + zone.offset(atUTC: t), Self.msDay))
    }

    /// Milliseconds since wall-clock midnight.
    @inline(__always) func wallTime(_ t: Int64) -> Int64 {
        let w = t + zone.offset(atUTC: t)
        return w - CivilDate.floorDiv(w, Self.msDay) * Self.msDay
    }

    @inline(__always) func hour(of t: Int64) -> Int { Int(wallTime(t) / Self.msHour) }
    @inline(__always) func minute(of t: Int64) -> Int { Int(wallTime(t) / Self.msMinute % 60) }
    @inline(__always) func second(of t: Int64) -> Int { Int(wallTime(t) / 1000 % 60) }
    @inline(__always) func month(of t: Int64) -> Int { CivilDate.ymd(days: wallDay(t)).month }

    /// The first instant of wall day `d` (Foundation walks back second by second to it):
    /// midnight, or the end of a gap that swallows midnight, or the first of two midnights.
    func dayStart(_ d: Int) -> Int64 {
        let w = Int64(d) * Self.msDay
        switch zone.resolve(wall: w) {
        case .unique(let t): return t
        case .fold(let first, _): return first
        case .gap:
            // The transition instant: the first one whose wall clock is past the gap.
            return zone.gapTransition(wall: w)
        }
    }

    /// Start of the wall-clock hour holding `t`, read with `t`'s own offset (as Foundation does).
    @inline(__always) func hourStart(_ t: Int64) -> Int64 {
        let off = zone.offset(atUTC: t)
        return CivilDate.floorDiv(t + off, Self.msHour) * Self.msHour - off
    }

    /// The start of `t`'s minute on the wall clock. Foundation aligns its minute steps to UTC,
    /// which in a zone whose offset has seconds (local mean time: Monrovia -0:44:30 before
    /// 1972) lands on hh:mm:30 for a pattern of hh:mm; the re-enactment steps wall minutes, so
    /// it answers hh:mm:00 there (exception 1), and the same as Foundation elsewhere.
    @inline(__always) func minuteStart(_ t: Int64) -> Int64 {
        let off = zone.offset(atUTC: t)
        return CivilDate.floorDiv(t + off, Self.msMinute) * Self.msMinute - off
    }
    @inline(__always) func secondStart(_ t: Int64) -> Int64 { CivilDate.floorDiv(t, 1000) * 1000 }

    /// Week of the month of day `d` under the calendar's week rules (0 before week 1).
    func weekOfMonth(day d: Int) -> Int {
        weeks.weekOfMonth(dayNumber: d, firstOfMonth: d - CivilDate.ymd(days: d).day + 1)
    }

    func weekPosition(_ d: Int) -> Int { weeks.weekPosition(d) }

    func yearForWeekOfYear(day d: Int) -> Int {
        weeks.weekOfYear(dayNumber: d, year: CivilDate.ymd(days: d).year).year
    }

    /// End of the `unit` interval holding `t` (the start of the next one).
    func intervalEnd(_ unit: Unit, of t: Int64) -> Int64 {
        switch unit {
        case .year, .dayOfYear:
            return dayStart(CivilDate.days(year: CivilDate.ymd(days: wallDay(t)).year + 1, month: 1, day: 1))
        case .yearForWeekOfYear:
            return dayStart(weeks.week1Start(yearForWeekOfYear(day: wallDay(t)) + 1))
        case .month:
            let (y, m, _) = CivilDate.ymd(days: wallDay(t))
            return dayStart(m == 12 ? CivilDate.days(year: y + 1, month: 1, day: 1) : CivilDate.days(year: y, month: m + 1, day: 1))
        case .weekOfMonth, .weekday, .ordinal, .weekOfYear:
            let d = wallDay(t)
            return dayStart(d - weekPosition(d) + 7)
        case .day:
            return dayStart(wallDay(t) + 1)
        case .hour:
            return hourStart(t) + Self.msHour
        case .minute:
            return minuteStart(t) + Self.msMinute
        case .second:
            return secondStart(t) + 1000
        }
    }

    /// Foundation's `add(.day, n)` (and weeks): the same wall time `n` days later; a wall time
    /// in a gap keeps the old offset, one in a fold takes its first occurrence.
    func addDays(_ n: Int, to t: Int64) -> Int64 {
        let off = zone.offset(atUTC: t)
        let w = t + off + Int64(n) * Self.msDay
        switch zone.resolve(wall: w) {
        case .unique(let u): return u
        case .fold(let first, _): return first
        case .gap: return w - off
        }
    }

    /// Foundation's `add(.month, n)`: the day capped to the target month's length.
    func addMonths(_ n: Int, to t: Int64) -> Int64 {
        let day = wallDay(t)
        let time = wallTime(t)
        let (y, m, d) = CivilDate.ymd(days: day)
        let total = y * 12 + (m - 1) + n
        let (ny, nm) = (total / 12, total % 12 + 1)
        let nd = min(d, CivilDate.daysInMonth(year: ny, month: nm))
        let w = Int64(CivilDate.days(year: ny, month: nm, day: nd)) * Self.msDay + time
        switch zone.resolve(wall: w) {
        case .unique(let u): return u
        case .fold(let first, _): return first
        case .gap(let shifted): return shifted
        }
    }

    /// Foundation's `add(.yearForWeekOfYear, 1)`: the same week number, weekday and wall time
    /// one week-year later (week 53 of a year without one runs into the next).
    func addWeekYear(to t: Int64) -> Int64 {
        let day = wallDay(t)
        let (wy, w, _) = weeks.weekOfYear(dayNumber: day, year: CivilDate.ymd(days: day).year)
        let target = weeks.week1Start(wy + 1) + (w - 1) * 7 + weekPosition(day)
        let wall = Int64(target) * Self.msDay + wallTime(t)
        switch zone.resolve(wall: wall) {
        case .unique(let u): return u
        case .fold(let first, _): return first
        case .gap(let shifted): return shifted
        }
    }

    /// Foundation's `add(.year, n)`: the same wall date and time `n` years later, the day
    /// capped to the month's length.
    func addYears(_ n: Int, to t: Int64) -> Int64 { addMonths(12 * n, to: t) }

    /// Foundation's `date(from:)` for the adjusted components of a month-level pattern (year
    /// and month set): the day its resolution picks, at the set time fields.
    func date(from f: Fields) -> Int64? {
        guard let y = f.year, let m = f.month else { return nil }
        let first = CivilDate.days(year: y, month: m, day: 1)
        var dayOfMonth: Int
        if let d = f.day {
            dayOfMonth = d
        } else if let o = f.ordinal, let wd = f.weekday {
            dayOfMonth = (wd - CivilDate.weekday(days: first) + 7) % 7 + 1 + (o - 1) * 7
        } else if let wom = f.weekOfMonth, let wd = f.weekday {
            let dow = (wd - Int(weeks.firstWeekday) + 7) % 7
            let firstPosition = weekPosition(first)
            dayOfMonth = dow - firstPosition + 1
            if 7 - firstPosition < Int(weeks.minimumDaysInFirstWeek) { dayOfMonth += 7 }
            dayOfMonth += (wom - 1) * 7
        } else {
            dayOfMonth = 1
        }
        let seconds = Int64((f.hour ?? 0) * 3600 + (f.minute ?? 0) * 60 + (f.second ?? 0))
        let w = Int64(first + dayOfMonth - 1) * Self.msDay + seconds * 1000
        switch zone.resolve(wall: w) {
        case .unique(let u): return u
        case .fold(let first, _): return first
        case .gap(let shifted): return shifted
        }
    }

    /// Foundation's `date(from:)` for a wall midnight (no walk back to the day's first instant).
    func wallInstant(day d: Int) -> Int64 {
        switch zone.resolve(wall: Int64(d) * Self.msDay) {
        case .unique(let u): return u
        case .fold(let first, _): return first
        case .gap(let shifted): return shifted
        }
    }
}
