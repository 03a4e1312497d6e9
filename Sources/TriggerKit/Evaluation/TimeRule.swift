import Foundation

/// How one time-based trigger produces its fire dates (epoch milliseconds).
public enum TimeRule: Sendable {
    /// Fires once, at the moment its request was added (a request without trigger).
    case immediate(at: Int64)
    /// Fires at `start + k * intervalMillis` for k >= 1 (only k = 1 unless repeating).
    case interval(start: Int64, intervalMillis: Double, repeats: Bool)
    /// Fires on the dates of a calendar schedule, searching from `start` (addedAt).
    case calendar(CalendarSchedule, start: Int64, repeats: Bool)

    /// The rule of a request's trigger; `nil` for location triggers.
    public init?(_ trigger: NotificationTrigger, addedAt: Int64, floatingTimeZone: TimeZone) {
        switch trigger {
        case .immediate: self = .immediate(at: addedAt)
        case .timeInterval(let t): self = .interval(start: addedAt, intervalMillis: t.timeInterval * 1000, repeats: t.repeats)
        case .calendar(let t): self = .calendar(CalendarSchedule(t, floatingTimeZone: floatingTimeZone), start: addedAt, repeats: t.repeats)
        case .location: return nil
        }
    }

    /// Whether the rule can fire more than once.
    public var repeats: Bool {
        switch self {
        case .immediate: false
        case .interval(_, _, let r): r
        case .calendar(_, _, let r): r
        }
    }

    /// The first fire of the rule. O(1) for intervals, one calendar search otherwise.
    public var firstFire: Int64? {
        switch self {
        case .immediate(let at): at
        case .interval(let start, let step, _): start + Int64(step.rounded())
        case .calendar(let s, let start, _): s.nextFire(afterMillis: start)
        }
    }

    /// The fire after `previous` (itself a fire of this rule), or `nil` when it does not repeat.
    public func fire(after previous: Int64) -> Int64? {
        guard repeats else { return nil }
        return nextFire(strictlyAfter: previous)
    }

    /// The first fire strictly later than `reference` (a one-shot rule has only its first).
    public func nextFire(strictlyAfter reference: Int64) -> Int64? {
        switch self {
        case .immediate(let at):
            return at > reference ? at : nil
        case .interval(let start, let step, let repeats):
            if !repeats {
                let only = start + Int64(step.rounded())
                return only > reference ? only : nil
            }
            // k >= 1 with start + k*step > reference; computed from k, never by adding steps,
            // so fractional intervals do not drift.
            var k = Swift.max(1, Int64(((Double(reference - start)) / step).rounded(.down)) + 1)
            while start + Int64((Double(k) * step).rounded()) <= reference { k += 1 }
            while k > 1, start + Int64((Double(k - 1) * step).rounded()) > reference { k -= 1 }
            return start + Int64((Double(k) * step).rounded())
        case .calendar(let s, let start, let repeats):
            if !repeats {
                // A one-shot fires at its first match after addedAt, or never.
                guard let only = s.nextFire(afterMillis: start), only > reference else { return nil }
                return only
            }
            return s.nextFire(afterMillis: reference)
        }
    }

    /// Up to `count` successive fires strictly after `reference`.
    public func fires(after reference: Int64, count: Int) -> [Int64] {
        var out: [Int64] = []
        guard count > 0, var d = nextFire(strictlyAfter: reference) else { return out }
        out.append(d)
        while out.count < count, let n = fire(after: d) {
            out.append(n)
            d = n
        }
        return out
    }

    /// A copy whose floating calendar follows `zone` (`trigger` is the rule's own trigger).
    func replanned(floatingTimeZone zone: TimeZone, trigger: NotificationTrigger) -> TimeRule {
        guard case .calendar(let s, let start, let repeats) = self, s.isFloating, case .calendar(let t) = trigger else { return self }
        return .calendar(CalendarSchedule(t, floatingTimeZone: zone), start: start, repeats: repeats)
    }
}
