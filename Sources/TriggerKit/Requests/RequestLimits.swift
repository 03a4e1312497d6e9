import Foundation

/// The limits every way in enforces (requests file, stream line, library call): one place,
/// so the validator, the stream reader and the documentation agree.
public enum RequestLimits: Sendable {
    // (The millisecond forms are the package's own: users see ``supportedDates``.)
    /// Earliest supported instant: 0001-01-01T00:00:00Z (epoch milliseconds).
    @usableFromInline package static let earliestMillis: Int64 = -62_135_596_800_000
    /// Latest supported instant: 9999-12-31T23:59:59.999Z (epoch milliseconds).
    @usableFromInline package static let latestMillis: Int64 = 253_402_300_799_999
    /// Supported instants, as epoch milliseconds. A date outside is refused with a clear
    /// error (`invalidRequest` / `invalidTrigger` for requests, an error line for streams),
    /// and no fire is ever computed beyond it.
    @usableFromInline package static let supportedMillis: ClosedRange<Int64> = earliestMillis...latestMillis
    /// Supported instants, as dates. A date is taken at the millisecond it falls in, as
    /// dates read from text are: one in the last millisecond's fraction (9999-12-31T23:59:59.9995)
    /// is supported.
    public static let supportedDates: ClosedRange<Date> =
        Date(timeIntervalSince1970: Double(earliestMillis) / 1000)...Date(timeIntervalSince1970: Double(latestMillis) / 1000)
    /// Longest time interval of a trigger: 100 years of 365.25 days, in seconds.
    public static let maximumTimeInterval: TimeInterval = 100 * 365.25 * 86_400
    /// Shortest interval of a repeating time-interval trigger (Apple's rule), in seconds.
    public static let minimumRepeatingInterval: TimeInterval = 60
    /// Longest identifier, device id or region identifier, in UTF-8 bytes.
    public static let maximumIdentifierBytes = 1_024
    /// Largest circle radius, in metres.
    public static let maximumRadius = 1_000_000.0
    /// Most dates or fires one query returns (`next --count`, `--limit`, upcoming fires).
    public static let maximumQueryCount = 100_000

    /// Whether epoch milliseconds are within ``supportedMillis``.
    @inlinable
    package static func isSupported(millis: Int64) -> Bool { supportedMillis.contains(millis) }

    /// What is wrong with a saved date (`field` names it), or `nil` when it is supported: the
    /// one wording of a damaged state's dates, for a restore and for a listing alike.
    package static func damagedDate(_ millis: Int64, _ field: @autoclosure () -> String) -> String? {
        isSupported(millis: millis) ? nil : "\(field()) is \(millis) ms since 1970, outside years 1-9999"
    }

    /// Whether `date` is a number within ``supportedDates``. (Use this, not
    /// `supportedDates.contains`: a NaN date is "contained", `Date`'s `<=` being `!(b < a)`.)
    package static func isSupported(_ date: Date) -> Bool { millis(date) != nil }

    /// Epoch milliseconds of a date within ``supportedDates``, or `nil` (NaN, infinite,
    /// out of range): the checked conversion every input path uses.
    package static func millis(_ date: Date) -> Int64? {
        let s = date.timeIntervalSince1970
        // Judged on the millisecond the date falls in, as the JSON and ISO 8601 readers judge
        // theirs: 9999-12-31T23:59:59.9995 was refused as a `Date` and accepted as text (a
        // helper's find).
        guard s.isFinite, s >= Double(earliestMillis) / 1000, s < Double(latestMillis + 1) / 1000 else { return nil }
        return Timestamp.millis(date)
    }
}
