import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A location request with fence rules around the harness's circle at (40, -74); `rules` is
/// the JSON members added to its trigger (e.g. `"dwell": {"inside": 300}`).
func ruledRequest(_ id: String, radius: Double = 100, entry: Bool = true, exit: Bool = true, repeats: Bool = true,
                  device: String? = nil, expiresAt: String? = nil, rules: String) -> String {
    circleRequest(id, radius: radius, entry: entry, exit: exit, repeats: repeats, device: device, expiresAt: expiresAt, rules: rules)
}

/// A clock line at second `s` of the test stream (``at(_:)``), with milliseconds.
func clock(_ s: Int, ms: Int = 0) -> String {
    "{\"t\": \"\(Timestamp.string(millis: 1_795_770_000_000 + Int64(s) * 1000 + Int64(ms)))\"}"
}

func at(_ s: Int, ms: Int) -> String { Timestamp.string(millis: 1_795_770_000_000 + Int64(s) * 1000 + Int64(ms)) }

/// Issue 13: dwell fired by the clock, time windows, expiry.
@Suite("fence rules: dwell, windows, expiry")
struct FenceClockTests {
    @Test func aDwellFiresFromTheClockAloneAtTheExactMoment() {
        var h = StreamHarness(requests: ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 300}"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(309), clock(310), clock(2000)])
        // No fix after the entry: the clock line at 310 s passes the due instant (10 + 300).
        #expect(out == ["cafe dwellInside d \(at(310))"])
    }

