import Foundation

/// The clock-jump rule, one for `run --max-clock-jump` (``StreamOptions/maxClockJump``) and
/// `serve --clock stream` (a tenant's `maxClockJumpSeconds`): an input that moves stream time
/// forward by more than the limit is refused and nothing of it is applied. `nil` is no limit;
/// `0` refuses every forward move. The same limit bounds how far back catch-up delivers fires
/// one by one (7 days without a limit).
package enum ClockJumpRule {
    /// A limit in seconds (`nil`: none) as milliseconds (`Int64.max`: none). Negative and NaN
    /// limits never pass the option checks; here they read as none.
    package static func limitMillis(_ seconds: TimeInterval?) -> Int64 {
        guard let j = seconds, j.isFinite, j >= 0 else { return .max }
        return DurationMillis.atMost(Swift.min(j, 1e15))
    }

    /// The catch-up window that goes with a limit (milliseconds).
    package static func catchUpWindowMillis(limit: Int64) -> Int64 {
        limit == .max ? Int64(StreamOptions.defaultMaxClockJump * 1000) : limit
    }

    /// Why a move of stream time from `now` to `t` is refused, or nil. `limitName` is how the
    /// way in names the limit (`--max-clock-jump`, `the tenant's maxClockJumpSeconds`) and
    /// `what` what is not applied (`line`, `fix`, `clock`).
    package static func refusal(from now: Int64, to t: Int64, limit: Int64, limitName: String, what: String = "line") -> String? {
        guard t > now, limit < Int64.max, t &- now > limit else { return nil }
        return "clock jump of \(Double(t &- now) / 1000) s (from \(Timestamp.string(millis: now)) to \(Timestamp.string(millis: t))) "
            + "exceeds \(limitName) \(Double(limit) / 1000) s; \(what) not applied"
    }
}
