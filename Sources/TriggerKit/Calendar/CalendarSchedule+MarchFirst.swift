/// Foundation's "March 1st" habit for month-relative weekday patterns.
///
/// Foundation's `Calendar.nextDate` (Gregorian, `.nextTimePreservingSmallerComponents`)
/// searches `weekdayOrdinal` / `weekOfMonth` patterns by walking days and weeks; when the
/// candidate its walk stops at mismatches and lies in February, its mismatch handling
/// (`_adjustedDateForMismatches`: "a day February lacks") answers the start of March plus the
/// hour, minute and second of the *reference* date, though March 1st is not an occurrence.
/// That answer is the contract. Otherwise its answers are the real occurrences, or later ones
/// where it skips a real occurrence (contract exception (a): the real one wins), as measured
/// against Foundation by `CalendarNativeDifferentialTests`.
@_spi(Engine) extension CalendarSchedule {
    /// Whether the real next occurrence `real` (after `ref`, wall `wallRef`) is also
    /// Foundation's answer: true when it comes before the first March 1st after the
    /// reference's day, so that Foundation's search does not run through the end of a
    /// February (where its habit applies). Measured: from a reference in January or February
    /// with the real occurrence in March or later, Foundation answers March 1st at the
    /// reference's time of day in some cases and the real occurrence in others, by rules of
    /// its day-walking search not reproduced here; those references (about one monthly fire
    /// in twelve) still ask Foundation.
    @inline(__always)
    func realOccurrenceIsFoundations(_ real: Int64?, wallRef: Int64) -> Bool {
        guard let real else { return false }
        let msPerDay = Int64(CalendarPattern.msPerDay)
        let refDay = Int(CivilDate.floorDiv(wallRef, msPerDay))
        let (y, m, _) = CivilDate.ymd(days: refDay)
        let march1 = CivilDate.days(year: m <= 2 ? y : y + 1, month: 3, day: 1)
        let realDay = Int(CivilDate.floorDiv(real + zone.offset(atUTC: real), msPerDay))
        return realDay < march1
    }
}

@_spi(Engine) extension ZoneTable {
    /// Whether any offset change happens in [from, to]. O(log n).
    func hasTransition(from: Int64, to: Int64) -> Bool {
        segment(atUTC: from - 1) != segment(atUTC: to)
    }
}
