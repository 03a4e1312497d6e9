import Foundation
import Synchronization

/// A time zone's UTC offsets as a table of transitions, built once per zone from Foundation's
/// `TimeZone` and shared by reference between every compiled trigger in that zone.
///
/// `TimeZone.nextDaylightSavingTimeTransition(after:)` reports every change of UTC offset (not
/// only daylight saving: Pacific/Apia's skipped day, Africa/Casablanca's Ramadan changes), so
/// walking it from ``startMillis`` (1583, the first whole year of the Gregorian calendar, which
/// Foundation's is from its 1582 reform on) gives every offset the zone had (local mean time
/// until its first standard offset, with seconds: Paris +0:09:21 until 1911). A zone whose offset
/// never changes after 2200 needs no more (its table reaches 10050 as it is); one whose offsets
/// still change is walked to 2600, and when its changes from 2180 on repeat every 400 years
/// (``periodic``: its final annual rule, checked against Foundation as far as 9800) instants
/// after 2580 are folded back by whole periods. Foundation's 443 zones are all one or the
/// other, so every supported instant from 1583 on is in a table; before 1583 the engine asks
/// Foundation. (The tables began in 1900 until a helper found Foundation's answers before it
/// wrong in zones whose offset had seconds: Paris `{hour 9, minute 0}` in 1899 never fired.)
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
    /// Years every table walks.
    public static let defaultYears: ClosedRange<Int> = 1583...2200
    /// A zone whose offset still changes after ``defaultYears`` is walked on to the end of this
    /// year: room for one 400-year period of its final rule with 20 years on either side.
    static let walkedLastYear = 2600
    /// The last year a table covers when the zone's offset never changes after
    /// ``defaultYears`` (UTC, fixed offsets, zones that gave up daylight saving, as Foundation
    /// reports them), or repeats every 400 years from 2180 on (``periodic``): every supported
    /// date (up to 9999) plus the searches' room.
    static let farLastYear = 10_050
    /// Room the native searches need before the table's end (years).
    static let searchRoomYears = 50
    /// 400 Gregorian years (146,097 days, a whole number of weeks): the calendar repeats, and so
    /// does a zone whose offsets follow one annual rule (Foundation's zones do after their last
    /// listed change, well before 2180).
    static let period: Int64 = 146_097 * 86_400_000
    /// Instants from ``foldEnd`` on are answered at the instant whole periods earlier in
    /// `foldStart..<foldEnd` (2180-2579), when the table is ``periodic``.
    static let foldStart = Int64(CivilDate.days(year: 2180, month: 1, day: 1)) * 86_400_000
    static let foldEnd = foldStart + period

    /// The last year the table covers (``defaultYears``' upper bound, ``walkedLastYear`` or
    /// ``farLastYear``).
    let lastYear: Int
    /// Instants before this are answered natively: the table's end less the searches' room
    /// (2551 for a zone walked to 2600 whose changes do not repeat; past every supported date
    /// for a constant or periodic one).
    let nativeEnd: Int64
    /// Whether the offsets from 2180 on repeat every ``period`` (checked on the walked years
    /// and against Foundation near 9800): instants past the walked years are folded back.
    let periodic: Bool
    /// The end of the walked transitions (the table's own data).
    let walkedEnd: Int64

    init(timeZone: TimeZone, years: ClosedRange<Int> = ZoneTable.defaultYears) {
        self.timeZone = timeZone
        let start = Int64(CivilDate.days(year: years.lowerBound, month: 1, day: 1)) * 86_400_000
        func yearStart(_ y: Int) -> Int64 { Int64(CivilDate.days(year: y, month: 1, day: 1)) * 86_400_000 }
        var transitions: [Int64] = []
        var offsets: [Int64] = [Int64(timeZone.secondsFromGMT(for: Timestamp.date(millis: start))) * 1000]
        func walk(from t0: Date, to end: Int64) {
            for c in Self.offsetChanges(timeZone, after: t0, before: end, from: offsets[offsets.count - 1]) {
                transitions.append(c.instant)
                offsets.append(c.offset)
            }
        }
        var end = yearStart(years.upperBound + 1)
        walk(from: Timestamp.date(millis: start), to: end)
        // Before 1582 the Gregorian calendar itself is Julian in Foundation: the start is
        // never moved earlier.
        var last = years.upperBound
        var periodic = false
        if timeZone.nextDaylightSavingTimeTransition(after: Timestamp.date(millis: end)) == nil {
            // No offset change after the years walked: the last offset holds to the end of
            // supported dates, and so does the table (without another entry).
            last = Swift.max(last, Self.farLastYear)
        } else if years.upperBound < Self.walkedLastYear {
            let walkedTo = yearStart(Self.walkedLastYear + 1)
            walk(from: Timestamp.date(millis: end - 1), to: walkedTo)
            end = walkedTo
            last = Self.walkedLastYear
            periodic = Self.repeatsEveryPeriod(timeZone, transitions: transitions, offsets: offsets)
            if periodic { last = Self.farLastYear }
        }
        walkedEnd = end
        self.periodic = periodic
        lastYear = last
        nativeEnd = yearStart(last + 1 - Self.searchRoomYears)
        startMillis = start
        endMillis = Swift.max(end, yearStart(last + 1))
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

    /// A change of UTC offset: its instant (epoch ms) and the offset (ms) from then on.
    struct OffsetChange: Equatable {
        var instant: Int64
        var offset: Int64
    }

    /// Foundation's changes of offset after `t0` and before `end`, the offset being `offset`
    /// at `t0` (a change of DST flag or name only is not a change of offset).
    private static func offsetChanges(_ zone: TimeZone, after t0: Date, before end: Int64, from offset: Int64) -> [OffsetChange] {
        var out: [OffsetChange] = []
        var t = t0, previous = offset
        while let next = zone.nextDaylightSavingTimeTransition(after: t), next > t {
            let ms = Timestamp.millis(next)
            if ms >= end { break }
            let off = Int64(zone.secondsFromGMT(for: next)) * 1000
            if off != previous { out.append(OffsetChange(instant: ms, offset: off)) }
            previous = off
            t = next
        }
        return out
    }

    /// Whether the offset changes of 2180-2199 recur, with the same offsets, exactly one
    /// ``period`` later in the walked table (2580-2599) and 19 periods later by Foundation's own
    /// walk (9780-9799): then every instant from 2180 on has the offset of the instant whole
    /// periods before it, as far as Foundation will ever say.
    private static func repeatsEveryPeriod(_ zone: TimeZone, transitions: [Int64], offsets: [Int64]) -> Bool {
        let span: Int64 = 20 * 365 * 86_400_000
        func window(periods n: Int64) -> [OffsetChange] {
            let from = foldStart + n * period
            return transitions.indices.filter { transitions[$0] >= from && transitions[$0] < from + span }
                .map { OffsetChange(instant: transitions[$0] - n * period, offset: offsets[$0 + 1]) }
        }
        let base = window(periods: 0)
        guard !base.isEmpty, window(periods: 1) == base else { return false }
        let farStart = foldStart + 19 * period
        let before = Timestamp.date(millis: farStart - 1)
        let far = offsetChanges(zone, after: before, before: farStart + span, from: Int64(zone.secondsFromGMT(for: before)) * 1000)
        return far.map { OffsetChange(instant: $0.instant - 19 * period, offset: $0.offset) } == base
    }

    /// Whether `millis` lies inside the table's range.
    @inlinable
    func covers(_ millis: Int64) -> Bool { millis >= startMillis && millis < endMillis }

    /// An instant (UTC or wall) moved into the walked years: itself, or for a ``periodic``
    /// table and an instant from ``foldEnd`` on, the instant whole periods earlier in
    /// `foldStart..<foldEnd`; with the shift to add back.
    @inline(__always)
    func folded(_ t: Int64) -> (t: Int64, shift: Int64) {
        guard periodic, t >= Self.foldEnd else { return (t, 0) }
        let shift = (t - Self.foldStart) / Self.period * Self.period
        return (t - shift, shift)
    }

    /// Index of the segment containing the UTC instant `t` (0...transitions.count), `t` in the
    /// walked years. O(log n) in the number of transitions (about 1,400 for a zone with DST
    /// walked to 2600).
    @inline(__always)
    func segment(atUTC t: Int64) -> Int { transitions.upperBound(of: t) }

    /// The UTC offset (ms) in force at `t`.
    @inline(__always)
    func offset(atUTC t: Int64) -> Int64 { offsets[segment(atUTC: folded(t).t)] }

    /// Whether any offset change happens in [from, to]. O(log n). (A span reaching past the
    /// walked years once folded, longer than 20 years, says yes: callers then take their
    /// careful path.)
    func hasTransition(from: Int64, to: Int64) -> Bool {
        let shift = folded(from).shift
        if periodic && to - shift >= walkedEnd { return true }
        return segment(atUTC: from - 1 - shift) != segment(atUTC: to - shift)
    }

    /// Whether an offset with seconds applies anywhere in [from, to] (local mean time before a
    /// zone's first standard offset: Paris +0:09:21 until 1911, New York -4:56:02 until 1883,
    /// Monrovia -0:44:30 until 1972). Foundation's searches step minutes aligned to UTC there,
    /// so near an offset change its answers are not the wall times asked for (hh:mm:21), or
    /// none. O(log n + changes in the span).
    func hasSecondsInOffset(from: Int64, to: Int64) -> Bool {
        // (The folded years follow one annual rule of whole minutes.)
        guard from <= to, !(periodic && from >= Self.foldEnd) else { return false }
        var k = segment(atUTC: from)
        let last = segment(atUTC: Swift.min(to, walkedEnd - 1))
        while k <= last {
            if offsets[k] % 60_000 != 0 { return true }
            k += 1
        }
        return false
    }

    /// Whether the offset changes by a day or more (a calendar day skipped or repeated:
    /// Pacific/Apia's 2011-12-30, Kwajalein's 1993-08-21) anywhere in [from, to] of the table's
    /// own years (the folded years repeat one annual rule, which never does). O(log n + changes
    /// in the span).
    func hasDayStep(from: Int64, to: Int64) -> Bool {
        var k = transitions.lowerBound(of: from)
        while k < transitions.count && transitions[k] <= to {
            if abs(offsets[k + 1] - offsets[k]) >= Self.dayStep { return true }
            k += 1
        }
        return false
    }
    /// An offset change this large moves the wall clock across a calendar day.
    static let dayStep: Int64 = 23 * 3_600_000

    /// For a wall time in a gap (``resolve(wall:)`` says `.gap`): the instant of the offset
    /// change that made the gap, the first whose wall clock is past it.
    func gapTransition(wall w: Int64) -> Int64 {
        let (f, shift) = folded(w)
        return transitions[wallLow.upperBound(of: f) - 1] + shift
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
    func resolve(wall: Int64) -> WallResolution {
        let (w, shift) = folded(wall)
        // Last transition whose affected wall range starts at or before w.
        let k = wallLow.upperBound(of: w) - 1
        if k < 0 { return .unique(w - offsets[0] + shift) }
        if w < wallHigh[k] {
            let before = offsets[k], after = offsets[k + 1]
            if after > before { return .gap(shifted: w - before + shift) }
            return .fold(first: w - before + shift, second: w - after + shift)
        }
        return .unique(w - offsets[k + 1] + shift)
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

    /// The shared table of `zone`, built on first use (1-2 ms for a zone with DST) and
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
