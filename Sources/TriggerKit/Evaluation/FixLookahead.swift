// The geometry of fixes, decided ahead on the reader's thread. Which regions a fix is in
// depends only on its position and the region index, not on any device state, so a second
// thread can answer it (through its own device neighbourhoods and tiles) while the evaluator
// steps the fixes before. The one thing that does depend on the evaluator is the skip rule ("the same
// decisions as the last fix used"), so each answer says which fix it was compared with, and
// the evaluator uses `same` only when that is the very fix it used last for the device;
// otherwise it steps the fix with the hits given, which is always right.

/// Decides fixes ahead of a ``StreamEvaluator`` (``StreamEvaluator/makeLookahead()``), on
/// another thread: each fix line's hits, and whether they are its device's previous fix's.
/// Keeps the neighbourhoods (tile and open-region state) of the devices it decides and a tile
/// cache of its own, with the same functions and bounds as the evaluator's.
///
/// Decides the fixes of a share of the devices (``share`` eighths, by a hash of the device
/// id); the evaluator decides the others itself, at the same time, through its own
/// neighbourhoods.
///
/// Memory: per device it decides, its id and about 90 bytes, plus its open regions' state
/// (9 bytes each); all neighbourhoods together are bounded by the slot budget it is made with
/// (past it, every other device's is dropped and taken again at its next fix).
///
/// Stops at the first control line (it may change the regions): it answers nil for that line
/// and every later one, and never touches the index again, so the evaluator may change it
/// from then on. Until then the index must not change.
@_spi(StreamFastPath) public struct FixLookahead: @unchecked Sendable {
    // @unchecked: the index is a class used by this lookahead alone until it stops (above).
    let index: RegionIndex
    private let margin: Double
    private let maxAccuracy: Double?
    /// The evaluator's bound on devices: past it a new device is not numbered here (its
    /// fixes are left to the evaluator, which refuses or decides them), so this copy's memory
    /// is bounded as the evaluator's is.
    private let maxDevices: Int
    private var names = DeviceInterner()
    private var near: [Neighbourhood] = []
    /// Its own tiles (a cache shared with the evaluator measured slower: the two threads'
    /// reference counting on the same tiles); the leaf tiles either builds are offered to the
    /// other through ``SharedTiles``, each taking its own copy.
    private var tiles: TileCache
    /// The last fix decided per device, and the latest `t` accepted (the evaluator's stale rule).
    private var last: [Int64] = []
    private var lastAccepted: [Int64] = []
    private var slots = 0
    private let slotBudget: Int
    private var scratch: [RegionHit] = []
    private(set) var sequence: Int64 = 0
    private var stopped = false
    /// The devices decided here unless told otherwise: those whose id hashes below this many
    /// eighths. The others are left to the evaluator, which decides them itself meanwhile (the
    /// index answers two threads at once). `run` sets ``share`` to every device from the start
    /// (both threads parse lines there, so one owner of all geometry balances best; see
    /// `ShareBalance`); the tests take this partial share by default, to exercise the split.
    static let eighths: UInt64 = 6

    /// The eighths of devices decided here (``share``), and the chunks the fences' share sits
    /// out after a move (``rebalance(by:)``).
    var shareEighths: UInt64
    var fenceWait = 0
    /// Per eighth of the devices, the last line seen before it was last given back to this
    /// lookahead (``share`` grew over it).
    var takenBackAt = [Int64](repeating: .min, count: 8)
    /// Whether a fix that decides otherwise than its device's previous one in the same tile is
    /// sent as its changes (``FixGeometry/delta``) rather than whole: with no dwell (the
    /// evaluator then needs a fix's whole hits only after a one-shot fired).
    private let deltas: Bool
    /// Whether it decides the plain location requests (else only fences with rules).
    private let plain: Bool
    /// Fences with rules (see ``FenceAhead``), nil when it decides none.
    var fences: FenceAhead?

