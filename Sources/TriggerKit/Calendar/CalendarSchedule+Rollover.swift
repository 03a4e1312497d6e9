/// Foundation's answers for days a month lacks (day 29-31 patterns: 31 June, 30 February).
///
/// Measured against `Calendar.nextDate(after:matching:matchingPolicy:
/// .nextTimePreservingSmallerComponents, repeatedTimePolicy: .first, direction: .forward)` on
/// this machine (every reference day of 2023 and 2024 at ten times of day, day 29/30/31,
/// monthly and with months 2, 4, 6, 9, 11, every subset of hour/minute/second; see
/// `CalendarRolloverDifferentialTests`):
/// - the missing day stands for the 1st of the next month;
/// - its time of day takes the trigger's hour, minute and second where set and the
///   *reference's* (whole seconds) where not (`{day 31, minute 10}` after 17:10:45 fires at
///   17:10:45 on the 1st; `{day 31, hour 15}` after 17:45:50 at 15:45:50);
/// - except after a reference in January later than the trigger's day, with no month set:
///   Foundation's search bails in February and its mismatch handling
///   (`_adjustedDateForMismatches`, "a day February lacks") answers March 1st plus the
///   reference's whole hour, minute and second, ignoring the trigger's time
///   (`{day 30, hour 2, minute 30}` after Jan 31 23:59 fires Mar 1 at 23:59);
/// - with a month set, a reference on the rolled-over 1st still finds it, unless the next
///   year's month has the day (only 29 February: from 2019-03-01 Foundation skips to
///   2020-02-29; see ``CalendarPattern/nextDay(from:limit:rollover:)``); without a month, a
///   reference on the 1st goes on to the next real day.
@_spi(Engine) extension CalendarSchedule {
    /// Time of day (ms since wall midnight) of the rolled-over day `day` found from a search
    /// whose reference wall time is `wallRef`.
    @inline(__always)
    func rolloverTime(day d: Int, wallRef: Int64) -> Int {
        let msPerDay = Int64(CalendarPattern.msPerDay)
        let refDay = Int(CivilDate.floorDiv(wallRef, msPerDay))
        let refTime = Int(wallRef - Int64(refDay) * msPerDay)
        if pattern.month < 0 {
            let (y, m, dd) = CivilDate.ymd(days: d)
            if m == 3, dd == 1 {
                let (ry, rm, rd) = CivilDate.ymd(days: refDay)
                if ry == y, rm == 1, rd > Int(pattern.day) {
                    // March 1st from February's mismatch handling: the reference's whole time.
                    return refTime / 1000 * 1000
                }
            }
        }
        return pattern.rolloverTime(refTime: refTime)
    }

    /// Whether Foundation must answer for a rolled-over day: when a `nanosecond` is set (its
    /// rollover time was not measured), or when the zone changes offset within a day of it
    /// (Foundation adds the preserved hour, minute and second to the start of the day as a
    /// duration, which differs from wall-clock arithmetic across a change).
    @inline(__always)
    func rolloverNeedsFoundation(day d: Int) -> Bool {
        if pattern.nanosecond >= 0 { return true }
        let msPerDay = Int64(CalendarPattern.msPerDay)
        let start = Int64(d) * msPerDay
        return zone.hasTransition(from: start - msPerDay, to: start + 2 * msPerDay)
    }
}
