import Synchronization

/// How often the calendar engine has asked Foundation instead of answering natively, since
/// the process started (or the last ``reset()``), by reason.
///
/// The native engine covers the Gregorian and ISO 8601 calendars from 1583 to 9999 (in every
/// zone: see ``ZoneTable``); Foundation answers only for other calendars, instants before
/// 1583 and triggers with `era` or `nanosecond`. Benchmarks and `triggerkit next` report these
/// counts so that a fallback on a common trigger shows up as a number, not as a slow run.
/// Counting takes a lock per fallback, noise beside the fallback itself (10-100 us).
@_spi(Engine) public enum CalendarFallbacks {
    /// Why Foundation answered.
    public enum Reason: Int, CaseIterable, Sendable, CustomStringConvertible {
        /// A calendar other than Gregorian or ISO 8601 (Hebrew, Japanese, ...).
        case otherCalendar
        /// A reference or fixed year outside the zone tables (before 1583; after 2550 in a zone
        /// whose offsets would neither stay fixed nor repeat, which none does today).
        case outsideTables
        /// Fields the native engine does not re-enact Foundation's search for (`era`,
        /// `nanosecond`), or a search step it does not follow (Foundation's search stopping
        /// on a step that does not advance).
        case unmodelledMix

        public var description: String {
            switch self {
            case .otherCalendar: "other calendar"
            case .outsideTables: "outside the zone tables"
            case .unmodelledMix: "unmodelled component mix"
            }
        }
    }

    // A fallback costs 10-100 us, so a lock per count is noise.
    private static let counts = Mutex([Int](repeating: 0, count: Reason.allCases.count))

    /// Records one fallback.
    static func record(_ reason: Reason) {
        counts.withLock { $0[reason.rawValue] += 1 }
    }

    /// The number of fallbacks for `reason`.
    public static func count(_ reason: Reason) -> Int {
        counts.withLock { $0[reason.rawValue] }
    }

    /// The number of fallbacks of every reason.
    public static var total: Int {
        Reason.allCases.reduce(0) { $0 + count($1) }
    }

    /// Sets every count to zero.
    public static func reset() {
        counts.withLock { $0 = [Int](repeating: 0, count: Reason.allCases.count) }
    }
}
