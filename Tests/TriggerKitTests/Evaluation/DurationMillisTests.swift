import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Durations in seconds (`--dwell`, a fence's dwell, the clock-jump limit, the catch-up
/// window) become whole milliseconds as the decimal written means them. Truncated, 1.001 s
/// was 1000 ms (`1.001 * 1000` is 1000.9999999999999), and `--dwell 0.0005` was no dwell at
/// all: found by a differential test against the contract's reference (`georef.py`).
@Suite("Durations in seconds as milliseconds")
struct DurationMillisTests {
    /// A fix line around the circle of ``circleRequest(_:radius:entry:exit:repeats:device:addedAt:expiresAt:rules:)``,
    /// at `ms` milliseconds into the test stream.
    static func fixAt(ms: Int64, north metres: Double) -> String {
        let t = Timestamp.string(millis: 1_795_770_000_000 + ms)
        return "{\"device\": \"d\", \"t\": \"\(t)\", \"lat\": \(40.0 + metres / 111_034.0), \"lon\": -74.0}"
    }

    static func date(ms: Int64) -> String { Timestamp.string(millis: 1_795_770_000_000 + ms) }

    @Test func everyDecimalOfWholeMillisecondsIsThatMany() {
        var truncatedWrong = 0
        for k in 1...99_999 {
            let seconds = Double("\(k / 1000).\(String(format: "%03d", k % 1000))")!
            #expect(DurationMillis.atLeast(seconds) == Int64(k), "\(seconds)")
            #expect(DurationMillis.atMost(seconds) == Int64(k), "\(seconds)")
            if Int64(seconds * 1000) != Int64(k) { truncatedWrong += 1 }
        }
        // What truncation got wrong (the helper counted 741 of them): the test is not vacuous.
        #expect(truncatedWrong > 0)
    }

    @Test func aFractionOfAMillisecondRoundsAsTheComparisonNeeds() {
        #expect(DurationMillis.atLeast(0.0005) == 1)
        #expect(DurationMillis.atMost(0.0005) == 0)
        #expect(DurationMillis.atLeast(1.0004) == 1001)
        #expect(DurationMillis.atMost(1.0004) == 1000)
        #expect(DurationMillis.atLeast(366 * 86_400 + 0.0001) == 366 * 86_400_000 + 1)
        // Nothing traps.
        for bad in [0, -1, -.infinity, .nan, -.nan] as [Double] {
            #expect(DurationMillis.atLeast(bad) == 0 && DurationMillis.atMost(bad) == 0)
        }
        #expect(DurationMillis.atLeast(.infinity) == 1_000_000_000_000_000_000)
        #expect(DurationMillis.atMost(1e300) == 1_000_000_000_000_000_000)
    }

    /// `--dwell 1.001`: the exit is confirmed by the first fix 1.001 s after it began, not
    /// by one 1.000 s after.
    @Test func aDwellOfOneSecondAndAMillisecond() {
        var h = StreamHarness(requests: circleRequest("a"), options: StreamOptions(dwell: 1.001))
        let out = h.feedBrief([Self.fixAt(ms: 0, north: 0), Self.fixAt(ms: 60_000, north: 300),
                               Self.fixAt(ms: 61_000, north: 300), Self.fixAt(ms: 61_001, north: 300)])
        #expect(out == ["a exit d \(Self.date(ms: 61_001))"])
    }

    /// `--dwell 0.0005` is a dwell: the crossing is confirmed by the next fix, a millisecond
    /// later, not by the first fix on the new side.
    @Test func aDwellOfHalfAMillisecondIsADwell() {
        var h = StreamHarness(requests: circleRequest("a"), options: StreamOptions(dwell: 0.0005))
        let out = h.feedBrief([Self.fixAt(ms: 0, north: 0), Self.fixAt(ms: 60_000, north: 300), Self.fixAt(ms: 60_001, north: 300)])
        #expect(out == ["a exit d \(Self.date(ms: 60_001))"])
    }

    /// A fence's dwell of 1.0004 s fires at 1.001 s (rounded, it fired at 1.000 s).
    @Test func aFenceDwellOfAFractionOfAMillisecond() {
        var h = StreamHarness(requests: ruledRequest("cafe", entry: false, exit: false, rules: "\"dwell\": {\"inside\": 1.0004}"))
        let out = h.feedBrief([fix("d", 0, north: 500), fix("d", 10, north: 0), clock(11), clock(11, ms: 1)])
        #expect(out == ["cafe dwellInside d \(at(11, ms: 1))"])
    }

    /// `--max-clock-jump 1.001` lets the clock move 1.001 s at once (truncated to 1000 ms, it
    /// refused that line), and no more.
    @Test func aClockJumpLimitOfOneSecondAndAMillisecond() {
        var options = StreamOptions()
        options.maxClockJump = 1.001
        var h = StreamHarness(requests: circleRequest("a"), options: options)
        _ = h.feed([Self.fixAt(ms: 0, north: 500), Self.fixAt(ms: 1_001, north: 500), Self.fixAt(ms: 2_003, north: 500)])
        #expect(h.errors.count == 1)
        #expect(h.errors.first?.hasPrefix("line 3: clock jump of 1.002 s") == true, "\(h.errors)")
    }
}
