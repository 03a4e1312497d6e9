/// Proleptic Gregorian civil-date arithmetic on day numbers (days since 1970-01-01).
///
/// These are Howard Hinnant's `days_from_civil` / `civil_from_days` algorithms
/// (http://howardhinnant.github.io/date_algorithms.html), exact for every date representable
/// in `Int64` days; they are the base of both timestamp parsing and the calendar engine.
@_spi(Engine) public enum CivilDate {
    /// Day number (days since 1970-01-01) of a proleptic Gregorian date. `month` is 1...12;
    /// `day` may exceed the month's length, in which case the result rolls into the next month.
    @inlinable
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The (year, month, day) of a day number.
    @inlinable
    public static func ymd(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// Weekday of a day number, 1 = Sunday ... 7 = Saturday (Foundation's numbering).
    @inlinable
    public static func weekday(days: Int) -> Int {
        // 1970-01-01 was a Thursday (5).
        let w = (days + 4) % 7
        return (w < 0 ? w + 7 : w) + 1
    }

    @inlinable
    public static func isLeapYear(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    @inlinable
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Floor division for negative numerators (Swift's `/` truncates toward zero).
    @inlinable
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
