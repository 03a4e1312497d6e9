import Foundation

/// Next fire dates of calendar triggers.
///
/// Interim implementation through Foundation's `Calendar.nextDate` with Apple's policy;
/// the native engine replaces it.
public enum CalendarEngine {
    /// The next date strictly after `date` that `trigger` fires at, or `nil`.
    public static func nextDate(_ trigger: CalendarTrigger, after date: Date, floatingTimeZone: TimeZone) -> Date? {
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

/// A compiled calendar trigger (interim: answers through Foundation).
public struct CalendarSchedule: Sendable {
    let trigger: CalendarTrigger
    let zone: TimeZone

    public init(_ trigger: CalendarTrigger, floatingTimeZone: TimeZone) {
        self.trigger = trigger
        self.zone = floatingTimeZone
    }

    public var isFloating: Bool { trigger.dateComponents.timeZone == nil }

    public func nextFire(afterMillis ms: Int64) -> Int64? {
        CalendarEngine.nextDate(trigger, after: Timestamp.date(millis: ms), floatingTimeZone: zone).map(Timestamp.millis)
    }

    public func nextDate(after date: Date) -> Date? {
        CalendarEngine.nextDate(trigger, after: date, floatingTimeZone: zone)
    }
}