    /// Dwells of one fence falling due at one instant for several devices come out ordered by
    /// device id (the contract: identifier, then device), not by the order the devices were
    /// first seen. That order is not kept across a restart: a resumed `run --state` numbers the
    /// devices as its snapshot lists them, and wrote such ties in another order (found by
    /// `tools/crash-test.py --rules`).
    @Test func dwellsDueAtOneInstantAreOrderedByDevice() throws {
        let request = ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 60}")
        let lines = [fix("zed", 0, north: 500), fix("amy", 0, north: 500), fix("mid", 0, north: 500),
                     fix("zed", 10, north: 0), fix("amy", 10, north: 0), fix("mid", 10, north: 0), clock(100)]
        var h = StreamHarness(requests: request)
        #expect(h.feedBrief(lines) == ["cafe dwellInside amy \(at(70))", "cafe dwellInside mid \(at(70))", "cafe dwellInside zed \(at(70))"])
        // Resumed from a snapshot taken before the dwells, its devices numbered afresh.
        var first = StreamHarness(requests: request)
        _ = first.feed(Array(lines[..<5]))
        var resumed = StreamHarness(requests: request)
        try resumed.evaluator.restore(first.evaluator.snapshot())
        #expect(resumed.feedBrief(Array(lines[5...])) == ["cafe dwellInside amy \(at(70))", "cafe dwellInside mid \(at(70))",
                                                         "cafe dwellInside zed \(at(70))"])
    }

    @Test func aDwellNeedsAClockLineThatReachesIt() {
        var h = StreamHarness(requests: ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 300}"))
        #expect(h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(309, ms: 999)]).isEmpty)
    }

    @Test func leavingBeforeTheDwellCancelsItAndAnotherStayStartsAgain() {
        var h = StreamHarness(requests: ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 300}"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), fix("d", 309, north: 500),
                               clock(400), fix("d", 500, north: 0), clock(800)])
        #expect(out == ["cafe dwellInside d \(at(800))"])
    }

    @Test func leavingAtTheDueInstantIsNotBeforeIt() {
        // Due at 310; the exit fix at exactly 310 comes after the clock's fires of 310.
        var h = StreamHarness(requests: ruledRequest("cafe", rules: "\"dwell\": {\"inside\": 300}"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), fix("d", 310, north: 500)])
        #expect(out == ["cafe enter d \(at(10))", "cafe dwellInside d \(at(310))", "cafe exit d \(at(310))"])
    }

    @Test func aDwellFiresOncePerStay() {
        var h = StreamHarness(requests: ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 60}"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), fix("d", 100, north: 1), fix("d", 200, north: 2), clock(500)])
        #expect(out == ["cafe dwellInside d \(at(70))"])
    }

    @Test func anOutsideDwellStartsAtTheExitAndAtTheFirstFix() {
        var h = StreamHarness(requests: ruledRequest("away", entry: false, exit: false, rules: "\"dwell\": {\"outside\": 600}"))
        let out = h.feedBrief([fix("a", 0, north: 0), fix("b", 0, north: 900), fix("a", 100, north: 800), clock(5000)])
        // b is outside from its first fix (0 s); a leaves at 100 s.
        #expect(out == ["away dwellOutside b \(at(600))", "away dwellOutside a \(at(700))"])
    }

    @Test func aSharedOneShotDwellFiresOncePerDevice() {
        var h = StreamHarness(requests: ruledRequest("once", entry: false, exit: false, repeats: false, rules: "\"dwell\": {\"inside\": 60}"))
        let out = h.feedBrief([fix("a", 0, north: 500), fix("a", 10, north: 0), fix("a", 100, north: 500), fix("a", 200, north: 0), clock(1000)])
        #expect(out == ["once dwellInside a \(at(70))"])
    }

    @Test func expiryDuringADwellCancelsIt() {
        var h = StreamHarness(requests: ruledRequest("cafe", expiresAt: at(200), rules: "\"dwell\": {\"inside\": 300}"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(1000), fix("d", 1100, north: 500)])
        #expect(out == ["cafe enter d \(at(10))"])
        #expect(h.evaluator.pendingFlags() == [false])
    }

    @Test func anExpiryAtTheDueInstantComesFirst() {
        var h = StreamHarness(requests: ruledRequest("cafe", entry: false, expiresAt: at(310), rules: "\"dwell\": {\"inside\": 300}"))
        #expect(h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(1000)]).isEmpty)
        var one = StreamHarness(requests: ruledRequest("cafe", entry: false, expiresAt: at(310, ms: 1), rules: "\"dwell\": {\"inside\": 300}"))
        #expect(one.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(1000)]) == ["cafe dwellInside d \(at(310))"])
    }

    @Test func aTimeTriggerStopsAtItsExpiry() {
        let r = "{\"identifier\": \"nudge\", \"content\": {\"title\": \"n\"}, \"addedAt\": \"\(at(0))\", \"expiresAt\": \"\(at(180))\", "
            + "\"trigger\": {\"type\": \"timeInterval\", \"timeInterval\": 60, \"repeats\": true}}"
        var h = StreamHarness(requests: r)
        // 60, 120 fire; 180 is the expiry instant itself.
        #expect(h.feedBrief([clock(0), clock(1000)]) == ["nudge timeInterval \(at(60))", "nudge timeInterval \(at(120))"])
        #expect(h.evaluator.pendingFlags() == [false])
    }

    @Test func aPlainLocationRequestExpiresToo() {
        var h = StreamHarness(requests: ruledRequest("popup", expiresAt: at(100), rules: "\"crossings\": false"))
        let plain = circleRequest("popup").replacingOccurrences(of: "\"trigger\"", with: "\"expiresAt\": \"\(at(100))\", \"trigger\"")
        var p = StreamHarness(requests: plain)
        let lines = [fix("d", 0, north: 500), fix("d", 50, north: 0), fix("d", 90, north: 500), fix("d", 100, north: 0), fix("d", 150, north: 500)]
        #expect(p.feedBrief(lines) == ["popup enter d \(at(50))", "popup exit d \(at(90))"])
        #expect(h.feedBrief(lines) == ["popup enter d \(at(50))", "popup exit d \(at(90))"])
        #expect(p.evaluator.pendingFlags() == [false])
    }

    @Test func cancelledDwellTimersAreBoundedWithoutChangingTheOutput() {
        // A device in and out every 10 s cancels a 300 s dwell each time; a tiny heap bound
        // forces compactions, which must not change what fires.
        let r = ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 300}")
        var lines = [fix("d", 0, north: 500)]
        for k in 0..<200 { lines.append(fix("d", 10 * k + 5, north: k % 2 == 0 ? 0 : 500)) }
        lines += [fix("d", 3000, north: 0), clock(4000)]
        var free = StreamHarness(requests: r)
        let expected = free.feedBrief(lines)
        #expect(expected == ["cafe dwellInside d \(at(3300))"])
        var bounded = StreamHarness(requests: r)
        bounded.evaluator.guarded?.timerBound = 8
        bounded.evaluator.guarded?.timerSlack = 8
        #expect(bounded.feedBrief(lines) == expected)
        #expect((bounded.evaluator.guarded?.compactions ?? 0) > 0)
        // At most one dwell is live at a time: the heap stays within 2 x 1 + 8.
        #expect((bounded.evaluator.guarded?.timers.count ?? 99) <= 10)
    }

    // MARK: windows

    /// A request armed in `intervals` (second offsets of the test stream).
    static func windowed(_ intervals: [(Int, Int)], extra: String = "", dwell: String = "") -> String {
        let list = intervals.map { "{\"start\": \"\(at($0.0))\", \"end\": \"\(at($0.1))\"}" }.joined(separator: ", ")
        return ruledRequest("shop", rules: "\(dwell)\"window\": {\"intervals\": [\(list)]\(extra)}")
    }

    @Test func nothingFiresOutsideTheWindowButTheStateIsFollowed() {
        var h = StreamHarness(requests: Self.windowed([(100, 200)]))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 50, north: 0), fix("d", 150, north: 500),
                               fix("d", 180, north: 0), fix("d", 250, north: 500)])
        // Enter at 50 (closed): silent; exit at 150 fires; enter at 180 fires; exit at 250 (closed) does not.
        #expect(out == ["shop exit d \(at(150))", "shop enter d \(at(180))"])
    }

    @Test func enterAtOpeningAndExitAtClosing() {
        var h = StreamHarness(requests: Self.windowed([(100, 200)], extra: ", \"enterAtOpening\": true, \"exitAtClosing\": true"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 50, north: 0), fix("o", 60, north: 900), clock(500)])
        #expect(out == ["shop enter d \(at(100))", "shop exit d \(at(200))"])
    }

    /// A window that closed and opened again at one instant lost the opening: two exits in a
    /// row, no enter, no dwell (a helper's find). The closing, then the opening.
    @Test func aWindowThatReopensAtItsClosingInstantClosesThenOpens() {
        let rules = ", \"enterAtOpening\": true, \"exitAtClosing\": true"
        var h = StreamHarness(requests: Self.windowed([(100, 200), (200, 400)], extra: rules, dwell: "\"dwell\": {\"inside\": 100}, "))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 50, north: 0), clock(1000)])
        // (The dwell due at the closing instant does not fire: the closing cancels it.)
        #expect(out == ["shop enter d \(at(100))", "shop exit d \(at(200))", "shop enter d \(at(200))",
                        "shop dwellInside d \(at(300))", "shop exit d \(at(400))"])
        // Weekly hours that close at their opening time: armed all day, closing and opening
        // again at that time each day.
        let r = "{\"identifier\": \"office\", \"content\": {\"title\": \"o\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, "
            + "\"window\": {\"opens\": \"08:00\", \"closes\": \"08:00\", \"timeZone\": \"UTC\", \"enterAtOpening\": true, \"exitAtClosing\": true}, "
            + "\"region\": {\"identifier\": \"office\", \"center\": {\"latitude\": 40, \"longitude\": -74}, \"radius\": 100}}}"
        var weekly = StreamHarness(requests: r)
        let days = weekly.feedBrief(["{\"device\": \"d\", \"t\": \"2026-11-23T09:00:00Z\", \"lat\": 40, \"lon\": -74}",
                                     "{\"t\": \"2026-11-25T09:00:00Z\"}"])
        #expect(days == ["office exit d 2026-11-24T08:00:00Z", "office enter d 2026-11-24T08:00:00Z",
                         "office exit d 2026-11-25T08:00:00Z", "office enter d 2026-11-25T08:00:00Z"])
    }

    @Test func theWindowIsHalfOpen() {
        // Armed from 100 (inclusive) to 200 (exclusive).
        var h = StreamHarness(requests: Self.windowed([(100, 200)]))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 100, north: 0), fix("d", 200, north: 500)])
        #expect(out == ["shop enter d \(at(100))"])
    }

    @Test func aDwellAtTheWindowsClosingInstantDoesNotFire() {
        // Inside from 50; the dwell clock starts at the opening (100): due at 200 = closing.
        var closing = StreamHarness(requests: Self.windowed([(100, 200)], dwell: "\"dwell\": {\"inside\": 100}, "))
        #expect(closing.feedBrief([fix("d", 0, north: 500), fix("d", 50, north: 0), clock(1000)]).isEmpty)
        // One millisecond more of window and it fires at its due instant.
        let r = ruledRequest("shop", rules: "\"dwell\": {\"inside\": 100}, \"window\": {\"intervals\": [{\"start\": \"\(at(100))\", \"end\": \"\(at(200, ms: 1))\"}]}")
        var open = StreamHarness(requests: r)
        #expect(open.feedBrief([fix("d", 0, north: 500), fix("d", 50, north: 0), clock(1000)]) == ["shop dwellInside d \(at(200))"])
    }

    @Test func weeklyHoursFollowTheFencesOwnZone() {
        // 2026-11-23 is a Monday; 09:00-17:00 in New York is 14:00-22:00 UTC.
        let r = "{\"identifier\": \"office\", \"content\": {\"title\": \"o\"}, \"trigger\": {\"type\": \"location\", \"repeats\": true, "
            + "\"window\": {\"weekdays\": [2, 3, 4, 5, 6], \"opens\": \"09:00\", \"closes\": \"17:00\", \"timeZone\": \"America/New_York\", "
            + "\"enterAtOpening\": true, \"exitAtClosing\": true}, "
            + "\"region\": {\"identifier\": \"office\", \"center\": {\"latitude\": 40.7484, \"longitude\": -73.9857}, \"radius\": 100}}}"
        var h = StreamHarness(requests: r)
        let inside = "\"lat\": 40.7484, \"lon\": -73.9857"
        let out = h.feedBrief(["{\"device\": \"d\", \"t\": \"2026-11-23T13:30:00Z\", \(inside)}", "{\"t\": \"2026-11-23T23:00:00Z\"}",
                               "{\"t\": \"2026-11-28T23:00:00Z\"}"])
        #expect(out == ["office enter d 2026-11-23T14:00:00Z", "office exit d 2026-11-23T22:00:00Z",
                        "office enter d 2026-11-24T14:00:00Z", "office exit d 2026-11-24T22:00:00Z",
                        "office enter d 2026-11-25T14:00:00Z", "office exit d 2026-11-25T22:00:00Z",
                        "office enter d 2026-11-26T14:00:00Z", "office exit d 2026-11-26T22:00:00Z",
                        "office enter d 2026-11-27T14:00:00Z", "office exit d 2026-11-27T22:00:00Z"])
    }

    @Test func aWeeklyOpeningInTheSpringForwardGapMovesByTheGap() {
        // New York, 2027-03-14: 02:00 -> 03:00. A window opening at 02:30 opens at 03:30 EDT (07:30Z).
        let plan = FenceWindowPlan(FenceWindow(schedule: .weekly(weekdays: [], opens: .init(hour: 2, minute: 30), closes: .init(hour: 4)),
                                               timeZone: TimeZone(identifier: "America/New_York")), floatingTimeZone: .gmt)
        let before = Timestamp.parseMillis("2027-03-14T06:00:00Z") ?? 0
        #expect(plan.state(at: before).armed == false)
        #expect(plan.state(at: before).next == Timestamp.parseMillis("2027-03-14T07:30:00Z"))
        #expect(plan.state(at: (Timestamp.parseMillis("2027-03-14T07:30:00Z") ?? 0)).next == Timestamp.parseMillis("2027-03-14T08:00:00Z"))
    }

    @Test func aFloatingWindowFollowsTheEvaluatorsZone() {
        // 09:00-17:00 floating; the stream starts in UTC, then the zone moves to New York.
        let r = ruledRequest("shop", rules: "\"window\": {\"opens\": \"09:00\", \"closes\": \"17:00\", \"enterAtOpening\": true}")
        var h = StreamHarness(requests: r)
        _ = h.feed(["{\"device\": \"d\", \"t\": \"2026-11-23T08:00:00Z\", \"lat\": 40, \"lon\": -74}"])
        h.evaluator.setFloatingTimeZone(TimeZone(identifier: "America/New_York") ?? .gmt)
        // Not 09:00Z any more: 09:00 in New York is 14:00Z.
        #expect(h.feedBrief(["{\"t\": \"2026-11-23T15:00:00Z\"}"]) == ["shop enter d 2026-11-23T14:00:00Z"])
    }

    @Test func anOvernightWindowClosesTheNextMorning() {
        let plan = FenceWindowPlan(FenceWindow(schedule: .weekly(weekdays: [6], opens: .init(hour: 22), closes: .init(hour: 6)),
                                               timeZone: .gmt), floatingTimeZone: .gmt)
        // Friday 2026-11-27 22:00Z to Saturday 06:00Z.
        let friday = Timestamp.parseMillis("2026-11-27T23:00:00Z") ?? 0
        #expect(plan.state(at: friday).armed)
        #expect(plan.state(at: friday).next == Timestamp.parseMillis("2026-11-28T06:00:00Z"))
        #expect(plan.state(at: friday - 2 * 3_600_000).armed == false)
    }
}
