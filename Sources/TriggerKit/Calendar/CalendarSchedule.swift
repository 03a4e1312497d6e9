import Foundation

/// A compiled calendar trigger: answers "when does it fire next?" in tens of nanoseconds.
///
/// The answer is what Apple's `UNCalendarNotificationTrigger` gets from Foundation,
/// `Calendar.nextDate(after:matching:matchingPolicy: .nextTimePreservingSmallerComponents,
/// repeatedTimePolicy: .first, direction: .forward)` (a result not strictly later than the
/// reference becomes `nil`), with the contract's deliberate exceptions:
/// - where Foundation skips a real occurrence of a `weekdayOrdinal` or `weekOfMonth` pattern
///   (its answer lies on a later day: after late-month matches, or a "March 1st" answer past
///   a real February date), the real occurrence is returned;
/// - components that can never match (out-of-range values, `weekdayOrdinal` >= 6, week 53 of
///   a week-year without one, ...) answer `nil` at once (``neverFires``);
/// - `year` with a day its month lacks (2035-02-30) fires once, on the 1st of the next month.
///
/// How, for the Gregorian and ISO 8601 calendars: the engine works on epoch milliseconds and
/// civil day numbers. The reference instant becomes a wall-clock time through the zone's
/// ``ZoneTable`` (binary search over its UTC-offset changes), the next matching day is found
/// by constraint jumping (``CalendarPattern/nextDay(from:limit:rollover:)``), the time of day
/// arithmetically, and the wall time goes back to UTC through the table: the first *real*
/// occurrence (``realOccurrence(after:touched:shiftingGaps:)``). That is Foundation's answer
/// away from offset changes. Where it may not be (within a day of an offset change, a matching
/// wall time in a gap or repeated hour on the way, a day the month lacks, `weekdayOrdinal` /
/// `weekOfMonth` / weekday-with-day patterns), the engine re-enacts Foundation's own search
/// natively (``FoundationSearch``) and, for the month-relative patterns, answers the real
/// occurrence instead where Foundation's answer lies on a later day (exception (a) above).
/// `weekdayOrdinal` -1...-5 counts
/// from the month's end (Foundation answers nil; see ``CalendarPattern``).
///
/// Foundation itself answers (counted in ``CalendarFallbacks``) only for other calendars
/// (Hebrew, Islamic, Japanese, Buddhist, Chinese, ...) unless the components are times of the
/// week alone (``isTimeOfWeek(_:)``), references before 1583 (Foundation's Gregorian calendar
/// is Julian before its 1582 reform), triggers with `era` or
/// `nanosecond`, the rare mixes of ``CalendarPattern/isBeyondNativeRules(_:)`` (and, were a
/// zone's table ever not to reach 9999, what lies past it: see ``ZoneTable``).
///
/// Resolution is the millisecond: a `nanosecond` component matches the millisecond it falls in.
///
/// Memory: 58 bytes per schedule (64 in an array); zone tables are shared by reference.
@_spi(Engine) public struct CalendarSchedule: Sendable {
    let zone: ZoneTable
    let pattern: CalendarPattern
    /// Set for calendars the native engine does not cover.
    let foreign: ForeignCalendarSchedule?
    /// The calendar Foundation is asked in where the native rules do not reach (before 1583,
    /// past a zone's table): Gregorian, ISO 8601, or the other calendar of a trigger with
    /// times of the week alone (``isTimeOfWeek(_:)``), whose answers there differ in a few
    /// zones' changes from local mean time (Asia/Tokyo 1888, America/Sitka 1867).
    let fallbackCalendar: Calendar.Identifier
    /// Whether the trigger has no zone of its own and follows the evaluator's zone.
    public let isFloating: Bool

