// Fixes whose geometry a ``FixLookahead`` decided ahead, on `run`'s reader thread.

@_spi(Engine) extension StreamEvaluator {
    /// ``process(lineBytes:scanned:into:)`` for a line whose geometry a ``FixLookahead`` (from
    /// ``makeLookahead()``) decided ahead, its hits in `hits`: the same results.
    @_spi(StreamFastPath) @inline(__always)
    public func process(lineBytes b: UnsafeBufferPointer<UInt8>, scanned: ScannedLine, geometry: FixGeometry?,
                        hits: UnsafeBufferPointer<RegionHit>, into events: inout [FiredEvent]) throws(StreamLineError) {
        try process(lineBytes: b, scanned: scanned, geometry: geometry, hits: hits, moves: UnsafeBufferPointer(start: nil, count: 0),
                    into: &events)
    }

    /// ``process(lineBytes:scanned:geometry:hits:into:)`` with the buffer the lookahead put the
    /// moves of fences with rules in (``FixLookahead/decide(_:_:hits:moves:)``).
    @inline(__always)
    package func process(lineBytes b: UnsafeBufferPointer<UInt8>, scanned: ScannedLine, geometry: FixGeometry?,
                         hits: UnsafeBufferPointer<RegionHit>, moves: UnsafeBufferPointer<FenceMove>,
                         into events: inout [FiredEvent]) throws(StreamLineError) {
        guard let geometry else {
            try process(lineBytes: b, scanned: scanned, into: &events)
            return
        }
        lookaheadGeometry = geometry.decided ? geometry : nil
        lookaheadHits = hits
        lookaheadFenceStart = geometry.fenceStart
        lookaheadSequence = geometry.sequence
        lookaheadMoves = moves
        defer {
            lookaheadGeometry = nil
            lookaheadFenceStart = -1
        }
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
        makeLookahead(fenceShare: nil)
    }

    /// ``makeLookahead()``, with the fences with rules decided there for `fenceShare` eighths
    /// of the devices to begin with whatever else it decides (nil: as `run` takes it, below).
    func makeLookahead(fenceShare: UInt64?) -> FixLookahead? {
        let plain = skipsStableFixes && !locations.isEmpty && locations.count == builtLocationCount
        // With plain regions the lookahead has their geometry to do, and the evaluator keeps
        // the fences with rules (a share of fences cannot be handed back, so the balance could
        // only undo a start there; deciding none still cost 3 % on dwell at 1 % of circles).
        // Alone, 6 eighths of the devices' fences are decided there to begin with, and handed
        // over as the balance asks (every rule on circles settles at 4-5).
        let fences = fenceShare.map { makeFenceAhead(share: $0) } ?? (plain ? nil : makeFenceAhead(share: 6))
        guard plain || fences != nil else { return nil }
        lookaheadDevices.removeAll()
        // The leaf tiles either thread builds are offered to the other (each keeps a copy).
        let shared = plain ? SharedTiles(budget: tileCache.budget) : nil
        if tileCache.shared == nil { tileCache.shared = shared }
        return FixLookahead(index: regionIndex, margin: options.margin, maxAccuracy: options.maxAccuracy, maxDevices: options.maxDevices,
                            slotBudget: neighbourhoodSlotBudget,
                            deltas: dwellMillis == 0, plain: plain, fences: fences, sharedTiles: tileCache.shared ?? shared)
    }

    /// The fences with rules for a new lookahead: a copy of their state now, with every
    /// device's chain reset to match it. nil without such fences, or when the devices' byte
    /// table does not number every device (the copy's devices must be numbered as here).
    func makeFenceAhead(share: UInt64) -> FenceAhead? {
        guard let g = guarded, !g.fences.isEmpty, !g.scansAll, deviceBytesIndex.count == deviceNames.count else { return nil }
        g.resetAheadChains()
        return FenceAhead(copy: GuardedFences(geometryOf: g),
                          addedAt: g.fences.map { requests[Int($0.request)].addedAt.map(Timestamp.millis) },
                          scopedDevice: g.fences.map { requests[Int($0.request)].device },
                          now: options.now.map(Timestamp.millis), defaultAddedAt: defaultAddedAt,
                          knownDevices: deviceBytesIndex, lastAccepted: devices.map(\.lastAccepted), share: share)
    }
}
