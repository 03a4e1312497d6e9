import Foundation

/// A trigger in a calendar the native engine does not cover, answered by Foundation.
final class ForeignCalendarSchedule: Sendable {
    let calendar: Calendar
    let components: DateComponents

    init(calendar: Calendar, components: DateComponents) {
        self.calendar = calendar
        self.components = components
    }

    /// The first set field whose value lies outside `calendar.maximumRange(of:)`, described.
    var outOfRangeField: String? {
        let fields: [(Calendar.Component, Int?, String)] = [
            (.era, components.era, "era"), (.year, components.year, "year"), (.month, components.month, "month"),
            (.day, components.day, "day"), (.hour, components.hour, "hour"), (.minute, components.minute, "minute"),
            (.second, components.second, "second"), (.weekday, components.weekday, "weekday"),
            (.weekdayOrdinal, components.weekdayOrdinal, "weekdayOrdinal"), (.weekOfMonth, components.weekOfMonth, "weekOfMonth"),
            (.weekOfYear, components.weekOfYear, "weekOfYear"), (.yearForWeekOfYear, components.yearForWeekOfYear, "yearForWeekOfYear"),
            (.nanosecond, components.nanosecond, "nanosecond"), (.dayOfYear, components.dayOfYear, "dayOfYear"),
        ]
        for (component, value, name) in fields {
            guard let v = value, let range = calendar.maximumRange(of: component) else { continue }
            // Years are open-ended in every calendar; only their sign is checked.
            if component == .year || component == .yearForWeekOfYear { if v < range.lowerBound { return "\(name) \(v) is outside \(calendar.identifier)'s range" } ; continue }
            if !range.contains(v) { return "\(name) \(v) is outside \(range.lowerBound)...\(range.upperBound - 1) in the \(calendar.identifier) calendar" }
        }
        return nil
    }

    func next(afterMillis ref: Int64) -> Int64? {
        // Foundation loops forever, or searches at length, on these.
        if let o = components.weekdayOrdinal, o >= 6 { return nil }
        if components.quarter != nil { return nil }
        if outOfRangeField != nil { return nil }
        return Self.next(calendar: calendar, components: components, afterMillis: ref)
    }

    static func next(calendar: Calendar, components: DateComponents, afterMillis ref: Int64) -> Int64? {
        guard RequestLimits.isSupported(millis: ref) else { return nil }
        let date = Timestamp.date(millis: ref)
        guard let d = calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTimePreservingSmallerComponents,
                                        repeatedTimePolicy: .first, direction: .forward), d > date else { return nil }
        // Nothing beyond the supported range (year 9999) is a fire.
        return RequestLimits.millis(d)
    }
}