    init(index: RegionIndex, margin: Double, maxAccuracy: Double?, maxDevices: Int = .max, slotBudget: Int, tileBudget: Int = 4 << 20,
         share: UInt64 = FixLookahead.eighths, deltas: Bool, plain: Bool = true, fences: FenceAhead? = nil,
         sharedTiles: SharedTiles? = nil) {
        self.index = index
        self.deltas = deltas
        self.plain = plain
        self.fences = fences
        if let known = fences?.knownDevices {
            // Numbered as the evaluator numbers them: the copy's devices are the evaluator's.
            names = known
            near = Array(repeating: Neighbourhood(), count: known.count)
            last = Array(repeating: -1, count: known.count)
            lastAccepted = fences?.lastAccepted ?? []
            lastAccepted += repeatElement(.min, count: max(0, known.count - lastAccepted.count))
        }
        tiles = TileCache(budget: tileBudget)
        tiles.shared = sharedTiles
        shareEighths = min(8, share)
        self.margin = margin
        self.maxAccuracy = maxAccuracy
        self.maxDevices = maxDevices
        self.slotBudget = slotBudget
    }

    /// Whether it has stopped (see the type's notes).
    public var isStopped: Bool { stopped }

    /// The hits the caller's buffer may hold before further fixes are left to the evaluator
    /// (answered as for a device outside the share; the next fix this lookahead decides for
    /// the device is then not chained to the one the evaluator used, which the evaluator
    /// sees, so the results are the same). `run` clears the buffer at each chunk: a chunk's
    /// hits take at most this many entries (8 bytes each) plus one fix's. Fixes are sent whole
    /// when their device leaves its tile, and a fix inside thousands of regions at once (a
    /// device moving among large overlapping circles) made each chunk hold 10,000 fixes x
    /// thousands of hits: 977 MB against 96 MB single-threaded (a helper's find).
    package var hitBudget = 1 << 20

    /// The first lines that are not evaluated (a resumed `run --state` skips those its saved
    /// state covers): answered nil without any geometry. Control lines among them still stop
    /// the lookahead.
    package var skippedLines: Int64 = 0

    /// Decides one line (its bytes and its scan), appending its hits to `hits`; nil for a line
    /// it does not decide. Call for every line in input order.
    ///
    /// - Complexity: as the evaluator's path: O(open regions) comparisons in the device's tile
    ///   (and a test per region whose slack is used up), taking a tile outside it (built if
    ///   not cached).
    public mutating func decide(_ b: UnsafeBufferPointer<UInt8>, _ line: ScannedLine, hits: inout [RegionHit]) -> FixGeometry? {
        var moves: [FenceMove] = []
        return decide(b, line, hits: &hits, moves: &moves)
    }

    /// ``decide(_:_:hits:)``, appending the moves of fences with rules to `moves`.
    @inline(__always)
    package mutating func decide(_ b: UnsafeBufferPointer<UInt8>, _ line: ScannedLine, hits: inout [RegionHit],
                                 moves: inout [FenceMove]) -> FixGeometry? {
        // The index borrowed, not retained: the evaluator's thread reads it meanwhile, and a
        // reference count per fix here made the two threads take turns with its cache line.
        Unmanaged.passUnretained(index)._withUnsafeGuaranteedRef { decide(b, line, index: $0, hits: &hits, moves: &moves) }
    }

