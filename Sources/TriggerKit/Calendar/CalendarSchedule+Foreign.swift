import Foundation
import Synchronization

/// A trigger in a calendar the native engine does not cover, answered by Foundation.
///
/// Foundation's answers for these take from about 0.3 ms (a daily Chinese trigger) to over
/// 100 ms each (a rare Chinese pattern, which it searches for years). The fires
/// already found are kept as a chain (``ForeignFireChain``), so a center that lists its next
/// fires and then catches up through the same fires asks Foundation for each once.
final class ForeignCalendarSchedule: Sendable {
    let calendar: Calendar
    let components: DateComponents
    /// Fires found so far, each the answer for the one before (see ``next(afterMillis:)``).
    private let chain = Mutex(ForeignFireChain())
    /// Foundation searches made (each of ``next(calendar:components:afterMillis:)``'s calls);
    /// for tests.
    private let searches = Atomic<Int>(0)
    var foundationSearches: Int { searches.load(ordering: .relaxed) }

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

    /// The next fire strictly after `ref` (epoch ms), as Foundation answers it.
    ///
    /// The answer for a fire already in the chain is the one Foundation gave before (its
    /// answers depend only on the calendar, the components and `ref`, which are the same).
    ///
    /// - Complexity: O(log c) for a `ref` in the chain (c <= ``ForeignFireChain/capacity``),
    ///   else one Foundation search.
    func next(afterMillis ref: Int64) -> Int64? {
        guard neverMatches == nil else { return nil }
        if case .known(let answer)? = chain.withLock({ $0.answer(after: ref) }) { return answer }
        let answer = search(afterMillis: ref)
        chain.withLock { $0.record(answer, after: ref) }
        return answer
    }

    private func search(afterMillis ref: Int64) -> Int64? {
        searches.add(1, ordering: .relaxed)
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
                                            repeatedTimePolicy: .first, direction: .forward) ?? dayWalk(calendar, components, after: after),
                  // Nothing beyond the supported range (year 9999) is a fire.
                  let m = components.nanosecond.map({ millis(of: d, nanosecond: $0) }) ?? RequestLimits.millis(d) else { return nil }
            if m > ref {
                // A fixed year's day its month lacks moves to the next month's 1st; Foundation's
                // later answers roll into the years after (Hebrew 5787-04-30 fired again in
                // 5788, ROC 115-02-29 every year; found by a helper). A match outside the fixed
                // year (and era) is no fire, as in the Gregorian calendar.
                // (Read at the fire's millisecond: a nanosecond near the year's end makes `d`
                // itself round into the next year.)
                if components.year != nil || components.era != nil {
                    let at = Timestamp.date(millis: m)
                    if let year = components.year, calendar.component(.year, from: at) != year { return nil }
                    if let era = components.era, calendar.component(.era, from: at) != era { return nil }
                }
                return m
            }
            after = d
        }
        return nil
    }

    /// Where Foundation answers nil although a day matches (its `islamic` calendar east of UTC
    /// answers nil from every start after some date: a monthly `{day 1, hour 9}` in Riyadh
    /// stopped in 2029, a yearly 1 Ramadan in 2030; found by a helper), the contract answers the
    /// occurrence: the first day within ``dayWalkDays`` of `after` whose date fields are those
    /// Foundation reads for it, at the set time of day (unset smaller fields at their minimum;
    /// a time in a gap as `date(from:)` moves it, a repeated one at its first occurrence).
    /// Only in the `islamic` calendar (where the helper found it; elsewhere Foundation's nil is
    /// kept, as the differential tests against it expect), for components that fire at most
    /// once a day (no time field, or an `hour` with or without `minute` and `second`) and
    /// without `nanosecond`; nil otherwise, and when no day in the walk matches.
    /// - Complexity: O(``dayWalkDays``) Foundation date reads (about 5 ms), only after a nil.
    static func dayWalk(_ calendar: Calendar, _ c: DateComponents, after: Date) -> Date? {
        guard calendar.identifier == .islamic, c.nanosecond == nil, c.hour != nil || (c.minute == nil && c.second == nil),
              c.hour != nil || c.era != nil || c.year != nil || c.month != nil || c.day != nil || c.weekday != nil
                || c.weekdayOrdinal != nil || c.weekOfMonth != nil || c.weekOfYear != nil || c.yearForWeekOfYear != nil
                || c.dayOfYear != nil else { return nil }
        let fields: Set<Calendar.Component> = [.era, .year, .month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .weekOfYear,
                                               .yearForWeekOfYear, .dayOfYear]
        var day = calendar.startOfDay(for: after)
        for _ in 0..<dayWalkDays {
            // Read at noon: a day's fields do not depend on a change of offset at its start.
            guard let noon = calendar.date(byAdding: .hour, value: 12, to: day) else { return nil }
            let seen = calendar.dateComponents(fields, from: noon)
            if matches(c, seen) {
                var at = calendar.dateComponents([.era, .year, .month, .day], from: noon)
                at.hour = c.hour ?? 0
                at.minute = c.minute ?? 0
                at.second = c.second ?? 0
                if let d = calendar.date(from: at), d > after { return d }
            }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day), next > day else { return nil }
            day = next
        }
        return nil
    }

    /// Days a walk looks at: two years of the longest calendars' (a yearly trigger's next day).
    static let dayWalkDays = 800

    /// Whether every date field `c` sets is the one Foundation read for a day.
    private static func matches(_ c: DateComponents, _ seen: DateComponents) -> Bool {
        func same(_ a: Int?, _ b: Int?) -> Bool { a == nil || a == b }
        return same(c.era, seen.era) && same(c.year, seen.year) && same(c.month, seen.month) && same(c.day, seen.day)
            && same(c.weekday, seen.weekday) && same(c.weekdayOrdinal, seen.weekdayOrdinal) && same(c.weekOfMonth, seen.weekOfMonth)
            && same(c.weekOfYear, seen.weekOfYear) && same(c.yearForWeekOfYear, seen.yearForWeekOfYear) && same(c.dayOfYear, seen.dayOfYear)
    }

    /// The millisecond of Foundation's match `d` for a `nanosecond` field: the one the
    /// nanosecond falls in, within the match's second (the native rule), nil beyond the
    /// supported range. Not `d` read to the millisecond: a `Date` holds today's instants to
    /// about 0.2 µs, so 13:30:00.000999999 read as 13:30:00.001 (a second fire a millisecond
    /// after the native chain's 13:30:00.000) and 2030-12-31 23:59:59.999999999 as 2031-01-01
    /// 00:00:00, a date outside the trigger's fixed year. A match is a whole second (zone
    /// offsets are whole seconds) plus the nanosecond, so that second is `d` less the
    /// nanosecond, rounded: the `Date`'s error is far below half a second.
    static func millis(of d: Date, nanosecond: Int) -> Int64? {
        let second = (d.timeIntervalSince1970 - Double(nanosecond) / 1e9).rounded()
        guard second.isFinite, abs(second) < 1e13 else { return nil }
        let m = Int64(second) * 1000 + Int64(nanosecond / 1_000_000)
        return RequestLimits.isSupported(millis: m) ? m : nil
    }
}

