import Foundation
import Synchronization

/// A time zone's UTC offsets as a table of transitions, built once per zone from Foundation's
/// `TimeZone` and shared by reference between every compiled trigger in that zone.
///
/// `TimeZone.nextDaylightSavingTimeTransition(after:)` reports every change of UTC offset (not
/// only daylight saving: Pacific/Apia's skipped day, Africa/Casablanca's Ramadan changes), so
/// walking it from ``startMillis`` to ``endMillis`` gives every offset the zone had. Outside
/// that range the engine asks Foundation instead.
///
/// Invariants (checked by `_checkInvariants()` in debug builds):
/// `offsets.count == transitions.count + 1`; `transitions` strictly increasing inside
/// `startMillis..<endMillis`; `offsets[k]` applies from `transitions[k - 1]` (or the table's
/// start) up to `transitions[k]`; `wallLow[k] == min(before, after)` and
/// `wallHigh[k] == max(before, after)` where before/after are the wall clocks on either side
/// of transition `k`.
@_spi(Engine) public final class ZoneTable: Sendable {
    /// The zone the table describes.
    public let timeZone: TimeZone
    /// First and last instants (epoch ms) the table answers for.
    public let startMillis: Int64
    public let endMillis: Int64
    /// UTC instants (epoch ms) at which the offset changes.
    let transitions: [Int64]
    /// UTC offset in milliseconds of each segment between transitions.
    let offsets: [Int64]
    /// Wall-clock milliseconds (local epoch) bounding each transition's gap (offset grows) or
    /// fold (offset shrinks): `wallLow[k]..<wallHigh[k]` either does not exist or occurs twice.
    let wallLow: [Int64]
    let wallHigh: [Int64]
    /// Years covered by default tables.
    public static let defaultYears: ClosedRange<Int> = 1900...2200
    /// The last year a table covers when the zone's offset never changes after
    /// ``defaultYears`` (UTC, fixed offsets, zones that gave up daylight saving, as Foundation
    /// reports them): every supported date (up to 9999) plus the searches' room.
    static let constantLastYear = 10_050
    /// Room the native searches need before the table's end (years).
    static let searchRoomYears = 50

    /// The last year the table covers: ``defaultYears``' upper bound, or ``constantLastYear``.
    let lastYear: Int
    /// Instants before this are answered natively: the table's end less the searches' room
    /// (2151 for a default table; past every supported date for a constant zone).
    let nativeEnd: Int64

    init(timeZone: TimeZone, years: ClosedRange<Int> = ZoneTable.defaultYears) {
        self.timeZone = timeZone
        let start = Int64(CivilDate.days(year: years.lowerBound, month: 1, day: 1)) * 86_400_000
        var end = Int64(CivilDate.days(year: years.upperBound + 1, month: 1, day: 1)) * 86_400_000
        // No offset change after the years walked: the last offset holds to the end of
        // supported dates, and so does the table (without another entry). Before 1582 the
        // Gregorian calendar itself is Julian in Foundation, so the start is never extended.
        var last = years.upperBound
        if timeZone.nextDaylightSavingTimeTransition(after: Timestamp.date(millis: end)) == nil {
            last = Swift.max(last, Self.constantLastYear)
            end = Int64(CivilDate.days(year: last + 1, month: 1, day: 1)) * 86_400_000
        }
        lastYear = last
        nativeEnd = Int64(CivilDate.days(year: last + 1 - Self.searchRoomYears, month: 1, day: 1)) * 86_400_000
        startMillis = start
        endMillis = end
        var transitions: [Int64] = []
        var offsets: [Int64] = [Int64(timeZone.secondsFromGMT(for: Timestamp.date(millis: start))) * 1000]
        var t = Timestamp.date(millis: start)
        while let next = timeZone.nextDaylightSavingTimeTransition(after: t) {
            let ms = Timestamp.millis(next)
            if ms >= end || next <= t { break }
            let off = Int64(timeZone.secondsFromGMT(for: next)) * 1000
            if let last = offsets.last, last == off {
                // A change of DST flag or name only: not an offset change.
            } else {
                transitions.append(ms)
                offsets.append(off)
            }
            t = next
        }
        var lo: [Int64] = [], hi: [Int64] = []
        lo.reserveCapacity(transitions.count)
        for (k, tr) in transitions.enumerated() {
            let before = tr + offsets[k], after = tr + offsets[k + 1]
            lo.append(min(before, after))
            hi.append(max(before, after))
        }
        self.transitions = transitions
        self.offsets = offsets
        self.wallLow = lo
        self.wallHigh = hi
        #if DEBUG
        _checkInvariants()
        #endif
    }

    /// Whether `millis` lies inside the table's range.
    @inlinable
    func covers(_ millis: Int64) -> Bool { millis >= startMillis && millis < endMillis }

    /// Index of the segment containing the UTC instant `t` (0...transitions.count).
    /// O(log n) in the number of transitions (about 600 for a zone with DST over 300 years).
    @inline(__always)
    func segment(atUTC t: Int64) -> Int { transitions.upperBound(of: t) }

    /// The UTC offset (ms) in force at `t`.
    @inline(__always)
    func offset(atUTC t: Int64) -> Int64 { offsets[segment(atUTC: t)] }

    /// Whether any offset change happens in [from, to]. O(log n).
    func hasTransition(from: Int64, to: Int64) -> Bool {
        segment(atUTC: from - 1) != segment(atUTC: to)
    }

    /// How a wall-clock instant (local epoch ms) maps to UTC.
    enum WallResolution: Equatable {
        /// The wall time occurs once.
        case unique(Int64)
        /// The wall time falls in a gap; `shifted` is it read with the offset before the gap
        /// (wall time + gap length).
        case gap(shifted: Int64)
        /// The wall time occurs twice.
        case fold(first: Int64, second: Int64)
    }

    /// Resolves a wall-clock instant. O(log n).
    @inline(__always)
    func resolve(wall w: Int64) -> WallResolution {
        // Last transition whose affected wall range starts at or before w.
        let k = wallLow.upperBound(of: w) - 1
        if k < 0 { return .unique(w - offsets[0]) }
        if w < wallHigh[k] {
            let before = offsets[k], after = offsets[k + 1]
            if after > before { return .gap(shifted: w - before) }
            return .fold(first: w - before, second: w - after)
        }
        return .unique(w - offsets[k + 1])
    }

    #if DEBUG
    func _checkInvariants() {
        assert(offsets.count == transitions.count + 1)
        for k in 1..<max(1, transitions.count) { assert(transitions[k] > transitions[k - 1]) }
        for k in 0..<wallLow.count { assert(wallLow[k] < wallHigh[k]) }
    }
    #endif
}

@_spi(Engine) extension ZoneTable {
    private static let cache = Mutex<[String: ZoneTable]>([:])

    /// The shared table of `zone`, built on first use (about 1 ms for a zone with DST) and
    /// cached for the life of the process. Thread-safe.
    public static func shared(_ zone: TimeZone) -> ZoneTable {
        let id = zone.identifier
        if let t = cache.withLock({ $0[id] }) { return t }
        let built = ZoneTable(timeZone: zone)
        return cache.withLock { c in
            if let t = c[id] { return t }
            c[id] = built
            return built
        }
    }
}
