// Fixes whose geometry a ``FixLookahead`` decided ahead, on `run`'s reader thread.

@_spi(Engine) extension StreamEvaluator {
    /// ``process(lineBytes:scanned:into:)`` for a line whose geometry a ``FixLookahead`` (from
    /// ``makeLookahead()``) decided ahead, its hits in `hits`: the same results.
    @_spi(StreamFastPath) @inline(__always)
    public func process(lineBytes b: UnsafeBufferPointer<UInt8>, scanned: ScannedLine, geometry: FixGeometry?,
                        hits: UnsafeBufferPointer<RegionHit>, into events: inout [FiredEvent]) throws(StreamLineError) {
        guard let geometry else {
            try process(lineBytes: b, scanned: scanned, into: &events)
            return
        }
        lookaheadGeometry = geometry.decided ? geometry : nil
        lookaheadHits = hits
        defer { lookaheadGeometry = nil }
        try process(lineBytes: b, scanned: scanned, aheadDevice: geometry.device, into: &events)
    }

    /// A lookahead to decide the geometry of this evaluator's coming fixes on another thread,
    /// or nil when it would not pay or not apply: no plain location requests, regions added
    /// since the build, or the neighbourhood skip turned off. Until the lookahead stops (at a
    /// control line) nothing may change the regions. Fences with rules are followed on this
    /// thread as always (their path is not split); the lookahead decides only the plain ones.
    ///
    /// The answers of one lookahead only: a new one numbers devices afresh (``FixGeometry``
    /// carries the lookahead's device number), so answers of an earlier one must not be
    /// passed after it is made.
    @_spi(StreamFastPath) public func makeLookahead() -> FixLookahead? {
        guard skipsStableFixes, !locations.isEmpty, locations.count == builtLocationCount else { return nil }
        lookaheadDevices.removeAll()
        return FixLookahead(index: regionIndex, margin: options.margin, maxAccuracy: options.maxAccuracy, slotBudget: neighbourhoodSlotBudget,
                     deltas: dwellMillis == 0)
    }
}
