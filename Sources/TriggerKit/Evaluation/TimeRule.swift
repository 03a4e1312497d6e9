import Foundation

/// How one time-based trigger produces its fire dates (epoch milliseconds).
@_spi(Engine) public enum TimeRule: Sendable {
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
        case .timeInterval(let t):
            // The evaluator takes unvalidated requests too: an interval it cannot represent
            // gets a rule that never fires rather than a trap or an endless loop.
            let step = t.timeInterval * 1000
            guard step.isFinite, step > 0, t.timeInterval <= RequestLimits.maximumTimeInterval,
                  !t.repeats || t.timeInterval >= RequestLimits.minimumRepeatingInterval else {
                self = .interval(start: addedAt, intervalMillis: .nan, repeats: false)
                return
            }
            // At least a millisecond, the clock's resolution: an interval under half of one
            // (the contract allows any > 0) rounded to a fire at `addedAt` itself, which `next`
            // left out (not strictly after `addedAt`) while `--merged` and `run` fired it.
            self = .interval(start: addedAt, intervalMillis: Swift.max(step, 1), repeats: t.repeats)
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
        case .interval(let start, let step, _): Self.offset(start, 1, step)
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
                guard let only = Self.offset(start, 1, step) else { return nil }
                return only > reference ? only : nil
            }
            // k >= 1 with start + k*step > reference; computed from k, never by adding steps,
            // so fractional intervals do not drift. Doubles keep every intermediate finite
            // (reference - start may not fit an Int64); the two corrections run at most a
            // few times because the estimate is within one step.
            let estimate = ((Double(reference) - Double(start)) / step).rounded(.down) + 1
            guard estimate.isFinite, estimate < 9.0e15 else { return nil }
            var k = Swift.max(1, estimate)
            for _ in 0..<4 {
                guard let f = Self.offset(start, k, step) else { return nil }
                if f > reference { break }
                k += 1
            }
            for _ in 0..<4 where k > 1 {
                guard let f = Self.offset(start, k - 1, step), f > reference else { break }
                k -= 1
            }
            guard let f = Self.offset(start, k, step), f > reference else { return nil }
            return f
        case .calendar(let s, let start, let repeats):
            if !repeats {
                // A one-shot fires at its first match after addedAt, or never.
                guard let only = s.nextFire(afterMillis: start), only > reference else { return nil }
                return only
            }
            // Strictly later, whatever a search answered: callers step from fire to fire.
            guard let next = s.nextFire(afterMillis: reference), next > reference else { return nil }
            return next
        }
    }

    /// Most date steps one coalescing walks for a calendar rule: beyond it the count stops
    /// (and the coalesced fire is dated at the last fire counted); intervals are counted
    /// exactly by arithmetic. Steps answered by Foundation cost more: in the Gregorian
    /// calendar (dates outside a zone's table, before 1583 or past its end, and `era` and
    /// `nanosecond` fields with month-relative ones) 0.03-0.1 ms each, so those steps stop at
    /// ``foundationCoalescingCap`` (native steps after or before them count on); in other
    /// calendars (with a date field: see ``CalendarSchedule/isTimeOfWeek(_:)``) 0.3 ms (a
    /// daily Chinese trigger today) to over 100 ms (a rare Chinese pattern far from today)
    /// each, so they stop at ``otherCalendarCoalescingCap``, and at the first fire more than
    /// ``otherCalendarHorizon`` after the first one counted.
    static let coalescingCap = 100_000
    static let foundationCoalescingCap = 1_000
    static let otherCalendarCoalescingCap = 64
    /// How far past a first fire later fires of another calendar are walked (ms): 20 years,
    /// in a coalescing and in the center's queries
    /// (``FireSchedule/soonest(_:otherCalendarBudget:otherCalendarHorizon:foundationBudget:)``).
    /// Foundation searches such a calendar at about 4 ms per year today, more far in the past:
    /// a Chinese "fifth Monday of the eighth month" took 28-48 ms a fire (7-12 years apart),
    /// about 120 ms from year 2. 64 of them held one catch-up step for 7.6 s (`make fuzz`,
    /// seed 1, case 48445), and 128 one query for 33 s (`OtherCalendarBoundsTests` without
    /// this bound); within 20 years, 0.2 s.
    static let otherCalendarHorizon: Int64 = 20 * 366 * 86_400_000

    /// Whether the rule's dates come from another calendar than the Gregorian (Chinese,
    /// Hebrew, Islamic...), each answered by Foundation at up to 100 ms or more.
    var isOtherCalendar: Bool {
        if case .calendar(let s, _, _) = self { s.foreign != nil } else { false }
    }

    /// Whether the fire after `date` comes from Foundation
    /// (``CalendarSchedule/isAnsweredByFoundation(afterMillis:)``), in any calendar.
    func isAnsweredByFoundation(after date: Int64) -> Bool {
        if case .calendar(let s, _, _) = self { s.isAnsweredByFoundation(afterMillis: date) } else { false }
    }

    /// The fires from `first` (a fire of this rule) up to but excluding `limit`, summarised:
    /// the latest of them, how many there are, and the rule's next fire at or after `limit`.
    /// A count stopped at its cap skips the fires after the last one counted up to
    /// `resumeAt` (when that is later) or `limit`: the next fire is the first at or after it
    /// (the catch-up window's start: fires there are delivered as the policy says, not lost
    /// with the old ones; a helper found `coalesce` dropped a capped trigger's last week).
    /// Stopped inside the window by the native cap, the next fire is the one after the last
    /// counted; by Foundation's bound, the first at or after `limit`.
    ///
    /// - Complexity: O(1) for intervals; at most ``coalescingCap`` steps for calendars
    ///   (``foundationCoalescingCap`` and ``otherCalendarCoalescingCap`` where Foundation answers).
    func coalesce(from first: Int64, before limit: Int64, resumeAt: Int64 = .min) -> (last: Int64, count: Int, next: Int64?) {
        guard repeats else { return (first, 1, nil) }
        if case .interval(let start, let step, _) = self {
            let k1 = ((Double(first) - Double(start)) / step).rounded()
            var kLast = ((Double(limit) - 1 - Double(start)) / step).rounded(.down)
            guard k1.isFinite, kLast.isFinite else { return (first, 1, fire(after: first)) }
            for _ in 0..<4 {
                guard kLast > k1, let f = Self.offset(start, kLast, step), f >= limit else { break }
                kLast -= 1
            }
            for _ in 0..<4 {
                guard let f = Self.offset(start, kLast + 1, step), f < limit else { break }
                kLast += 1
            }
            kLast = Swift.max(kLast, k1)
            let last = Self.offset(start, kLast, step) ?? first
            return (last, Int(Swift.min(kLast - k1 + 1, Double(Int.max / 2))), Self.offset(start, kLast + 1, step))
        }
        var last = first
        var count = 1
        var cap = Self.coalescingCap
        var horizon = Int64.max
        // Gregorian steps Foundation answers (outside the zone's table, before 1583 or past
        // its end, or every step of a pattern it alone answers) count against its bound
        // wherever the walk is; native steps count only against ``coalescingCap``.
        var schedule: CalendarSchedule?
        var foundationSteps = 0
        if case .calendar(let s, _, _) = self {
            if s.foreign != nil {
                cap = Self.otherCalendarCoalescingCap
                horizon = Self.otherCalendarHorizon
            } else if s.patternIsAnsweredByFoundation {
                cap = Self.foundationCoalescingCap
            } else {
                schedule = s
            }
        }
        // (Supported dates are within 4e14 ms of each other: the difference cannot overflow.)
        while count < cap, last - first <= horizon {
            if let schedule, schedule.isOutsideTables(afterMillis: last) {
                // As many fires as a walk of Foundation's steps alone counts (the first is given).
                if foundationSteps == Self.foundationCoalescingCap - 1 { break }
                foundationSteps += 1
            }
            guard let n = fire(after: last) else { return (last, count, nil) }
            if n >= limit { return (last, count, n) }
            last = n
            count += 1
        }
        // At the cap or the horizon: jump to the first fire at or after the limit, or at or
        // after the window's start when the count stopped before it. A count of native steps
        // that stopped inside the window goes on from the fire after its last (the reviewer
        // found a per-minute trigger's last 800 fires lost when the cap fell there); one that
        // Foundation's bound stopped does not: its steps cost up to milliseconds, and a
        // per-second Chinese trigger's week of 604,800 took 12 s in one step (`make fuzz`).
        let native = cap == Self.coalescingCap && foundationSteps < Self.foundationCoalescingCap - 1
        let resume: Int64
        if resumeAt == .min || resumeAt >= limit {
            resume = limit
        } else if resumeAt > last {
            resume = resumeAt
        } else {
            resume = native ? last + 1 : limit
        }
        return (last, count, nextFire(strictlyAfter: resume - 1))
    }

    /// `start + k * step` milliseconds, or nil when it is not a supported instant (NaN,
    /// overflow, beyond year 9999). Every interval date goes through it: no trap on any input.
    static func offset(_ start: Int64, _ k: Double, _ step: Double) -> Int64? {
        let v = (k * step).rounded()
        guard v.isFinite, abs(v) < 9.0e18 else { return nil }
        let (r, overflow) = start.addingReportingOverflow(Int64(v))
        guard !overflow, RequestLimits.isSupported(millis: r) else { return nil }
        return r
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
