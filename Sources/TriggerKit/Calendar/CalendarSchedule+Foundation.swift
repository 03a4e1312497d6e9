import Foundation

// Where a calendar schedule takes Foundation's answer: which fires are Foundation's to find,
// month-relative patterns re-enacted and reconciled with the real occurrence, and the
// fallbacks to Foundation itself.

extension CalendarSchedule {
    /// Whether the fire after `ref` is Foundation's to find (0.03 ms to over 100 ms) rather
    /// than computed natively (nanoseconds): another calendar, a reference outside the zone's
    /// table (before 1583, or past the end of what it answers natively), or a pattern that needs Foundation's check and that ``FoundationSearch`` does
    /// not re-enact (an `era` or a `nanosecond` field). The routing of
    /// ``nextFire(afterMillis:consultingFoundation:)``, which callers that bound their work use.
    func isAnsweredByFoundation(afterMillis ref: Int64) -> Bool {
        if foreign != nil { return true }
        if pattern.impossibilityBox != nil || !RequestLimits.isSupported(millis: ref) { return false }
        return !isNative(afterMillis: ref) || patternIsAnsweredByFoundation
    }

    /// Whether a Gregorian fire after `ref` is Foundation's to find because the zone's table
    /// does not reach it (before 1583, past the table's end, or a `year` past it).
    func isOutsideTables(afterMillis ref: Int64) -> Bool {
        foreign == nil && !isNative(afterMillis: ref) && pattern.impossibilityBox == nil && RequestLimits.isSupported(millis: ref)
    }

    /// Whether the zone's table reaches the fire after `ref`.
    @inline(__always)
    func isNative(afterMillis ref: Int64) -> Bool {
        zone.covers(ref) && ref < zone.nativeEnd
            && (pattern.year == CalendarPattern.unset32 || Int(pattern.year) <= zone.lastYear)
            && (pattern.yearForWeekOfYear == CalendarPattern.unset32 || Int(pattern.yearForWeekOfYear) < zone.lastYear)
    }

    /// Whether the pattern alone sends every fire to Foundation wherever the tables reach: it
    /// needs Foundation's check and ``FoundationSearch`` does not re-enact it.
    var patternIsAnsweredByFoundation: Bool {
        pattern.isBeyondNativeRules
            || ((pattern.needsFoundationCheck || pattern.rollsOverMissingDays) && pattern.weekdayOrdinal >= 0
                && !FoundationSearch.reenacts(pattern))
    }

    /// Foundation's answer for a month-relative pattern (re-enacted natively), except where it
    /// skips a real occurrence on an earlier day: then the real one wins (contract exception (a)).
    func reconciled(_ search: FoundationSearch, afterMillis ref: Int64) -> Int64? {
        let foundation: Int64?
        do {
            foundation = try search.next(after: ref)
        } catch {
            CalendarFallbacks.record(.unmodelledMix)
            foundation = ForeignCalendarSchedule.next(calendar: foundationCalendar, components: pattern.dateComponents, afterMillis: ref)
        }
        var touched = false
        // Only a real occurrence on an earlier day than Foundation's answer counts: the search
        // stops at that day (a pattern that never really occurs would otherwise be searched
        // to the table's end for every fire).
        let foundationDay = foundation.map(wallDay)
        let real = realOccurrence(after: ref, touched: &touched, throughWallDay: foundationDay)
        guard let real else { return foundation }
        guard let foundation, let foundationDay else { return real }
        // Foundation skipped the real occurrence only if that lies on an earlier day; a "March
        // 1st" answer on the real occurrence's own day (at the reference's time, seconds kept)
        // is Foundation's answer and stands.
        return wallDay(real) < foundationDay ? real : foundation
    }

    /// The local day number (days since 1970-01-01 on the zone's wall clock) of instant `t`.
    @inline(__always)
    func wallDay(_ t: Int64) -> Int {
        Int(CivilDate.floorDiv(t + zone.offset(atUTC: t), Int64(CalendarPattern.msPerDay)))
    }

    /// Foundation's answer where the native rules do not apply: re-enacted natively when the
    /// pattern is in ``FoundationSearch``'s scope and the instant in the zone's table, else
    /// asked of Foundation and counted under `reason`.
    func foundationNext(afterMillis ref: Int64, _ reason: CalendarFallbacks.Reason) -> Int64? {
        if reason != .outsideTables, zone.covers(ref), ref < zone.nativeEnd, let search = FoundationSearch(zone: zone, pattern: pattern, gregorian: fallbackCalendar == .gregorian) {
            do {
                let next = try search.next(after: ref)
                // Beyond the table the zone's offsets are unknown: Foundation answers.
                guard next.map({ $0 < zone.endMillis }) ?? true else { throw FoundationSearch.Unsupported() }
                // A fixed year: Foundation's answers outside it are not fires (contract).
                if let next, isOutsideFixedYear(next) { return nil }
                return next
            } catch {}
        }
        CalendarFallbacks.record(reason)
        return ForeignCalendarSchedule.next(calendar: foundationCalendar, components: pattern.dateComponents, afterMillis: ref)
    }

    /// Foundation's own answer, not re-enacted: for mixes neither the native rules nor
    /// ``FoundationSearch`` follow (``CalendarPattern/isBeyondNativeRules(_:)``; the search
    /// answered `{yearForWeekOfYear 2033, month 9}` in Europe/London a year early). With a
    /// fixed `year`, an answer outside it is no fire (contract). Where Foundation has no
    /// date (within a fixed year it answers the first match and then nil), the real
    /// occurrence is the answer, as the contract's section 5 asks: `{era 1, year 2030,
    /// weekday 2, hour 9}` stays weekly through 2030, as it was before these mixes went to
    /// Foundation (a reviewing helper's finding).
    func foundationAlone(afterMillis ref: Int64) -> Int64? {
        CalendarFallbacks.record(.unmodelledMix)
        if let next = ForeignCalendarSchedule.next(calendar: foundationCalendar, components: pattern.dateComponents, afterMillis: ref),
           !isOutsideFixedYear(next) {
            return next
        }
        // Only a fixed `year` (without a week-year, whose native rules these mixes escape: they
        // answered `{yearForWeekOfYear 2033, month 9}` a year early).
        guard pattern.year != CalendarPattern.unset32, pattern.yearForWeekOfYear == CalendarPattern.unset32 else { return nil }
        var touched = false
        return realOccurrence(after: ref, touched: &touched)
    }

    /// Whether `t` falls outside the pattern's fixed `year` (on the zone's wall clock): such
    /// an answer of Foundation's is no fire (contract).
    func isOutsideFixedYear(_ t: Int64) -> Bool {
        pattern.year != CalendarPattern.unset32 && CivilDate.ymd(days: wallDay(t)).year != Int(pattern.year)
    }

    var foundationCalendar: Calendar {
        var cal = CalendarNames.calendar(fallbackCalendar, firstWeekday: Int(pattern.firstWeekday),
                                         minimumDaysInFirstWeek: Int(pattern.minimumDaysInFirstWeek))
        cal.timeZone = zone.timeZone
        return cal
    }
}
