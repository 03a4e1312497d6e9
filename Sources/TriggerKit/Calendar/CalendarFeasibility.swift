import Foundation

/// Recognises calendar components that can never match, without searching.
///
/// Foundation's `nextDate` answers such components by an exhaustive search (5-180 ms) or,
/// for `weekdayOrdinal` >= 6, never returns; TriggerKit refuses them up front with
/// `notificationInvalidNoDate`.
@_spi(Engine) public enum CalendarFeasibility {
    /// Why `trigger` can never fire after `reference`, or `nil` when it can.
    ///
    /// Static impossibilities (out-of-range values, `weekdayOrdinal` >= 6, week 53 of a
    /// week-year without one, ...) are found without searching, in microseconds; otherwise
    /// the native engine looks for the next date (bounded: no hang).
    public static func noDateReason(_ trigger: CalendarTrigger, after reference: Date, floatingTimeZone: TimeZone) -> String? {
        let c = trigger.dateComponents
        let schedule = CalendarSchedule(trigger, floatingTimeZone: floatingTimeZone)
        if let why = schedule.neverFiresReason {
            return "\(why): the trigger can never fire"
        }
        if let y = c.year, c.era == nil || c.era == 1, c.calendar == nil || c.calendar?.identifier == .gregorian || c.calendar?.identifier == .iso8601 {
            var cal = CalendarNames.calendar(.gregorian)
            cal.timeZone = c.timeZone ?? floatingTimeZone
            let refYear = cal.component(.year, from: reference)
            if y < refYear {
                return "year \(y) is in the past (before \(Timestamp.string(millis: Timestamp.millis(reference)))): the trigger can never fire"
            }
        }
        // Existence is all that matters here: the native answer settles it at native speed;
        // only when it finds nothing does Foundation's exact answer decide.
        let ref = Timestamp.millis(reference)
        // (Another calendar's answer is Foundation's either way: asked once.)
        if schedule.nextFire(afterMillis: ref, consultingFoundation: false) != nil { return nil }
        if schedule.foreign == nil, schedule.nextFire(afterMillis: ref) != nil { return nil }
        return "no date after \(Timestamp.string(millis: Timestamp.millis(reference))) matches \(describe(c)): the trigger can never fire"
    }

    /// The set fields of `c`, as "name value" pairs.
    public static func describe(_ c: DateComponents) -> String {
        DateMatchingField.allCases.compactMap { f in f.value(in: c).map { "\(f.rawValue) \($0)" } }.joined(separator: ", ")
    }
}
