import Foundation

/// A ``FenceWindow`` compiled for evaluation: whether the fence is armed at an instant, and
/// when that next changes. Weekly hours are matched by the calendar engine
/// (``CalendarSchedule``, the same rules as calendar triggers: a time in a DST gap moves by
/// the gap, a repeated time counts at its first occurrence); intervals by binary search.
struct FenceWindowPlan: Sendable {
    private enum Shape: Sendable {
        /// One opening schedule per weekday (or one for every day) and the closing time.
        case weekly(opens: [CalendarSchedule], closes: CalendarSchedule)
        /// Sorted, disjoint `[start, end)` in epoch ms.
        case intervals(starts: [Int64], ends: [Int64])
    }

    private let shape: Shape
    /// The longest stretch between two openings a weekly window can have, plus a day.
    private static let searchBack: Int64 = 8 * 86_400_000

    init(_ w: FenceWindow, floatingTimeZone: TimeZone) {
        switch w.schedule {
        case .weekly(let days, let opens, let closes):
            func schedule(_ t: FenceWindow.TimeOfDay, weekday: Int?) -> CalendarSchedule {
                var c = DateComponents(timeZone: w.timeZone, hour: t.hour, minute: t.minute, second: t.second)
                c.weekday = weekday
                return CalendarSchedule(CalendarTrigger(dateMatching: c, repeats: true), floatingTimeZone: floatingTimeZone)
            }
            let openings = days.isEmpty ? [schedule(opens, weekday: nil)] : days.map { schedule(opens, weekday: $0) }
            shape = .weekly(opens: openings, closes: schedule(closes, weekday: nil))
        case .intervals(let list):
            shape = .intervals(starts: list.map { Timestamp.millis($0.start) }, ends: list.map { Timestamp.millis($0.end) })
        }
    }

    /// Whether the fence is armed at `t` (an opening counts, a closing does not), and the
    /// next instant after `t` at which that changes (`nil`: never).
    func state(at t: Int64) -> (armed: Bool, next: Int64?) {
        switch shape {
        case .weekly(let opens, let closes):
            // The latest opening at or before t: walk the openings of the last 8 days.
            var last: Int64?
            var o = opening(after: t &- Self.searchBack, opens)
            while let x = o, x <= t {
                last = x
                o = opening(after: x, opens)
            }
            if let l = last, let c = closes.nextFire(afterMillis: l), c > t { return (true, c) }
            return (false, o)
        case .intervals(let starts, let ends):
            // The first interval ending after t.
            var lo = 0, hi = ends.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if ends[mid] <= t { lo = mid + 1 } else { hi = mid }
            }
            guard lo < ends.count else { return (false, nil) }
            return starts[lo] <= t ? (true, ends[lo]) : (false, starts[lo])
        }
    }

    private func opening(after t: Int64, _ opens: [CalendarSchedule]) -> Int64? {
        var best: Int64?
        for s in opens {
            if let x = s.nextFire(afterMillis: t), x < (best ?? .max) { best = x }
        }
        return best
    }
}
