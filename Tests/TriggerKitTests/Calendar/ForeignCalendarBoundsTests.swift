import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Component sets in other calendars that can never match are refused from the calendar's
/// ranges, without Foundation's search. `make fuzz` (seed 1) found sets that Foundation
/// searched for 4-16 s before answering nil; in `serve`, each such add held its tenant that long.
@Suite("Other calendars: sets that never match, proved")
struct ForeignCalendarBoundsTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func calendar(_ id: Calendar.Identifier, _ zone: String = "UTC") -> Calendar {
        var c = Calendar(identifier: id)
        c.timeZone = TimeZone(identifier: zone)!
        return c
    }

    static func trigger(_ id: Calendar.Identifier, zone: String = "UTC", _ fill: (inout DateComponents) -> Void) -> CalendarTrigger {
        var c = DateComponents()
        c.calendar = calendar(id, zone)
        c.timeZone = TimeZone(identifier: zone)!
        fill(&c)
        return CalendarTrigger(dateMatching: c, repeats: false)
    }

    static let reference = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    /// The fuzz's cases and their kin: each refused before Foundation is asked (the schedule
    /// knows at once), with the rule that proves it.
    @Test(arguments: [
        ("chinese era 2500, weekOfYear 32", trigger(.chinese, zone: "Antarctica/Troll") { $0.era = 2500; $0.weekOfYear = 32 }, "era 2500"),
        ("chinese weekdayOrdinal 5, dayOfYear 39", trigger(.chinese, zone: "Europe/Dublin") { $0.weekdayOrdinal = 5; $0.dayOfYear = 39 }, "weekdayOrdinal 5"),
        ("hebrew dayOfYear 4, weekOfYear 16", trigger(.hebrew) { $0.dayOfYear = 4; $0.weekOfYear = 16 }, "weekOfYear 16"),
        ("islamic dayOfYear 40, day 1", trigger(.islamic) { $0.dayOfYear = 40; $0.day = 1 }, "day 1"),
        ("chinese era 211, year 37", trigger(.chinese) { $0.era = 211; $0.year = 37 }, "year 37"),
        ("persian year 9400", trigger(.persian) { $0.year = 9400 }, "year 9400"),
        // `make fuzz`, seed 7: Foundation searched 4.0 s and 4.9 s.
        ("chinese month 4, dayOfYear 2", trigger(.chinese, zone: "America/Havana") { $0.month = 4; $0.dayOfYear = 2 }, "month 4"),
        ("chinese month 7, weekOfYear 7, dayOfYear 38", trigger(.chinese) { $0.month = 7; $0.weekOfYear = 7; $0.dayOfYear = 38; $0.second = 29 }, "month 7"),
        ("hebrew month 2, weekOfYear 40", trigger(.hebrew) { $0.month = 2; $0.weekOfYear = 40 }, "weekOfYear 40"),
        ("islamic day 12, weekdayOrdinal 5", trigger(.islamic) { $0.day = 12; $0.weekdayOrdinal = 5 }, "no day of a month"),
        // `make fuzz` seed 7 case 105456: Foundation searched 6.1 s (day 29 is in month 1).
        ("chinese month 2, dayOfYear 29", trigger(.chinese) { $0.month = 2; $0.dayOfYear = 29 }, "no day of a year"),
        // Seed 6 case 105328: 3.0 s. Week 6 of a 30-day month holds at most its day 30, a
        // Sunday when weeks begin on Sunday.
        ("chinese weekday 2, weekOfMonth 6, weekOfYear 31", trigger(.chinese) { $0.weekday = 2; $0.weekOfMonth = 6; $0.weekOfYear = 31 },
         "weekday 2 in weekOfMonth 6"),
        ("hebrew weekday 3, weekOfMonth 6", trigger(.hebrew) { $0.weekday = 3; $0.weekOfMonth = 6 }, "weekday 3 in weekOfMonth 6"),
        // Seed 6 case 12645: 4.1 s. Days 1-7 of a month are not in its week 6 (day 30 on).
        ("chinese weekOfMonth 6, weekdayOrdinal 1", trigger(.chinese) { $0.weekOfMonth = 6; $0.weekdayOrdinal = 1; $0.minute = 31 },
         "no day of a month is both"),
        // Seed 9 cases 82576 and 69337: 5.8 s and 5.6 s. Day 20 of a year is day 20 of its
        // first month, and week 2 of a month ends by its day 14 (weeks of at least 1 day).
        ("chinese weekOfMonth 2, dayOfYear 20", trigger(.chinese) { $0.weekOfMonth = 2; $0.dayOfYear = 20 }, "no day of a year"),
        ("chinese weekOfMonth 1, dayOfYear 13", trigger(.chinese) { $0.weekOfMonth = 1; $0.dayOfYear = 13 }, "no day of a year"),
        // A helper's campaign: 86 s in Foundation's search (weeks begin on Monday, a week 1
        // needs 2 days: week 6 of a month is its days 31-37, and no Islamic month has a day 31,
        // whatever Foundation's range says).
        ("islamicTabular weekday 2, weekOfMonth 6, week rules 2/2",
         trigger(.islamicTabular) { $0.calendar?.firstWeekday = 2; $0.calendar?.minimumDaysInFirstWeek = 2; $0.weekday = 2; $0.weekOfMonth = 6 },
         "no month of this calendar has a day 31"),
        // Foundation's `weekOfYear` range allows 56 here; a week-year has at most 55 weeks.
        ("hebrew weekOfYear 56", trigger(.hebrew) { $0.weekOfYear = 56 }, "no week-year of this calendar has more than 55 weeks"),
    ])
    func provedAtOnce(_ name: String, _ t: CalendarTrigger, _ rule: String) throws {
        let schedule = CalendarSchedule(t, floatingTimeZone: Self.utc)
        let why = try #require(schedule.neverFiresReason, "\(name)")
        #expect(why.contains(rule), "\(name): \(why)")
        // (A schedule that knows it never fires answers nil before asking Foundation.)
        #expect(schedule.nextFire(afterMillis: Timestamp.millis(Self.reference)) == nil)
        let request = NotificationRequest(identifier: "x", content: NotificationContent(title: "x"), trigger: .calendar(t),
                                          addedAt: Self.reference)
        #expect(throws: RequestError.self) { try RequestValidation.validate(request, options: ValidationOptions()) }
    }

    /// An era (or a single-era calendar's year) before the reference's: no later date, told
    /// without a search.
    @Test func aPastEraHasNoNextDate() throws {
        let heisei = CalendarSchedule(Self.trigger(.japanese) { $0.era = 235; $0.month = 5 }, floatingTimeZone: Self.utc)
        #expect(heisei.neverFiresReason == nil)
        #expect(heisei.nextFire(afterMillis: Timestamp.millis(Self.reference)) == nil)
        let hebrew = CalendarSchedule(Self.trigger(.hebrew) { $0.year = 5700; $0.month = 1 }, floatingTimeZone: Self.utc)
        #expect(hebrew.nextFire(afterMillis: Timestamp.millis(Self.reference)) == nil)
        // The current era still fires (Reiwa, May): Foundation's answer.
        let reiwa = CalendarSchedule(Self.trigger(.japanese) { $0.era = 236; $0.month = 5 }, floatingTimeZone: Self.utc)
        let next = try #require(reiwa.nextFire(afterMillis: Timestamp.millis(Self.reference)))
        let c = Self.calendar(.japanese).dateComponents([.era, .month, .day], from: Timestamp.date(millis: next))
        #expect(c.era == 236 && c.month == 5 && c.day == 1)
    }

    /// The longest months measured where Foundation's range says longer
    /// (``ForeignCalendarBounds/longestMonthMeasured``) hold in every month Foundation has
    /// from year 1 to 9999, by its intervals and its ranges alike.
    @Test(arguments: [Calendar.Identifier.islamic, .islamicCivil, .islamicTabular, .islamicUmmAlQura])
    func theMeasuredLongestMonthHoldsInEveryMonth(_ id: Calendar.Identifier) throws {
        let cal = Self.calendar(id), gregorian = Self.calendar(.gregorian)
        let first = try #require(gregorian.date(from: DateComponents(year: 1, month: 1, day: 1)))
        let end = try #require(gregorian.date(from: DateComponents(year: 9999, month: 12, day: 31)))
        var month = try #require(cal.dateInterval(of: .month, for: first)).start
        var longest = 0, months = 0
        while month < end {
            let interval = try #require(cal.dateInterval(of: .month, for: month))
            let days = try #require(cal.range(of: .day, in: .month, for: month)).count
            longest = max(longest, days, Int((interval.duration / 86_400).rounded()))
            months += 1
            month = interval.end
        }
        #expect(months > 123_000)
        #expect(longest == ForeignCalendarBounds.longestMonthMeasured[id], "\(id): \(longest)")
    }

    /// A day Foundation's range allows and no Islamic month has (31) is not refused: Apple's
    /// policy rolls it over to the next day, as `{month 2, day 30}` fires on 1 March in the
    /// Gregorian calendar. (The measured longest month refused these for a moment: found by
    /// measuring the change against the build before it.)
    @Test(arguments: [Calendar.Identifier.islamic, .islamicCivil, .islamicTabular, .islamicUmmAlQura])
    func aDayNoIslamicMonthHasRollsOverAsFoundationAnswers(_ id: Calendar.Identifier) throws {
        for t in [Self.trigger(id) { $0.day = 31; $0.hour = 9 }, Self.trigger(id) { $0.month = 3; $0.day = 31; $0.hour = 9 }] {
            let schedule = CalendarSchedule(t, floatingTimeZone: Self.utc)
            #expect(schedule.neverFiresReason == nil, "\(id): \(schedule.neverFiresReason ?? "")")
            let mine = try #require(schedule.nextFire(afterMillis: Timestamp.millis(Self.reference)), "\(id)")
            let foundation = try #require(Self.calendar(id).nextDate(after: Self.reference, matching: t.dateComponents,
                                                                     matchingPolicy: .nextTimePreservingSmallerComponents))
            #expect(mine == Timestamp.millis(foundation), "\(id) \(t.dateComponents)")
        }
    }

    /// Sets some day matches are not refused: the rules are necessary conditions only.
    @Test func possibleSetsStillFire() throws {
        let matching = [
            Self.trigger(.chinese) { $0.dayOfYear = 39; $0.day = 10 },
            Self.trigger(.hebrew) { $0.dayOfYear = 4; $0.weekOfYear = 1 },
            Self.trigger(.islamic) { $0.dayOfYear = 35; $0.weekdayOrdinal = 1 },
        ]
        for t in matching {
            let schedule = CalendarSchedule(t, floatingTimeZone: Self.utc)
            #expect(schedule.neverFiresReason == nil)
            #expect(schedule.nextFire(afterMillis: Timestamp.millis(Self.reference)) != nil)
        }
    }

    /// Soundness, day by day: over 40 years in each calendar, under three week rules, the
    /// components every real day has (its era and year, month, day of the year, day of the
    /// month, weekday, weekday ordinal, week of the month and of the year, in pairs and
    /// triples and all together) are never refused.
    @Test(arguments: [Calendar.Identifier.chinese, .hebrew, .islamic, .islamicUmmAlQura, .islamicTabular, .persian, .coptic, .japanese, .indian],
          [(1, 1), (2, 4), (2, 2), (7, 3), (5, 4), (7, 6)])
    func everyRealDayPasses(_ id: Calendar.Identifier, weekRule: (first: Int, minimumDays: Int)) throws {
        var cal = Self.calendar(id)
        cal.firstWeekday = weekRule.first
        cal.minimumDaysInFirstWeek = weekRule.minimumDays
        let bounds = try #require(ForeignCalendarBounds(cal))
        var date = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
        var refused: [String] = []
        for _ in 0..<(40 * 366) {
            let today = date
            date += 86_400
            let c = cal.dateComponents([.era, .year, .month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .weekOfYear, .dayOfYear],
                                       from: today)
            // Foundation's Chinese calendar names a few days day 0 (2057-09-28), outside its own
            // range for the field: a set with such a day is refused by the range check, as the
            // contract says; the sets without it still match the day, and are checked.
            guard let day = c.day else { continue }
            let dayInRange = cal.maximumRange(of: .day)?.contains(day) == true
            let sets: [DateComponents] = [
                DateComponents(era: c.era, year: c.year),
                { var s = DateComponents(); s.dayOfYear = c.dayOfYear; s.day = c.day; return s }(),
                { var s = DateComponents(); s.dayOfYear = c.dayOfYear; s.weekdayOrdinal = c.weekdayOrdinal; return s }(),
                { var s = DateComponents(); s.dayOfYear = c.dayOfYear; s.weekOfYear = c.weekOfYear; return s }(),
                { var s = DateComponents(); s.dayOfYear = c.dayOfYear; s.month = c.month; return s }(),
                { var s = DateComponents(); s.month = c.month; s.weekOfYear = c.weekOfYear; return s }(),
                { var s = DateComponents(); s.month = c.month; s.day = c.day; s.weekdayOrdinal = c.weekdayOrdinal; return s }(),
                { var s = DateComponents(); s.month = c.month; s.weekdayOrdinal = c.weekdayOrdinal; s.weekOfYear = c.weekOfYear; return s }(),
                { var s = DateComponents(); s.weekday = c.weekday; s.weekOfMonth = c.weekOfMonth; return s }(),
                { var s = DateComponents(); s.weekday = c.weekday; s.weekOfMonth = c.weekOfMonth; s.dayOfYear = c.dayOfYear; return s }(),
                { var s = DateComponents(); s.weekOfMonth = c.weekOfMonth; s.day = c.day; return s }(),
                { var s = DateComponents(); s.weekOfMonth = c.weekOfMonth; s.dayOfYear = c.dayOfYear; return s }(),
                { var s = DateComponents(); s.weekOfMonth = c.weekOfMonth; s.month = c.month; s.weekdayOrdinal = c.weekdayOrdinal; return s }(),
                c,
            ]
            for s in sets where dayInRange || s.day == nil {
                if let why = bounds.neverMatches(s) { refused.append("\(today): \(why)") }
            }
            if !dayInRange, let why = bounds.neverMatches({ var s = c; s.day = nil; return s }()) { refused.append("\(today): \(why)") }
        }
        #expect(refused.isEmpty, "\(refused.prefix(5))")
    }
}
