// Which devices' fixes the lookahead decides, and how `run` moves them between the threads.

extension FixLookahead {
    /// The eighths of devices decided here, 0 to 8 (clamped): ``eighths`` to begin with; `run`
    /// moves it by the threads' idle time (a device's fixes may be decided here or by the
    /// evaluator, fix by fix: the results are the same).
    public var share: Int {
        get { Int(shareEighths) }
        set {
            let new = UInt64(min(8, max(0, newValue)))
            // Devices coming back may have had fixes decided by the evaluator meanwhile: their
            // next fix here is sent whole (their neighbourhood here describes an older fix).
            for eighth in min(shareEighths, new)..<max(shareEighths, new) where new > shareEighths {
                takenBackAt[Int(eighth)] = sequence
            }
            shareEighths = new
            if new < fenceShare { fenceShare = Int(new) }
        }
    }

    /// The share `run` starts with: every device (8), or 6 eighths when the regions include
    /// polygons. Their geometry is most of a fix's work, so the evaluating thread would idle
    /// until the balance moved devices to it. On issue 12's 10,000 polygons, starting at 6
    /// ran in 0.91 and 0.96 of the time (two sets of 20 paired runs). Circles, dense or sparse,
    /// start at 8: starting them at 6 measured 1.00 and 1.04.
    package var startingShare: Int { index.polygons.isEmpty ? 8 : 6 }

    /// The bound of a chunk's moves (``FenceAhead/movesPerChunk``; tests make it small).
    var fenceMovesLimit: Int {
        get { fences?.movesLimit ?? 0 }
        set { fences?.movesLimit = newValue }
    }

    /// The eighths of devices whose fences with rules are decided here (see ``rebalance(by:)``):
    /// any value before deciding began, only less after.
    var fenceShare: Int {
        get { Int(fences?.shareEighths ?? 0) }
        set { fences?.setShare(UInt64(min(8, max(0, newValue)))) }
    }

    /// Moves work between the threads by `delta` eighths of the devices (`run`'s balance,
    /// once per chunk): towards the evaluator (negative), the fences with rules go first, then
    /// the plain share; towards this thread, the plain share grows. The fences' share only
    /// shrinks (a device the evaluator took on has moved on there), so it moves one eighth at
    /// a time and then sits out one call that asks for more: the chunks in flight were decided
    /// before the change, so the next judgement still sees the old share.
    package mutating func rebalance(by delta: Int) {
        guard delta != 0 else { return }
        if delta < 0, fenceShare > 0 {
            if fenceWait > 0 {
                fenceWait -= 1
            } else {
                fenceShare -= 1
                fenceWait = 1
            }
        } else {
            share += delta
        }
    }
}
