import Foundation

/// Next fire dates of calendar triggers.
///
/// A thin convenience over ``CalendarSchedule``; a caller asking repeatedly about the same
/// trigger should compile it once into a schedule instead.
@_spi(Engine) public enum CalendarEngine {
    /// The next date strictly after `date` that `trigger` fires at, or `nil`.
    /// Complexity: compiling the trigger (O(1) with the zone's table cached) plus
    /// ``CalendarSchedule/nextFire(afterMillis:)``.
    public static func nextDate(_ trigger: CalendarTrigger, after date: Date, floatingTimeZone: TimeZone) -> Date? {
        CalendarSchedule(trigger, floatingTimeZone: floatingTimeZone).nextDate(after: date)
    }

    /// Foundation's own answer with Apple's policy (`nextTimePreservingSmallerComponents`,
    /// `.first`, forward; a result not later than `date` becomes `nil`), for comparisons and
    /// calendars the native engine does not cover. May search for 100 ms or, for
    /// `weekdayOrdinal` >= 6, never return: check ``CalendarSchedule/neverFires`` first.
    public static func foundationNextDate(_ trigger: CalendarTrigger, after date: Date, floatingTimeZone: TimeZone) -> Date? {
        var comps = trigger.dateComponents
        var cal = comps.calendar ?? CalendarNames.calendar(.gregorian)
        cal.timeZone = comps.timeZone ?? floatingTimeZone
        comps.calendar = nil
        comps.timeZone = nil
        guard let d = cal.nextDate(after: date, matching: comps, matchingPolicy: .nextTimePreservingSmallerComponents,
                                   repeatedTimePolicy: .first, direction: .forward), d > date else { return nil }
        return d
    }
}
