/// Foundation's answers for wall times in daylight-saving gaps (02:30 on a spring-forward day).
///
/// Measured against `Calendar.nextDate(after:matching:matchingPolicy:
/// .nextTimePreservingSmallerComponents, repeatedTimePolicy: .first, direction: .forward)` on
/// this machine (New York, Dublin, Berlin, Santiago, Havana, St. John's, Sydney; every 30
/// seconds of the days before a gap, and `CalendarRolloverDifferentialTests`), for one-hour
/// gaps on the hour (``ZoneTable/regular``):
/// - the wall time fires at wall time + 1 hour (02:17 -> 03:17 on the new offset);
/// - except for a `weekday` pattern searched from the same weekday one week before, at or
///   after the wall time where the gap ends (03:00 for a 02:00-03:00 gap): Foundation's
///   week-stepping search then passes over the gap day and answers the week after
///   (America/St_Johns `{weekday 1, hour 2, minute 40}` after Sunday 2020-03-01 08:51 gives
///   2020-03-15; from 02:59:59.999 that Sunday it gives 2020-03-08 03:40).
/// Other patterns (no `hour`, a `nanosecond`, or date fields beyond day / month+day / weekday
/// alone) and gaps ending at midnight still ask Foundation.
@_spi(Engine) extension CalendarSchedule {
    /// Whether the gap answer for a wall time `w` (local epoch ms) on day `d` is one of the
    /// measured cases above.
    @inline(__always)
    func gapAnsweredNatively(wall w: Int64) -> Bool {
        let p = pattern
        guard p.timeSet & 1 != 0, p.nanosecond < 0, p.era < 0, p.year == CalendarPattern.unset32,
              p.yearForWeekOfYear == CalendarPattern.unset32, p.dayOfYear < 0, p.weekOfYear < 0,
              p.weekOfMonth < 0, p.weekdayOrdinal < 0
        else { return false }
        if p.weekday > 0, p.day > 0 || p.month > 0 { return false }
        if p.month > 0, p.day < 0 { return false }
        // A gap ending at midnight puts the "gap end" rule on the next day: not measured.
        let hour = Int64(3_600_000), msPerDay = Int64(CalendarPattern.msPerDay)
        let end = (CivilDate.floorDiv(w, hour) + 1) * hour
        return end % msPerDay != 0
    }

    /// Whether Foundation passes over the gap day `d` (wall time `w` in its gap) from the
    /// reference wall time `wallRef` (see the type's notes: weekday patterns only).
    @inline(__always)
    func gapDaySkipped(day d: Int, wall w: Int64, wallRef: Int64) -> Bool {
        guard pattern.weekday > 0 else { return false }
        let hour = Int64(3_600_000), msPerDay = Int64(CalendarPattern.msPerDay)
        let refDay = CivilDate.floorDiv(wallRef, msPerDay)
        guard refDay == Int64(d - 7) else { return false }
        let endTime = (CivilDate.floorDiv(w, hour) + 1) * hour - Int64(d) * msPerDay
        return wallRef - refDay * msPerDay >= endTime
    }
}
