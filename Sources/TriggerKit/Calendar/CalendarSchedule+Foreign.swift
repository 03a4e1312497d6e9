import Foundation

/// A trigger in a calendar the native engine does not cover, answered by Foundation.
final class ForeignCalendarSchedule: Sendable {
    let calendar: Calendar
    let components: DateComponents

    /// Why the components never match, described; `nil` when Foundation is asked. Found once,
    /// from the calendar's ranges (asked of Foundation once per calendar: fourteen queries,
    /// more than many a date search).
    let neverMatches: String?
    /// What the calendar's ranges allow (``ForeignCalendarBounds``); nil if Foundation did not
    /// report them.
    let bounds: ForeignCalendarBounds?

    init(calendar: Calendar, components: DateComponents) {
        self.calendar = calendar
        self.components = components
        bounds = ForeignCalendarBounds.shared(calendar)
        let widest = bounds?.widest ?? ForeignCalendarBounds.widestRanges(calendar)
        neverMatches = Self.neverMatches(calendar: calendar, components: components, widest: widest)
            ?? bounds?.neverMatches(components)
    }

    /// Components Foundation loops on for ever, or searches at length, and that never match.
    private static func neverMatches(calendar: Calendar, components: DateComponents,
                                     widest: [Calendar.Component: Range<Int>]) -> String? {
        if let o = components.weekdayOrdinal, o >= 6 { return "weekdayOrdinal \(o) never occurs in a month" }
        if components.quarter != nil { return "quarter never matches" }
        if components.weekOfMonth == 0 { return CalendarPattern.Impossibility.weekZeroNotSearched.description }
        // A value outside the calendar's widest range for its field never matches; Foundation
        // would search for it at length (a Chinese era 2500 took seconds).
        return outOfRangeField(calendar: calendar, components: components, widest: widest)
    }

    private static func outOfRangeField(calendar: Calendar, components: DateComponents,
                                        widest: [Calendar.Component: Range<Int>]) -> String? {
        for (component, name) in ForeignCalendarBounds.fields {
            guard let v = components.value(for: component), let range = widest[component] else { continue }
            // Years are open-ended in every calendar; only their sign is checked.
            if component == .year || component == .yearForWeekOfYear { if v < range.lowerBound { return "\(name) \(v) is outside \(calendar.identifier)'s range" } ; continue }
            if !range.contains(v) { return "\(name) \(v) is outside \(range.lowerBound)...\(range.upperBound - 1) in the \(calendar.identifier) calendar" }
        }
        return nil
    }

    func next(afterMillis ref: Int64) -> Int64? {
        guard neverMatches == nil else { return nil }
        if let bounds, RequestLimits.isSupported(millis: ref),
           bounds.isPast(components, calendar: calendar, ref: Timestamp.date(millis: ref)) { return nil }
        return Self.next(calendar: calendar, components: components, afterMillis: ref)
    }

    static func next(calendar: Calendar, components: DateComponents, afterMillis ref: Int64) -> Int64? {
        guard RequestLimits.isSupported(millis: ref) else { return nil }
        var after = Timestamp.date(millis: ref)
        // A match less than half a millisecond after `ref` (a `nanosecond` field: 02:00.000000236)
        // is `ref` itself in milliseconds: not a later fire. Returned, it made every caller
        // stepping from fire to fire (catch-up, queries) loop on one date for ever. The match
        // after it is the next fire (a nanosecond field matches once per second at most).
        // Foundation can also answer a match at or *before* `after`: a `nanosecond` a Double
        // cannot hold exactly (1 ns, 0.123456789 s today) is a mismatch its search ignores,
        // and so is its check that the match lies after the start, so from 01:47 it answers the
        // same hour's 01:15 for {hour 1, minute 15, nanosecond 1}. Not a fire either: the
        // search goes on from that match (Foundation skips a match equal to its start).
        for _ in 0..<4 {
            guard let d = calendar.nextDate(after: after, matching: components, matchingPolicy: .nextTimePreservingSmallerComponents,
                                            repeatedTimePolicy: .first, direction: .forward),
                  // Nothing beyond the supported range (year 9999) is a fire.
                  let m = RequestLimits.millis(d) else { return nil }
            if m > ref { return m }
            after = d
        }
        return nil
    }
}