/// A trigger's fires as Foundation answered them, in order: each fire's next fire is the one
/// after it, and ``ended`` says Foundation answered "none" after the last. Its fires are
/// the dates callers step from (a center's listing of its next fires, a catch-up's count), so
/// the same chain answers them all again.
///
/// Bounded: at most ``capacity`` fires (8 bytes each); past it the older half is dropped. An
/// answer for a date not in the chain starts a new chain at that answer, unless the answer
/// is already in the chain.
struct ForeignFireChain: Sendable {
    /// Fires kept at most: two of a center's longest walks (``TimeRule/otherCalendarCoalescingCap``
    /// and ``FireSchedule/otherCalendarRepeatBudget`` later fires).
    static let capacity = 256
    private(set) var fires: [Int64] = []
    /// Foundation answered no fire after the last one.
    private(set) var ended = false

    enum Answer: Equatable { case known(Int64?) }

    /// The remembered answer for `ref`, nil if there is none.
    func answer(after ref: Int64) -> Answer? {
        guard let i = index(of: ref) else { return nil }
        if i + 1 < fires.count { return .known(fires[i + 1]) }
        return ended ? .known(nil) : nil
    }

    /// Remembers Foundation's `answer` for `ref`.
    mutating func record(_ answer: Int64?, after ref: Int64) {
        if let last = fires.last, last == ref, !ended {
            // The chain goes on (only a later date: Foundation's answer is after `ref`).
            if let answer {
                guard answer > ref else { return }
                if fires.count == Self.capacity { fires.removeFirst(Self.capacity / 2) }
                fires.append(answer)
            } else {
                ended = true
            }
            return
        }
        // Not from the chain's end: a new chain at the answer, unless the chain holds it.
        guard let answer, index(of: answer) == nil else { return }
        fires = [answer]
        ended = false
    }

    private func index(of t: Int64) -> Int? {
        var lo = 0, hi = fires.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if fires[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo < fires.count && fires[lo] == t ? lo : nil
    }
}
