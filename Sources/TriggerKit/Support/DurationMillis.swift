/// Durations given in seconds (`--dwell`, a fence's dwell, the clock-jump limit, the catch-up
/// window) as whole milliseconds, to compare with the stream's millisecond times as the
/// decimal the user wrote means them.
///
/// `seconds * 1000` is not that decimal: 1.001 s is 1000.9999999999999 ms as a `Double`, and
/// truncated it was 1000 ms, so `--dwell 1.001` confirmed a crossing 1.000 s after it began,
/// and `--dwell 0.0005` became 0 ms, no dwell at all (found by a differential test against the
/// contract's reference). A product within four units in the last place of a whole number of
/// milliseconds (the error of reading the decimal and of the product together is under two)
/// is that number; any other is a fraction of a millisecond, rounded the way the comparison
/// needs.
enum DurationMillis {
    /// The fewest whole milliseconds that last at least `seconds`: for "confirmed by the first
    /// fix with t >= t0 + S" on a clock that counts milliseconds. NaN and negative durations
    /// are 0, and durations past 10^15 s are 10^15 s (no input traps).
    static func atLeast(_ seconds: Double) -> Int64 {
        let ms = clamped(seconds) * 1000
        let whole = ms.rounded()
        return Int64(abs(ms - whole) <= 4 * whole.ulp ? whole : ms.rounded(.up))
    }

    /// The most whole milliseconds that do not exceed `seconds`: for "more than S" (a whole
    /// number of milliseconds is more than S exactly when it is more than this). Clamped as
    /// ``atLeast(_:)``.
    static func atMost(_ seconds: Double) -> Int64 {
        let ms = clamped(seconds) * 1000
        let whole = ms.rounded()
        return Int64(abs(ms - whole) <= 4 * whole.ulp ? whole : ms.rounded(.down))
    }

    private static func clamped(_ seconds: Double) -> Double {
        seconds > 0 ? Swift.min(seconds, 1e15) : 0  // (NaN > 0 is false)
    }
}