    private mutating func decide(_ b: UnsafeBufferPointer<UInt8>, _ line: ScannedLine, index: RegionIndex,
                                 hits: inout [RegionHit], moves: inout [FenceMove]) -> FixGeometry? {
        sequence += 1
        guard !stopped else { return nil }
        guard let s = line.scanned else {
            // Lines the fast scan leaves to the full parser: only a control line (add, remove,
            // categories, response) may change the regions. A stream's first line is read
            // without its byte order mark, as the run loop reads it.
            var text = b
            if sequence == 1, b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { text = UnsafeBufferPointer(rebasing: b[3...]) }
            if !InputBytes.isBlank(text) {
                // (A refused `add` changes nothing.)
                if case .control(_, let c)? = try? StreamLineParser.slowPath(text) {
                    if case .refusedAdd = c {} else { stopped = true }
                }
                // A line read whole may be the one that fixes the default `addedAt`: the fences'
                // gates are not known here then.
                fences?.lineReadWhole()
            }
            return nil
        }
        if fences?.needsStart == true, sequence > skippedLines, RequestLimits.isSupported(millis: s.t) { startFences(at: s.t) }
        if s.isClock || sequence <= skippedLines { return nil }
        if let acc = s.accuracy, acc < 0 { return nil }
        let name = s.device.map { UnsafeBufferPointer(rebasing: b[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
        // One hash per line: the share is taken from it, and the device found by it.
        let hash = DeviceInterner.hash(name)
        let eighth = hash & 7
        let d: Int
        if let found = names.find(name, hash: hash) {
            d = Int(found)
        } else {
            // Kept by its bytes: a name that is not valid UTF-8 would be stored repaired and
            // never found again (one entry per fix); the evaluator decides such a device.
            guard names.count < maxDevices, let valid = String(validating: name, as: UTF8.self) else { return nil }
            d = Int(addDevice(valid))
        }
        // Fixes the evaluator ignores (stale, too inaccurate) are left out of the chain, as it
        // leaves them out of its own comparison.
        if s.t < lastAccepted[d] { return nil }
        lastAccepted[d] = s.t
        if let limit = maxAccuracy, let acc = s.accuracy, acc > limit { return nil }
        var fenceStart: Int32 = -1
        if fences != nil {
            fenceStart = fences!.decide(device: Int32(d), eighth: eighth, sequence: sequence, t: s.t, latitude: s.latitude,
                                         longitude: s.longitude, accuracy: s.accuracy, moves: &moves)
        }
        // A device outside the share, or the chunk's hits at their bound: the evaluator
        // decides the fix (found by its number).
        if eighth >= shareEighths || !plain || hits.count >= hitBudget {
            var g = FixGeometry(sequence: sequence, previous: -1, same: false, delta: false, start: 0, count: 0,
                                device: Int32(d), decided: false)
            g.fenceStart = fenceStart
            return g
        }
        let start = hits.count
        var same = false, delta = false
        let margin = self.margin
        // Maybe decided by the evaluator since this device's last fix here (its eighth was
        // given to it meanwhile): the fix the evaluator used last may not be the one compared
        // with, so this one is sent whole.
        let broken = last[d] <= takenBackAt[Int(eighth)]
        let held = near.withUnsafeMutableBufferPointer { near -> Bool in
            guard near[d].holds(latitude: s.latitude, longitude: s.longitude) else { return false }
            // The same decisions: the hits are the previous fix's, which the evaluator keeps
            // (most fixes; none are sent). Otherwise this fix's changes (listed straight into
            // `hits`), or all its hits.
            same = !near[d].advance(with: index, latitude: s.latitude, longitude: s.longitude, margin: margin,
                                    changes: &hits) && !broken
            return true
        }
        if held && !same {
            if deltas && !broken {
                delta = true
            } else {
                hits.removeSubrange(start...)
                near[d].appendHits(to: &hits)
            }
        }
        if !held {
            slots -= near[d].storedSlots
            if near[d].follows(latitude: s.latitude, longitude: s.longitude),
               let tile = tiles.tile(latitude: s.latitude, longitude: s.longitude, index: index, margin: margin) {
                near[d].enter(tile, with: index, latitude: s.latitude, longitude: s.longitude, margin: margin)
                near[d].appendHits(to: &hits)
            } else {
                near[d].clear(latitude: s.latitude, longitude: s.longitude)
                index.query(latitude: s.latitude, longitude: s.longitude, margin: margin, into: &scratch)
                scratch.withUnsafeBufferPointer { hits.append(contentsOf: $0) }
            }
            slots += near[d].storedSlots
            if slots > slotBudget {
                // The memory bound: every other device's neighbourhood goes.
                for k in near.indices where k != d { near[k].release() }
                slots = near[d].storedSlots
            }
        }
        let previous = last[d]
        last[d] = sequence
        var g = FixGeometry(sequence: sequence, previous: previous, same: same, delta: delta, start: Int32(start),
                            count: Int32(hits.count - start), device: Int32(d), decided: true)
        g.fenceStart = fenceStart
        return g
    }
}

extension FixLookahead {
    /// The fences' default `addedAt` fixed at the line the evaluator begins the stream with;
    /// each scoped device numbered here (a device not seen yet is numbered now).
    private mutating func startFences(at t: Int64) {
        guard let scoped = fences?.scopedDevice else { return }
        var numbers: [Int32] = []
        for name in scoped {
            guard let name else { numbers.append(-1); continue }
            numbers.append(Array(name.utf8).withUnsafeBufferPointer { names.find($0) } ?? addDevice(name))
        }
        fences?.start(at: t, devices: numbers)
    }

    /// Numbers a device not seen before.
    private mutating func addDevice(_ name: String) -> Int32 {
        names.append(name)
        near.append(Neighbourhood())
        last.append(-1)
        lastAccepted.append(.min)
        return Int32(names.count - 1)
    }
}

enum InputBytes {
    /// Only spaces and tabs (the run loop skips such lines).
    static func isBlank(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in b where c != 0x20 && c != 0x09 { return false }
        return true
    }
}
