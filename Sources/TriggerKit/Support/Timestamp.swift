import Foundation

/// ISO 8601 timestamps to and from epoch milliseconds, the engine's unit of time.
///
/// Written by hand because the stream reader parses one per line: `ISO8601DateFormatter`
/// costs about 26 us and `Date.ISO8601FormatStyle` about 0.5 us per timestamp on this
/// hardware, this one tens of nanoseconds.
@_spi(Engine) public enum Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|+HHMM|+HH)` (`T` may also be `t` or a
    /// space, `Z` may be `z`). Fractions beyond milliseconds are truncated toward the past.
    /// Returns `nil` for anything else, including impossible fields (month 13, 25:00).
    public static func parseMillis(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var cache = DayCache()
        return parseMillis(b, cache: &cache)
    }

    /// The day number of the last validated `YYYY-MM-DD` prefix. Lines of a stream share their
    /// date, so a reader that keeps one skips re-validating the date and recomputing its day
    /// number when the 10 prefix bytes equal the previous ones (two integer comparisons).
    struct DayCache {
        /// Bytes 0..<8 and 8..<10 of the prefix, as loaded; `valid` is false until one is set.
        var head: UInt64 = 0
        var tail: UInt16 = 0
        var days = 0
        var valid = false
    }

    /// ``parseMillis(_:)-(UnsafeBufferPointer<UInt8>)`` reusing (and updating) `cache`.
    @inline(__always)
    static func parseMillis(_ b: UnsafeBufferPointer<UInt8>, cache: inout DayCache) -> Int64? {
        let n = b.count
        guard n >= 20, let base = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let head = raw.loadUnaligned(as: UInt64.self)
        let tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        let days: Int
        @inline(__always) func digit(_ k: Int) -> Int? {
            let d = b[k] &- 0x30
            return d < 10 ? Int(d) : nil
        }
        @inline(__always) func two(_ k: Int) -> Int? {
            guard let a = digit(k), let c = digit(k + 1) else { return nil }
            return a * 10 + c
        }
        if cache.valid, cache.head == head, cache.tail == tail {
            days = cache.days
        } else {
            guard let y1 = two(0), let y2 = two(2), b[4] == 0x2D, let mo = two(5), b[7] == 0x2D, let d = two(8)
            else { return nil }
            let year = y1 * 100 + y2
            guard (1...12).contains(mo), d >= 1, d <= CivilDate.daysInMonth(year: year, month: mo) else { return nil }
            days = CivilDate.days(year: year, month: mo, day: d)
            cache = DayCache(head: head, tail: tail, days: days, valid: true)
        }
        guard b[10] == 0x54 || b[10] == 0x74 || b[10] == 0x20,
              let h = two(11), b[13] == 0x3A, let mi = two(14), b[16] == 0x3A, let s = two(17),
              h <= 23, mi <= 59, s <= 60 else { return nil }
        var k = 19
        var millis = 0
        if k < n, b[k] == 0x2E {
            k += 1
            var scale = 100
            let start = k
            while k < n, let dd = digit(k) {
                millis += dd * scale
                scale /= 10
                k += 1
            }
            guard k > start else { return nil }
        }
        guard k < n else { return nil }
        var offsetSeconds = 0
        switch b[k] {
        case 0x5A, 0x7A:  // Z z
            k += 1
        case 0x2B, 0x2D:  // + -
            let sign = b[k] == 0x2D ? -1 : 1
            k += 1
            guard k + 2 <= n, let oh = two(k) else { return nil }
            k += 2
            var om = 0
            if k < n {
                if b[k] == 0x3A { k += 1 }
                guard k + 2 <= n, let m2 = two(k) else { return nil }
                om = m2
                k += 2
            }
            guard oh <= 23, om <= 59 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard k == n else { return nil }
        let secs = Int64(days) * 86_400 + Int64(h * 3600 + mi * 60 + s) - Int64(offsetSeconds)
        return secs * 1000 + Int64(millis)
    }

    /// Parses a timestamp string; see ``parseMillis(_:)-(UnsafeBufferPointer<UInt8>)``.
    public static func parseMillis(_ text: String) -> Int64? {
        var t = text
        return t.withUTF8 { parseMillis($0) }
    }

    /// Appends the contract's form of an instant: UTC, `Z`, milliseconds only when non-zero.
    public static func append(millis: Int64, to out: inout [UInt8]) {
        let secs = CivilDate.floorDiv(millis, 1000)
        let ms = Int(millis - secs * 1000)
        let days = Int(CivilDate.floorDiv(secs, 86_400))
        let sod = Int(secs - Int64(days) * 86_400)
        let (y, m, d) = CivilDate.ymd(days: days)
        @inline(__always) func put2(_ v: Int) {
            out.append(UInt8(0x30 + v / 10)); out.append(UInt8(0x30 + v % 10))
        }
        if y < 0 || y > 9999 {
            out.append(contentsOf: Array(String(y).utf8))
        } else {
            put2(y / 100); put2(y % 100)
        }
        out.append(0x2D); put2(m); out.append(0x2D); put2(d)
        out.append(0x54); put2(sod / 3600); out.append(0x3A); put2(sod / 60 % 60); out.append(0x3A); put2(sod % 60)
        if ms != 0 {
            out.append(0x2E)
            out.append(UInt8(0x30 + ms / 100)); put2(ms % 100)
        }
        out.append(0x5A)
    }

    /// The first 19 bytes of ``append(millis:to:)``'s text for the second `secs` (epoch
    /// seconds), `YYYY-MM-DDTHH:MM:SS`, packed in memory order; nil for a year outside
    /// 0...9999 (written otherwise there).
    static func secondText(_ secs: Int64) -> (UInt64, UInt64, UInt64)? {
        var text: [UInt8] = []
        text.reserveCapacity(24)
        append(millis: secs &* 1000, to: &text)
        guard text.count == 20 else { return nil }  // (with the closing "Z")
        var packed: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &packed) { $0.copyBytes(from: text[..<19]) }
        return packed
    }

    /// The contract's string form of an instant.
    public static func string(millis: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(millis: millis, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whole milliseconds of `seconds` since 1970, truncated (towards the earlier instant) as
    /// an ISO 8601 date's further digits are: `1795248000.9999` is `...000.999`, the instant
    /// `"2026-11-21T08:00:00.9999Z"` reads as (numbers were rounded, to `...001.000`, so the
    /// two forms of one instant differed, and the later fix was stale; found by a helper). A
    /// product within four units in the last place of a whole number is that number: the
    /// `Double` of a decimal like `1795248000.001` times 1000 falls just below it.
    @inlinable
    public static func wholeMillis(seconds: Double) -> Double {
        let ms = seconds * 1000
        let whole = ms.rounded()
        return abs(ms - whole) <= 4 * whole.ulp ? whole : ms.rounded(.down)
    }

    /// Epoch milliseconds of a `Date`, truncated as ``wholeMillis(seconds:)`` says, clamped to
    /// the supported range (``RequestLimits/supportedMillis``; NaN gives its lower end). Total:
    /// inputs are validated before they get here, and a date that was not cannot trap.
    ///
    /// A `Date` holds seconds since 2001: one made from a whole millisecond since 1970 is off
    /// by up to a unit in the last place of 978,307,200 s's magnitude, however close to 1970
    /// or 2001 it is, so that much (eight units, for the conversions both ways and the product)
    /// still reads as the whole millisecond. (Four units of the value alone read dates near
    /// 2001 one millisecond early: found by a reviewer.)
    @inlinable
    public static func millis(_ date: Date) -> Int64 {
        let exact = date.timeIntervalSince1970 * 1000
        let whole = exact.rounded()
        let ms = abs(exact - whole) <= 8 * Swift.max(abs(whole), 978_307_200_000).ulp ? whole : exact.rounded(.down)
        guard ms >= Double(RequestLimits.earliestMillis) else { return RequestLimits.earliestMillis }
        guard ms <= Double(RequestLimits.latestMillis) else { return RequestLimits.latestMillis }
        return Int64(ms)
    }

    /// The `Date` of epoch milliseconds.
    @inlinable
    public static func date(millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