    /// Compiles `trigger`; a floating trigger (no `timeZone` in its components) is evaluated in
    /// `floatingTimeZone`. O(1) when the zone's table is cached, else about a millisecond to
    /// build it.
    public init(_ trigger: CalendarTrigger, floatingTimeZone: TimeZone) {
        var comps = trigger.dateComponents
        let zoneID = comps.timeZone ?? floatingTimeZone
        isFloating = comps.timeZone == nil
        zone = ZoneTable.shared(zoneID)
        guard let cal = comps.calendar else {
            // No calendar of its own: the Gregorian calendar as `CalendarNames` builds it
            // (firstWeekday 1, minimumDaysInFirstWeek 1), from constants: building a Foundation
            // Calendar per trigger only to read them costs about 0.7 us.
            comps.timeZone = nil
            fallbackCalendar = .gregorian
            foreign = nil
            pattern = CalendarPattern(comps, firstWeekday: 1, minimumDaysInFirstWeek: 1)
            return
        }
        comps.calendar = nil
        comps.timeZone = nil
        fallbackCalendar = cal.identifier
        pattern = CalendarPattern(comps, firstWeekday: cal.firstWeekday, minimumDaysInFirstWeek: cal.minimumDaysInFirstWeek)
        if cal.identifier == .gregorian || cal.identifier == .iso8601 || Self.isTimeOfWeek(comps) {
            foreign = nil
        } else {
            var c = cal
            c.timeZone = zoneID
            foreign = ForeignCalendarSchedule(calendar: c, components: comps)
        }
    }

    /// Whether components name only times of day and days of the week (`hour`, `minute`,
    /// `second`, `weekday`): those match the same instants in every calendar Foundation has,
    /// so a trigger in another calendar (Chinese, Hebrew, Islamic, Buddhist...) with only them
    /// is computed natively, in nanoseconds, where Foundation takes 0.3 ms or more a fire.
    /// Checked against Foundation: 61,344 queries in 12 calendars and 11 zones (references
    /// from year 1 to 9999 and around every daylight-saving change of 2020-2026, the
    /// contract's matching policy), and about 940,000 around every change of 1900-2100 in
    /// all 443 zones that touches midnight, every answer the Gregorian calendar's; and by
    /// `TimeOfWeekInOtherCalendarsTests`. Before 1900 a few zones' changes from local mean
    /// time differ in Foundation's answers (Tokyo 1888, Sitka 1867): in zones whose offset had
    /// seconds the engine answers the real occurrence there (exception 1), and before the
    /// tables (1583) Foundation is asked in the trigger's own calendar
    /// (``fallbackCalendar``). A `nanosecond` field, or any date field, keeps Foundation
    /// throughout.
    static func isTimeOfWeek(_ c: DateComponents) -> Bool {
        (c.hour != nil || c.minute != nil || c.second != nil || c.weekday != nil)
            && c.era == nil && c.year == nil && c.quarter == nil && c.month == nil && c.day == nil && c.dayOfYear == nil
            && c.weekOfYear == nil && c.weekOfMonth == nil && c.yearForWeekOfYear == nil && c.weekdayOrdinal == nil
            && c.nanosecond == nil && c.isLeapMonth == nil
    }

    /// Whether the components can never match any date (checked once, at compile time).
    public var neverFires: Bool { neverFiresReason != nil }

    /// Why the components can never match, if ``neverFires``.
    public var neverFiresReason: String? {
        if let foreign { return foreign.neverMatches }
        return pattern.impossibility?.description
    }

    /// The next fire date strictly after `date`, or `nil`. See ``nextFire(afterMillis:)``.
    public func nextDate(after date: Date) -> Date? {
        // Checked: NaN has no next date; a reference outside the supported range is clamped
        // to it (nothing is computed beyond year 9999).
        let raw = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard !raw.isNaN else { return nil }
        let ms = Int64(Swift.min(Swift.max(raw, Double(RequestLimits.earliestMillis)), Double(RequestLimits.latestMillis)))
        // A reference between two milliseconds: search from the millisecond it falls in; a
        // match at that millisecond is not later than `date` only if it equals it exactly.
        guard var next = nextFire(afterMillis: ms) else { return nil }
        var d = Timestamp.date(millis: next)
        if d <= date {
            guard let n2 = nextFire(afterMillis: next) else { return nil }
            next = n2
            d = Timestamp.date(millis: next)
        }
        return d
    }

