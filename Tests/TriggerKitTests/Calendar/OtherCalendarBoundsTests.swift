import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Triggers in other calendars than the Gregorian are answered by Foundation, at 0.3 ms (a
/// daily Chinese trigger today) to over 100 ms (a rare Chinese pattern far from today) per
/// fire. Found by `make fuzz` (10 minutes): `upcomingFires(limit:)` with a huge limit and a
/// catch-up from year 1 ran for minutes. Each operation now computes a bounded number of
/// them.
@Suite("Triggers Foundation answers: bounds")
struct OtherCalendarBoundsTests {
    static let t0: Int64 = 1_795_770_000_000  // 2026-11-27T09:00:00Z
    static let utc = TimeZone(identifier: "UTC")!

    /// Daily at 22:17:00.000 in the Chinese calendar. The `nanosecond` keeps it Foundation's to
    /// answer (0.3 ms a fire): with times of day alone it would be computed natively
    /// (``CalendarSchedule/isTimeOfWeek(_:)``).
    static func chineseDaily(_ id: String = "cn", addedAt: Int64 = t0) -> NotificationRequest {
        var c = DateComponents(calendar: Calendar(identifier: .chinese), timeZone: utc, hour: 22, minute: 17, nanosecond: 0)
        c.calendar?.timeZone = utc
        return NotificationRequest(identifier: id, content: NotificationContent(title: "x"),
                                   trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)),
                                   addedAt: Timestamp.date(millis: addedAt))
    }

    static func gregorianYearly(_ id: String) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: "x"),
                            trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: utc, month: 3, day: 1), repeats: true)),
                            addedAt: Timestamp.date(millis: t0))
    }

    static func gregorianDaily(_ id: String, hour: Int) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: "x"),
                            trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: utc, hour: hour), repeats: true)),
                            addedAt: Timestamp.date(millis: t0))
    }

    @Test func aBoundedQueryIsTheTrueBeginningOfTheSequence() {
        let requests = [Self.chineseDaily(), Self.gregorianDaily("g", hour: 10)]
        let schedule = FireSchedule(requests: requests, defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let full = schedule.soonest(600)
        let (bounded, cut) = schedule.soonest(600, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget)
        #expect(cut)
        #expect(full.count == 600)
        // The Chinese trigger's first fire (queued) and its 128 computed repeats, and the
        // Gregorian fires before the last of them: a prefix of the whole answer.
        #expect(bounded.count < full.count)
        #expect(bounded == Array(full.prefix(bounded.count)))
        let chinese = bounded.filter { requests[Int(schedule.entries[Int($0.slot)].request)].identifier == "cn" }
        #expect(chinese.count == FireSchedule.otherCalendarRepeatBudget + 1)
        #expect(bounded.last == chinese.last)
        // Without other calendars nothing is cut.
        let native = FireSchedule(requests: [Self.gregorianDaily("g", hour: 10)], defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let (all, nativeCut) = native.soonest(600, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget)
        #expect(!nativeCut && all.count == 600)
    }

    /// Unbounded, 100,000 fires at milliseconds each, further into the future the slower:
    /// minutes.
    @Test(.timeLimit(.minutes(1)))
    func theCentersUpcomingFiresAreBounded() async throws {
        let center = try TriggerCenter(clock: ManualClock(Timestamp.date(millis: Self.t0)))
        try await center.add(Self.chineseDaily())
        let fires = await center.upcomingFires(limit: .max)
        #expect(fires.count == FireSchedule.otherCalendarRepeatBudget + 1)
        #expect(zip(fires, fires.dropFirst()).allSatisfy { $0.date < $1.date })
        await center.shutdown()
    }

    /// A rare pattern (the fifth Monday of the Chinese month 8, 7-12 years apart) costs
    /// Foundation 28-48 ms a fire: 128 of them took seconds per query (`make fuzz`, seed 1,
    /// case 48445). Its later fires are computed within 20 years of the first one listed.
    @Test func rareFiresOfAnotherCalendarStopAtTheHorizon() throws {
        var c = DateComponents(calendar: Calendar(identifier: .chinese), timeZone: Self.utc, month: 8, weekday: 2, weekdayOrdinal: 5)
        c.calendar?.timeZone = Self.utc
        let rare = NotificationRequest(identifier: "rare", content: NotificationContent(title: "x"),
                                       trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)),
                                       addedAt: Timestamp.date(millis: Self.t0))
        let requests = [rare, Self.gregorianYearly("g")]
        let schedule = FireSchedule(requests: requests, defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let (fires, cut) = schedule.soonest(1_000, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget,
                                            otherCalendarHorizon: TimeRule.otherCalendarHorizon)
        #expect(cut)
        let rareFires = fires.filter { requests[Int(schedule.entries[Int($0.slot)].request)].identifier == "rare" }
        // A fire every 7-12 years: a handful within the horizon, and the one past it that
        // ended the list.
        #expect(rareFires.count >= 2 && rareFires.count <= 5, "\(rareFires.count)")
        let first = try #require(fires.first).date
        #expect(rareFires.dropLast().allSatisfy { $0.date - first <= TimeRule.otherCalendarHorizon })
        #expect(fires.last == rareFires.last)
        // The true beginning of the sequence: the same fires as without the horizon.
        let (unbounded, _) = schedule.soonest(fires.count, otherCalendarBudget: .max)
        #expect(unbounded == fires)
    }

    /// Catching up the rare pattern from year 2 asked Foundation for 64 fires at about 120 ms
    /// each: 7.6 s in one step (`make fuzz`, seed 1, case 48445). Fires more than 20 years
    /// after the first are not walked: the step jumps to the fire after the limit.
    @Test func coalescingARarePatternStopsAtTheHorizon() throws {
        var c = DateComponents(calendar: Calendar(identifier: .chinese), timeZone: Self.utc, month: 8, weekday: 2, weekdayOrdinal: 5)
        c.calendar?.timeZone = Self.utc
        let trigger = NotificationTrigger.calendar(CalendarTrigger(dateMatching: c, repeats: true))
        let rule = try #require(TimeRule(trigger, addedAt: Self.t0, floatingTimeZone: Self.utc))
        let first = try #require(rule.firstFire)
        let limit = first + 400 * 366 * 86_400_000
        let (last, count, next) = rule.coalesce(from: first, before: limit)
        // A fire every 7-12 years: the first 20 years' few, and the one past them.
        #expect(count >= 2 && count <= 5, "\(count)")
        #expect(last - first > TimeRule.otherCalendarHorizon)  // the first fire past it, counted
        #expect(rule.fires(after: first, count: count - 1).last == last)
        #expect(next == rule.nextFire(strictlyAfter: limit - 1))
    }

    @Test func coalescingCountsAtMost64FiresOfAnotherCalendar() throws {
        let rule = try #require(TimeRule(Self.chineseDaily().trigger, addedAt: Self.t0, floatingTimeZone: Self.utc))
        let first = try #require(rule.firstFire)
        let limit = first + 200 * 86_400_000
        let (last, count, next) = rule.coalesce(from: first, before: limit)
        #expect(count == TimeRule.otherCalendarCoalescingCap)
        #expect(last == first + Int64(count - 1) * 86_400_000)  // one a day at 22:17 UTC
        #expect(next == rule.nextFire(strictlyAfter: limit - 1))
        // The Gregorian calendar's native answers are counted exactly.
        let gregorian = try #require(TimeRule(Self.gregorianDaily("g", hour: 10).trigger, addedAt: Self.t0, floatingTimeZone: Self.utc))
        let g1 = try #require(gregorian.firstFire)
        #expect(gregorian.coalesce(from: g1, before: g1 + 200 * 86_400_000).count == 200)
    }

    /// A `nanosecond` field makes Foundation answer a match 236 ns after the previous fire's
    /// millisecond, which is that millisecond again: the fire after a fire was itself, and
    /// a stream catching up looped on it for ever (`make fuzz`, seed 2, case 131961).
    @Test(.timeLimit(.minutes(1)), arguments: [nil, "persian"] as [String?])
    func theFireAfterAFireIsLaterWithANanosecondField(calendar: String?) throws {
        var c = DateComponents(timeZone: Self.utc, minute: 2, nanosecond: 236)
        if let calendar {
            c.calendar = Calendar(identifier: calendar == "persian" ? .persian : .gregorian)
            c.calendar?.timeZone = Self.utc
        }
        let trigger = NotificationTrigger.calendar(CalendarTrigger(dateMatching: c, repeats: true))
        let rule = try #require(TimeRule(trigger, addedAt: Self.t0, floatingTimeZone: Self.utc))
        let first = try #require(rule.firstFire)
        let fires = rule.fires(after: first - 1, count: 5)
        #expect(fires.count == 5)
        // 02 past every hour. Required: without it the stream below would loop for ever.
        try #require(zip(fires, fires.dropFirst()).allSatisfy { $1 - $0 == 3_600_000 })
        // A stream moving a day: the 24 fires between its two lines.
        let named = calendar.map { #""calendar": "\#($0)", "# } ?? ""
        var h = StreamHarness(requests: #"{"identifier": "ns", "content": {"title": "x"}, "addedAt": "2026-11-27T09:00:00Z", "#
            + #""trigger": {"type": "calendar", "dateMatching": {\#(named)"minute": 2, "nanosecond": 236, "timeZone": "UTC"}, "repeats": true}}"#)
        let out = h.feed([#"{"t": "2026-11-27T09:00:00Z"}"#, #"{"t": "2026-11-28T09:00:00Z"}"#])
        #expect(out.count == 24)
        #expect(out.first?.contains(#""date":"2026-11-27T09:02:00Z""#) == true)
    }

    /// Week 0 of a month exists where a first week needs several days (ISO 8601's four), and
    /// Foundation's search for it never returns (`make fuzz`, seed 2, cases 192512 and
    /// 193645): such a trigger never fires, and says why, without asking Foundation.
    @Test(arguments: [nil, "day 1", "era 1 year 32 day 1"] as [String?])
    func weekZeroInISO8601NeverFires(extra: String?) throws {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = Self.utc
        var c = DateComponents(calendar: iso, timeZone: Self.utc, weekOfMonth: 0)
        if extra?.contains("day 1") == true { c.day = 1 }
        if extra?.contains("era") == true { (c.era, c.year) = (1, 32) }
        let schedule = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: Self.utc)
        // Required first: without the screen the search below would not return.
        let reason = try #require(schedule.neverFiresReason)
        #expect(reason.contains("weekOfMonth 0"))
        #expect(schedule.nextFire(afterMillis: Self.t0) == nil)
        #expect(schedule.nextFire(afterMillis: RequestLimits.earliestMillis) == nil)
        // The screen is week 0's alone.
        c.weekOfMonth = 1
        let week1 = CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: Self.utc)
        #expect(week1.neverFiresReason?.contains("weekOfMonth") != true)
    }

    /// A Gregorian trigger with a `nanosecond` beside a month-relative field is Foundation's to
    /// answer (``FoundationSearch`` does not re-enact it), at about 0.1 ms a fire:
    /// `upcomingFires` with a huge limit took 100,000 of them, and each was preceded by a
    /// native search of up to 400 years whose answer was thrown away (`make fuzz`, seed 3,
    /// case 150001: "day 3, weekdayOrdinal 5, nanosecond 19" in Europe/Dublin, over 30 s).
    @Test func gregorianFiresFoundationAnswersAreBoundedPerQuery() async throws {
        let dublin = try #require(TimeZone(identifier: "Europe/Dublin"))
        let c = DateComponents(timeZone: dublin, day: 3, nanosecond: 19, weekdayOrdinal: 5)
        let odd = NotificationRequest(identifier: "odd", content: NotificationContent(title: "x"),
                                      trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)),
                                      addedAt: Timestamp.date(millis: Self.t0))
        let requests = [odd, Self.gregorianDaily("g", hour: 10)]
        let schedule = FireSchedule(requests: requests, defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
        let slot = try #require(schedule.entries.firstIndex { requests[Int($0.request)].identifier == "odd" })
        #expect(schedule.entries[slot].rule.isAnsweredByFoundation(after: Self.t0))
        #expect(!schedule.entries[1 - slot].rule.isAnsweredByFoundation(after: Self.t0))
        let (bounded, cut) = schedule.soonest(50_000, otherCalendarBudget: FireSchedule.otherCalendarRepeatBudget,
                                              foundationBudget: FireSchedule.foundationRepeatBudget)
        #expect(cut)
        let odds = bounded.filter { Int($0.slot) == slot }
        #expect(odds.count == FireSchedule.foundationRepeatBudget + 1)
        #expect(bounded.last == odds.last)
        // The true beginning of the sequence.
        #expect(bounded == Array(schedule.soonest(bounded.count)))
        // Catch-up over 200 years (about 2,400 fires) counts at most 1,000 of them.
        let rule = schedule.entries[slot].rule
        let first = try #require(rule.firstFire)
        #expect(rule.coalesce(from: first, before: first + 200 * 365 * 86_400_000).count == TimeRule.foundationCoalescingCap)

        let center = try TriggerCenter(clock: ManualClock(Timestamp.date(millis: Self.t0)))
        try await center.add(odd)
        let fires = await center.upcomingFires(limit: .max)
        #expect(fires.count == FireSchedule.foundationRepeatBudget + 1)
        await center.shutdown()
    }

    /// Before a zone's table (1583) Foundation answers every Gregorian fire too, at about
    /// 0.03 ms each, but a catch-up counted such fires to the native bound (100,000): a
    /// repeating trigger added in year 1 held the first line of a stream dated 9999 for 3.2 s
    /// (`make fuzz`, seed 1, case 30825). The steps Foundation answers are counted against its
    /// bound wherever the walk is; the native steps after them still count to the native one.
    @Test func catchUpBeforeTheZoneTablesCountsFoundationsFiresToItsBound() throws {
        let casablanca = try #require(TimeZone(identifier: "Africa/Casablanca"))
        func daily(addedAt: String) throws -> TimeRule {
            let r = NotificationRequest(identifier: "old", content: NotificationContent(title: "x"),
                                        trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: casablanca, hour: 1, minute: 31),
                                                                           repeats: true)),
                                        addedAt: Timestamp.date(millis: try #require(Timestamp.parseMillis(addedAt))))
            let schedule = FireSchedule(requests: [r], defaultAddedAt: Self.t0, floatingTimeZone: Self.utc)
            return schedule.entries[0].rule
        }
        // Every step from 1400 on is Foundation's until 1583: the count stops at its bound,
        // at the 1,000th fire, and the walk jumps to the fire after the limit.
        let early = try daily(addedAt: "1400-01-01T00:00:00Z")
        let first = try #require(early.firstFire)
        #expect(early.isAnsweredByFoundation(after: first))
        let summary = early.coalesce(from: first, before: Self.t0)
        #expect(summary.count == TimeRule.foundationCoalescingCap)
        #expect(summary.last == early.fires(after: first - 1, count: TimeRule.foundationCoalescingCap).last)
        #expect(try #require(summary.next) >= Self.t0)
        // A walk that starts a month before the table: its 31 Foundation steps count against
        // that bound, its native ones do not (about 1,856 fires up to 1588).
        let late = try daily(addedAt: "1582-12-01T00:00:00Z")
        let lateFirst = try #require(late.firstFire)
        let limit = try #require(Timestamp.parseMillis("1588-01-01T00:00:00Z"))
        let lateSummary = late.coalesce(from: lateFirst, before: limit)
        #expect(lateSummary.count == late.fires(after: lateFirst - 1, count: 5_000).filter { $0 < limit }.count)
        #expect(lateSummary.count > TimeRule.foundationCoalescingCap)

        // Through a stream, as `make fuzz` found it: one line, one coalesced event.
        let r = NotificationRequest(identifier: "r25", content: NotificationContent(title: "x"),
                                    trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: casablanca, hour: 1, minute: 31,
                                                                                                    weekdayOrdinal: 2), repeats: true)),
                                    addedAt: Timestamp.date(millis: try #require(Timestamp.parseMillis("0001-01-01T00:00:00Z"))))
        let e = StreamEvaluator(requests: [r], options: StreamOptions())
        var out: [FiredEvent] = []
        let line = Array(#"{"device": "d0", "t": "9999-12-31T23:59:59.999Z", "lat": 59.999, "lon": -73.9857}"#.utf8)
        try e.process(try line.withUnsafeBufferPointer { (b) throws(StreamLineError) in try StreamLineParser.parse(b) }, into: &out)
        #expect(out.count == 1)
        #expect(out.first?.count == TimeRule.foundationCoalescingCap)
    }

    /// The events of a repeating calendar trigger on `components`, added at `addedAt`, caught
    /// up by one clock line at `t` under `policy`.
    static func caughtUp(_ components: DateComponents, addedAt: String, at t: String, policy: CatchUpPolicy) throws -> [FiredEvent] {
        let r = NotificationRequest(identifier: "old", content: NotificationContent(title: "x"),
                                    trigger: .calendar(CalendarTrigger(dateMatching: components, repeats: true)),
                                    addedAt: Timestamp.date(millis: try #require(Timestamp.parseMillis(addedAt))))
        var options = StreamOptions()
        options.catchUp = policy
        let e = StreamEvaluator(requests: [r], options: options)
        var out: [FiredEvent] = []
        let line = Array(#"{"t": "\#(t)"}"#.utf8)
        try e.process(try line.withUnsafeBufferPointer { (b) throws(StreamLineError) in try StreamLineParser.parse(b) }, into: &out)
        return out
    }

    /// A capped count stands for the old fires only: the fires inside the catch-up window
    /// (the week before the stream time) are still delivered as the policy says. With
    /// `coalesce` they were lost (neither written nor counted; a helper's find): a daily
    /// trigger added in 1400 wrote one line, `coalesced` 1,000, dated 1402, and its fires of
    /// the last week never came; `every` wrote them one by one.
    @Test(arguments: [CatchUpPolicy.coalesced, .everyFire])
    func aCappedCatchUpStillDeliversTheWindowsFires(policy: CatchUpPolicy) throws {
        let out = try Self.caughtUp(DateComponents(timeZone: Self.utc, hour: 9), addedAt: "1400-01-01T00:00:00Z",
                                    at: "2026-01-01T00:00:00Z", policy: policy)
        let capped = try #require(out.first)
        #expect(capped.count == TimeRule.foundationCoalescingCap)
        // The last week's seven fires, 2025-12-25 ... 2025-12-31 at 09:00.
        let week = (25...31).map { Timestamp.parseMillis("2025-12-\($0)T09:00:00Z")! }
        switch policy {
        case .coalesced:
            #expect(out.count == 2)
            #expect(out.last?.date == week.last && out.last?.count == 7)
        case .everyFire:
            #expect(out.dropFirst().map(\.date) == week && out.dropFirst().allSatisfy { $0.count == 1 })
        }
    }

    /// A count that stops at its cap inside the catch-up window goes on from the fire after
    /// its last: a per-minute trigger added 70 days back (100,800 fires, the cap 100,000
    /// falling on the window's last day) lost its last 800 fires, the one at the stream time
    /// included (the reviewer's find).
    @Test func aCapInsideTheWindowLosesNoFire() throws {
        let out = try Self.caughtUp(DateComponents(timeZone: Self.utc, second: 0), addedAt: "2025-10-23T00:00:00Z",
                                    at: "2026-01-01T00:00:00Z", policy: .coalesced)
        // 70 days of minutes (the first a minute after `addedAt`, the last at the stream time).
        #expect(out.reduce(0) { $0 + $1.count } == 70 * 1440)
        #expect(out.first?.count == TimeRule.coalescingCap)
        #expect(out.last?.date == Timestamp.parseMillis("2026-01-01T00:00:00Z"))
    }

    /// A count Foundation's bound stopped inside the window does not go on: a per-second
    /// Chinese trigger (Foundation answers each fire) added in year 1 and caught up with
    /// `coalesce` wrote 9,452 lines of 64 fires in one step (604,800 of Foundation's answers,
    /// 12 s; `make fuzz`, seed 1, case 39225). At most two lines: the old fires and the window's.
    @Test func foundationsBoundStillBoundsACatchUpStep() throws {
        var chinese = Calendar(identifier: .chinese)
        let zone = try #require(TimeZone(identifier: "Australia/Lord_Howe"))
        chinese.timeZone = zone
        let out = try Self.caughtUp(DateComponents(calendar: chinese, timeZone: zone, nanosecond: 36), addedAt: "0001-01-01T00:00:00Z",
                                    at: "2026-11-27T09:00:08Z", policy: .coalesced)
        #expect((1...2).contains(out.count), "\(out.count) lines")
        #expect(out.allSatisfy { $0.count <= TimeRule.otherCalendarCoalescingCap })
    }

    /// Which Gregorian triggers Foundation answers: month-relative fields are re-enacted
    /// natively unless an `era` or a `nanosecond` comes with them; a `nanosecond` beside times
    /// of day is native. An `era` is always Foundation's (it was native beside an hour, and
    /// the native rules fired `{era 1, hour 9}` every day where Foundation fires on January
    /// 1st: see `CalendarBeyondNativeRulesTests`).
    @Test func whichGregorianTriggersFoundationAnswers() throws {
        func answered(_ c: DateComponents) -> Bool {
            CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: Self.utc)
                .isAnsweredByFoundation(afterMillis: Self.t0)
        }
        #expect(!answered(DateComponents(timeZone: Self.utc, hour: 9)))
        #expect(!answered(DateComponents(timeZone: Self.utc, weekday: 2, weekdayOrdinal: 2)))
        #expect(answered(DateComponents(timeZone: Self.utc, nanosecond: 5, weekday: 2, weekdayOrdinal: 2)))
        #expect(answered(DateComponents(timeZone: Self.utc, era: 1, day: 3, weekOfMonth: 1)))
        #expect(!answered(DateComponents(timeZone: Self.utc, hour: 9, nanosecond: 5)))
        #expect(answered(DateComponents(timeZone: Self.utc, era: 1, hour: 9)))
    }
}

/// A fixed year whose day its month lacks (the native rule: the next month's 1st) fires once in
/// other calendars too: Foundation's later answers roll into the years after (Hebrew
/// 5787-04-30 fired again in 5788, Republic of China 115-02-29 every year; a helper's find).
@Suite("Triggers Foundation answers: a fixed year")
struct OtherCalendarFixedYearTests {
    @Test(arguments: [(Calendar.Identifier.hebrew, 5787, 4, 30), (.republicOfChina, 115, 2, 29), (.persian, 1405, 7, 31)])
    func aFixedYearsLackingDayFiresOnce(identifier: Calendar.Identifier, year: Int, month: Int, day: Int) {
        let utc = TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: identifier)
        calendar.timeZone = utc
        let c = DateComponents(calendar: calendar, timeZone: utc, year: year, month: month, day: day, hour: 23)
        let r = NotificationRequest(identifier: "y", content: NotificationContent(title: "x"),
                                    trigger: .calendar(CalendarTrigger(dateMatching: c, repeats: true)),
                                    addedAt: Timestamp.date(millis: OtherCalendarBoundsTests.t0 - 400 * 86_400_000))
        let rule = TimeRule(r.trigger, addedAt: OtherCalendarBoundsTests.t0 - 400 * 86_400_000, floatingTimeZone: utc)
        let fires = rule?.fires(after: OtherCalendarBoundsTests.t0 - 400 * 86_400_000, count: 5) ?? []
        #expect(fires.count == 1, "\(fires.map { Timestamp.string(millis: $0) })")
        for f in fires { #expect(calendar.component(.year, from: Timestamp.date(millis: f)) == year) }
    }
}

/// Foundation's `islamic` calendar answers nil from every start after some date in zones east
/// of UTC (Riyadh: a monthly `{day 1, hour 9}` stopped after 2029-03-16, a helper's find);
/// the contract answers the real occurrence where Foundation answers nil.
@Suite("Triggers Foundation answers: nil where a day matches")
struct OtherCalendarNilTests {
    @Test func aMonthlyIslamicTriggerInRiyadhGoesOn() {
        let riyadh = TimeZone(identifier: "Asia/Riyadh")!
        var calendar = Calendar(identifier: .islamic)
        calendar.timeZone = riyadh
        let c = DateComponents(calendar: calendar, timeZone: riyadh, day: 1, hour: 9)
        let start = Timestamp.millis(ISO8601DateFormatter().date(from: "2026-11-27T00:00:00Z")!)
        let rule = TimeRule(.calendar(CalendarTrigger(dateMatching: c, repeats: true)), addedAt: start, floatingTimeZone: riyadh)
        let fires = rule?.fires(after: start, count: 48) ?? []
        #expect(fires.count == 48, "stopped at \(fires.last.map { Timestamp.string(millis: $0) } ?? "-")")
        // (Where Foundation answers a date, its answer stands, as the contract has it: after
        // 2027-03-09 it answers 2027-05-07, two months on.)
        for f in fires {
            let at = Timestamp.date(millis: f)
            #expect(calendar.component(.day, from: at) == 1 && calendar.component(.hour, from: at) == 9 && calendar.component(.minute, from: at) == 0,
                    "\(Timestamp.string(millis: f))")
        }
        #expect(fires.contains(Timestamp.millis(ISO8601DateFormatter().date(from: "2029-04-14T06:00:00Z")!)))
    }
}
