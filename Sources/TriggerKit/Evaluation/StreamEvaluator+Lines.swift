import Foundation

// Reading lines: a parsed line, a line's bytes (the fast path), the clock checks.

@_spi(Engine) extension StreamEvaluator {
    /// Evaluates one line, appending its fires (in the contract's order) to `events`.
    ///
    /// - Throws: ``StreamLineError`` for a line that would move stream time forward by more
    ///   than ``StreamOptions/maxClockJump``, or whose time is outside the supported dates;
    ///   nothing changes then.
    public func process(_ line: StreamLine, into events: inout [FiredEvent]) throws(StreamLineError) {
        try checkTime(line.time)
        let named: String? = switch line {
        case .fix(let f): (f.accuracy ?? 0) >= 0 ? f.device : nil
        case .settings(let name, _, _): name
        default: nil
        }
        if let named, isNewDevice(named, pastLimit: options.maxDevices) { throw Self.tooManyDevices(options.maxDevices, kept: deviceNames.count) }
        begin(line.time, into: &events)
        switch line {
        case .fix(let fix): process(fix, into: &events)
        case .settings(let name, _, let s): setSettings(s, forDevice: name)
        case .control(_, let c):
            pendingControl = c
            hasPendingControl = true
        case .clock: break
        }
    }

    /// The change a control line asked for, once: the owner of the evaluator applies it
    /// (requests are fixed per evaluator; `triggerkit run` migrates to a new one).
    public func takeControl() -> ControlLine? {
        // Checked on every line by `run`: a Bool test, not a copy of the (large) optional.
        guard hasPendingControl else { return nil }
        hasPendingControl = false
        defer { pendingControl = nil }
        return pendingControl
    }

    /// Reads and evaluates one line (without its newline), appending its fires to `events`:
    /// the same as ``StreamLineParser/parse(_:)-(UnsafeBufferPointer<UInt8>)`` followed by
    /// ``process(_:into:)``, and throws the same errors, before changing anything.
    ///
    /// What it avoids on the common fix line: the `String` of the device id and its hashing
    /// (the device is found from the line's bytes in ``deviceBytesIndex``), the `StreamLine`
    /// and `Fix` values, and re-validating the date shared with the previous line.
    @_spi(StreamFastPath)
    public func process(lineBytes b: UnsafeBufferPointer<UInt8>, into events: inout [FiredEvent]) throws(StreamLineError) {
        try process(lineBytes: b, scanned: ScannedLine(scanned: StreamLineParser.scan(b, cache: &lineCache)), into: &events)
    }

    /// ``process(lineBytes:into:)`` for a line already scanned by a ``LineScanner`` (on
    /// another thread, ahead of evaluation): the same results.
    @_spi(StreamFastPath) @inline(__always)
    public func process(lineBytes b: UnsafeBufferPointer<UInt8>, scanned: ScannedLine, into events: inout [FiredEvent]) throws(StreamLineError) {
        try process(lineBytes: b, scanned: scanned, aheadDevice: -1, into: &events)
    }

    /// ``process(lineBytes:scanned:into:)`` with the device's number in a ``FixLookahead``
    /// (-1: none): the evaluator's own device is found through ``lookaheadDevices`` (once by
    /// name, then by number).
    @inline(__always)
    func process(lineBytes b: UnsafeBufferPointer<UInt8>, scanned: ScannedLine, aheadDevice: Int32,
                 into events: inout [FiredEvent]) throws(StreamLineError) {
        guard let s = scanned.scanned else {
            try process(try StreamLineParser.slowPath(b), into: &events)
            return
        }
        try checkTime(s.t)
        let a = Int(aheadDevice)
        // The device bound, before anything changes; looked at only once it is reached.
        if deviceNames.count >= options.maxDevices, !s.isClock, (s.accuracy ?? 0) >= 0,
           !(a >= 0 && a < lookaheadDevices.count && lookaheadDevices[a] >= 0) {
            let name = s.device.map { UnsafeBufferPointer(rebasing: b[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
            if deviceBytesIndex.find(name) == nil { throw Self.tooManyDevices(options.maxDevices, kept: deviceNames.count) }
        }
        begin(s.t, into: &events)
        if s.isClock { return }
        stats.fixes += 1
        if let acc = s.accuracy, acc < 0 {
            stats.skipped += 1
            return
        }
        let d: Int32
        if a >= 0 && a < lookaheadDevices.count && lookaheadDevices[a] >= 0 {
            d = lookaheadDevices[a]
        } else {
            let name = s.device.map { UnsafeBufferPointer(rebasing: b[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
            d = deviceBytesIndex.find(name) ?? device(named: String(decoding: name, as: UTF8.self))
            if a >= 0 {
                if a >= lookaheadDevices.count { lookaheadDevices += repeatElement(-1, count: a + 1 - lookaheadDevices.count) }
                lookaheadDevices[a] = d
            }
        }
        process(device: d, t: s.t, latitude: s.latitude, longitude: s.longitude, accuracy: s.accuracy, into: &events)
    }

    /// A fix or settings line naming a new device once ``StreamOptions/maxDevices`` are kept.
    /// (More than the limit are kept when requests named devices past it.)
    static func tooManyDevices(_ limit: Int, kept: Int) -> StreamLineError {
        let count = kept > limit ? "\(kept) devices are kept, past the limit of \(limit)" : "\(limit) device\(limit == 1 ? " is" : "s are") kept, the limit"
        return StreamLineError("\"device\" is new and \(count) (--max-devices): the line is not applied")
    }

    /// Refuses a line time outside the supported dates or past the clock-jump limit.
    @inline(__always)
    func checkTime(_ t: Int64) throws(StreamLineError) {
        guard RequestLimits.isSupported(millis: t) else { throw StreamLineError(FixRules.unsupportedDate("\(t) ms since 1970")) }
        if let now = streamTime, t > now, maxClockJumpMillis < Int64.max,
           let why = ClockJumpRule.refusal(from: now, to: t, limit: maxClockJumpMillis, limitName: "--max-clock-jump") {
            throw StreamLineError(why)
        }
    }
}
