import Foundation

// Which component mixes the native rules leave to Foundation itself.

extension CalendarPattern {
    /// Whether every fire is Foundation's to find: mixes whose matches the rules of
    /// ``init(_:firstWeekday:minimumDaysInFirstWeek:)`` do not describe (Foundation's search
    /// anchors them otherwise), found by a differential test
    /// against Foundation (20,000 random component sets, 150 disagreements in six classes,
    /// none of them the contract's exceptions):
    /// - `era` (its rule was not applied: `{era 1}` fired every midnight, Foundation every
    ///   January 1st);
    /// - `dayOfYear` (`{dayOfYear 100, minute 5}` fired every hour of that day, Foundation once
    ///   a year at 00:05);
    /// - `year` without `month` beside a day or a time and no week field (`{year 2030, hour 1}`
    ///   from March 2030 was refused as never firing; Foundation answers the next day at 01:00);
    /// - `yearForWeekOfYear` without `weekOfYear` (`{year 2031, yearForWeekOfYear 2031}` was
    ///   refused; Foundation answers 2031-01-01);
    /// - `weekOfYear` with `month` and no day field (`{month 10, weekOfYear 40}` skipped
    ///   2037-2044; 2037-10-01 is in week 40);
    /// - `nanosecond` without a time field beside only weekday- or week-type date fields
    ///   (`{weekday 6, nanosecond 0}` fired every second of Fridays, Foundation weekly).
    /// They are rare (none in the calendar corpus); Foundation answered the shrunk cases of each
    /// class in 0.005-0.6 ms a fire.
    static func isBeyondNativeRules(_ c: DateComponents) -> Bool {
        if c.era != nil || c.dayOfYear != nil { return true }
        let weekFields = c.weekOfYear != nil || c.yearForWeekOfYear != nil
        let weekdayFields = c.weekday != nil || c.weekdayOrdinal != nil || c.weekOfMonth != nil
        let time = c.hour != nil || c.minute != nil || c.second != nil || c.nanosecond != nil
        if c.year != nil, c.month == nil, !weekFields, !weekdayFields, c.day != nil || time { return true }
        if c.yearForWeekOfYear != nil, c.weekOfYear == nil { return true }
        if c.weekOfYear != nil, c.month != nil, c.day == nil, !weekdayFields { return true }
        if c.nanosecond != nil, c.hour == nil, c.minute == nil, c.second == nil, c.year == nil, c.month == nil, c.day == nil,
           weekFields || weekdayFields { return true }
        return false
    }

    /// See ``isBeyondNativeRules(_:)``.
    var isBeyondNativeRules: Bool { implicit & 32 != 0 }
}