    /// The next fire instant (epoch ms) strictly after `afterMillis`, or `nil`.
    ///
    /// Complexity: O(log z + j) where z is the number of offset changes of the zone (a binary
    /// search) and j the number of date jumps (1-3 for daily, weekly, monthly and yearly
    /// triggers; bounded by the table's 300 years for unsatisfiable mixes). No allocation.
    public func nextFire(afterMillis ref: Int64) -> Int64? {
        nextFire(afterMillis: ref, consultingFoundation: true)
    }

    /// The next fire; with `consultingFoundation` false, the native answer alone (a real
    /// occurrence, or Foundation's rule for gaps and missing days as the tables model it),
    /// which can differ from Foundation's in the cases it is normally consulted for. Enough
    /// to know *whether* a trigger can fire, at native speed.
    func nextFire(afterMillis ref: Int64, consultingFoundation: Bool) -> Int64? {
        // Other calendars first: the native pattern's ranges are the Gregorian ones (Hebrew
        // has a month 13, Japanese eras run past 1), so they must not refuse those.
        if let foreign {
            CalendarFallbacks.record(.otherCalendar)
            return foreign.next(afterMillis: ref)
        }
        if pattern.impossibilityBox != nil { return nil }
        guard RequestLimits.isSupported(millis: ref) else { return nil }
        guard isNative(afterMillis: ref) else { return foundationNext(afterMillis: ref, .outsideTables) }
        // A table reaches past 9999 (room for the searches): an answer there is no supported
        // date, so no fire. Nor is an answer of Foundation's (or of its search, re-enacted)
        // outside a fixed `year`: `{year 2027, month 3, day 4, weekday 1}` (a Thursday, never
        // a Sunday) fired on 2029-04-01, 2035-04-01, ... as Foundation answers (a helper's
        // find; the contract's fixed-year rule).
        guard let next = tabledNextFire(afterMillis: ref, consultingFoundation: consultingFoundation),
              next <= RequestLimits.latestMillis, !isOutsideFixedYear(next) else { return nil }
        return next
    }

    /// ``nextFire(afterMillis:consultingFoundation:)`` for a reference inside the zone's table.
    private func tabledNextFire(afterMillis ref: Int64, consultingFoundation: Bool) -> Int64? {
        if consultingFoundation, pattern.isBeyondNativeRules {
            // Mixes the native rules do not describe (``CalendarPattern/isBeyondNativeRules(_:)``).
            return foundationAlone(afterMillis: ref)
        }
        if consultingFoundation, pattern.needsFoundationCheck || pattern.rollsOverMissingDays,
           let search = FoundationSearch(zone: zone, pattern: pattern, gregorian: fallbackCalendar == .gregorian) {
            // Month-relative patterns and days some months lack: Foundation's own search,
            // re-enacted (its answers there are not always real occurrences).
            if pattern.needsFoundationCheck { return reconciled(search, afterMillis: ref) }
            return foundationNext(afterMillis: ref, .unmodelledMix)
        }
        // Native: the first matching wall time after the reference. Near an offset change
        // (within a day of the reference or of the answer, or a matching wall time in a gap or
        // fold on the way) Foundation's answers follow the steps of its search, not a rule:
        // the search is re-enacted there (``FoundationSearch``).
        var touched = false
        if pattern.weekdayOrdinal < 0 {
            // "The last Friday": Foundation's nextDate has no answer (it counts ordinals from
            // the month's start only); the contract's outline applies (a wall time in a gap
            // fires at wall time + gap, a repeated one at its first occurrence).
            return realOccurrence(after: ref, touched: &touched, shiftingGaps: true)
        }
        if consultingFoundation && (pattern.needsFoundationCheck || pattern.rollsOverMissingDays) {
            // Beyond what ``FoundationSearch`` re-enacts (a `nanosecond` or an `era` field):
            // Foundation answers whatever the native search finds, so that search (up to 400
            // years for a mix that never occurs, 0.3 ms a fire) is not made.
            return foundationNext(afterMillis: ref, .unmodelledMix)
        }
        let real = realOccurrence(after: ref, touched: &touched)
        guard consultingFoundation else { return real }
        let day = Int64(CalendarPattern.msPerDay)
        if touched || zone.hasTransition(from: ref - day, to: ref + day)
            || real.map({ zone.hasTransition(from: $0 - day, to: $0 + day) }) == true {
            if zone.hasSecondsInOffset(from: ref - day, to: (real ?? ref) + day) {
                // Exception 1: near a change from an offset with seconds, Foundation's
                // UTC-aligned minute steps answer other wall times than the pattern's (Tokyo's
                // 19:03 fired at 19:03:00 and 19:03:59 local time the day before its change
                // in 1888), or none (Sitka 1867). The real occurrence instead, a wall time in a
                // gap moved by the gap, as Foundation's policy moves it.
                var shifted = false
                return realOccurrence(after: ref, touched: &shifted, shiftingGaps: true)
            }
            return foundationNext(afterMillis: ref, .unmodelledMix)
        }
        return real
    }

