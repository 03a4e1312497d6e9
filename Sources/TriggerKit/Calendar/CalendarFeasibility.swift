import Foundation

/// Recognises calendar components that can never match, without searching.
///
/// Foundation's `nextDate` answers such components by an exhaustive search (5-180 ms) or,
/// for `weekdayOrdinal` >= 6, never returns; TriggerKit refuses them up front with
/// `notificationInvalidNoDate`.
public enum CalendarFeasibility {
    /// Valid ranges of each field in the Gregorian and ISO 8601 calendars; a value outside
    /// its range never matches (Foundation returns nil for these at once, or hangs).
    static let gregorianRanges: [(DateMatchingField, ClosedRange<Int>)] = [
        (.era, 0...1), (.month, 1...12), (.day, 1...31), (.hour, 0...23), (.minute, 0...59),
        (.second, 0...59), (.nanosecond, 0...999_999_999), (.weekday, 1...7), (.weekdayOrdinal, 1...5),
        (.weekOfMonth, 0...6), (.weekOfYear, 1...53), (.dayOfYear, 1...366), (.year, 1...Int(Int32.max)),
        (.yearForWeekOfYear, 1...Int(Int32.max)),
    ]

    /// Why `trigger` can never fire after `reference`, or `nil` when it can.
    public static func noDateReason(_ trigger: CalendarTrigger, after reference: Date, floatingTimeZone: TimeZone) -> String? {
        let c = trigger.dateComponents
        let id = c.calendar?.identifier ?? .gregorian
        guard id == .gregorian || id == .iso8601 else { return nil }
        for (field, range) in gregorianRanges {
            if let v = field.value(in: c), !range.contains(v) {
                return "\(field.rawValue) \(v) is outside \(range.lowerBound)...\(range.upperBound): the trigger can never fire"
            }
        }
        if let next = CalendarEngine.nextDate(trigger, after: reference, floatingTimeZone: floatingTimeZone) {
            _ = next
            return nil
        }
        return "no date after \(Timestamp.string(millis: Timestamp.millis(reference))) matches \(describe(c)): the trigger can never fire"
    }

    static func describe(_ c: DateComponents) -> String {
        DateMatchingField.allCases.compactMap { f in f.value(in: c).map { "\(f.rawValue) \($0)" } }.joined(separator: ", ")
    }
}
