/// Time-of-day matching in milliseconds of the (wall-clock) day.
extension CalendarPattern {
    static let msPerDay = 86_400_000

    /// The first time of day at or after `t` (ms since local midnight) matching hour, minute,
    /// second and millisecond, or `nil` if none is left that day. O(1): at most a few carries.
    @inline(__always)
    func nextTimeOfDay(atOrAfter t: Int) -> Int? {
        var h = t / 3_600_000, m = t / 60_000 % 60, s = t / 1000 % 60
        let f = Int(millisecond)
        if t % 1000 > f { s += 1 }
        let H = Int(hour), M = Int(minute), S = Int(second)
        while true {
            if s > 59 { s = 0; m += 1 }
            if m > 59 { m = 0; h += 1 }
            if h > 23 { return nil }
            if H >= 0, h != H {
                if h > H { return nil }
                h = H; m = 0; s = 0
                continue
            }
            if M >= 0, m != M {
                if m < M { m = M } else { m = 60 }
                s = 0
                continue
            }
            if S >= 0, s != S {
                s = s < S ? S : 60
                continue
            }
            return ((h * 60 + m) * 60 + s) * 1000 + f
        }
    }
}