    /// Instants before this are answered natively (searches need room before the table's
    /// end): past every supported date in a zone whose offset stays fixed or whose changes
    /// repeat every 400 years, which is every zone Foundation has (``ZoneTable/nativeEnd``).
    var nativeEnd: Int64 { zone.nativeEnd }

    /// The first instant after `ref` whose wall clock shows the pattern: a real occurrence,
    /// never a wall time in a gap, a repeated wall time at its first occurrence only, never a
    /// day the month lacks. `touched` is set when a matching wall time fell in a gap or a fold
    /// on the way. O(number of date jumps); no allocation.
    /// With `shiftingGaps`, a wall time in a gap counts, at wall time + gap length. With
    /// `throughWallDay`, days after that one are not searched (nil then).
    ///
    /// The search ends at the table's end, and, for a pattern without a fixed year, one 400-year
    /// period (and a week) after the reference and after 2580: the calendar repeats every
    /// period, and so do the zone's offsets from 2180 on (``ZoneTable``), so a pattern with no
    /// real occurrence in such a stretch has none at all.
    func realOccurrence(after ref: Int64, touched: inout Bool, shiftingGaps: Bool = false, throughWallDay: Int? = nil) -> Int64? {
        let msPerDay = Int64(CalendarPattern.msPerDay)
        let w0 = ref + zone.offset(atUTC: ref) + 1
        var day = Int(CivilDate.floorDiv(w0, msPerDay))
        var tod = Int(w0 - Int64(day) * msPerDay)
        var limit = Int(CivilDate.floorDiv(zone.endMillis, msPerDay)) - 2
        if pattern.year == CalendarPattern.unset32 && pattern.yearForWeekOfYear == CalendarPattern.unset32 {
            limit = Swift.min(limit, Swift.max(day + Self.periodDays + 7, Self.periodicSearchEnd))
        }
        if let throughWallDay { limit = Swift.min(limit, throughWallDay) }
        while true {
            var roll = false
            guard let d = pattern.nextDay(from: day, limit: limit, rollover: &roll) else { return nil }
            if roll {
                // The 1st standing for a day its month lacks is not an occurrence.
                day = d + 1
                tod = 0
                continue
            }
            if d != day { tod = 0 }
            guard let t = pattern.nextTimeOfDay(atOrAfter: tod) else {
                day = d + 1
                tod = 0
                continue
            }
            switch zone.resolve(wall: Int64(d) * msPerDay + Int64(t)) {
            case .unique(let i):
                if i > ref { return i }
            case .gap(let shifted):
                touched = true
                if shiftingGaps && shifted > ref { return shifted }
            case .fold(let first, _):
                touched = true
                if first > ref { return first }
            }
            day = d
            tod = t + 1
        }
    }

    /// Days in the 400-year Gregorian period.
    static let periodDays = 146_097
    /// The first day after a whole period of offsets that repeat (``ZoneTable/foldEnd``) and a week.
    static let periodicSearchEnd = Int(ZoneTable.foldEnd / Int64(CalendarPattern.msPerDay)) + 7
}
