// Fences with rules decided on the lookahead's thread: a copy of the evaluator's fences
// (``GuardedFences/init(geometryOf:)``) steps each fix's geometry and records its moves; the
// evaluator acts on them (``GuardedFences/apply(_:device:t:latitude:longitude:initialFire:into:)``)
// when the answer follows the very fix it applied last for the device, and steps the fix
// itself otherwise (then that device stays with it).

/// The fences with rules a ``FixLookahead`` decides (made by ``StreamEvaluator/makeLookahead()``).
///
/// Memory: the copy has its own fences' records, gates, grid and rings (read at every fix on
/// this thread) and shares the region index with the evaluator's; per device it keeps the
/// links that are inside (as the evaluator's), its last fix and quiet bounds
/// (``GuardedFences/Quiet``), and 8 bytes of chain. A chunk's moves are bounded by
/// ``movesPerChunk`` (24 bytes each): past it, the chunk's further fixes are left to the
/// evaluator, and their devices with it for good.
struct FenceAhead: @unchecked Sendable {
    // @unchecked: the copy is used by this lookahead alone; what it shares with the
    // evaluator's fences (the region index) is only read, and answers two threads at once.
    private let copy: GuardedFences
    /// Per fence, its request's own `addedAt` (nil: the stream's default) and the device it is
    /// scoped to, for ``start(at:devices:)``.
    let addedAt: [Int64?]
    let scopedDevice: [String?]
    /// `--now`: the default `addedAt` when given.
    let now: Int64?
    /// The default `addedAt` assumed: the evaluator's when it had started, else fixed at the
    /// first line that begins the stream (the evaluator checks each answer against its own).
    private(set) var defaultAddedAt: Int64?
    /// Deciding nothing more (a line read whole came before the default was known).
    private var off = false
    /// The evaluator's devices, numbered as there, when the copy holds their state.
    let knownDevices: DeviceInterner?
    let lastAccepted: [Int64]
    /// Per device (the lookahead's number), the last fix decided; -3: left to the evaluator.
    private var last: [Int64] = []
    /// Devices decided here: those whose id hashes below this many eighths. It only shrinks
    /// once deciding began (a device handed to the evaluator has moved on there).
    private(set) var shareEighths: UInt64
    private var deciding = false
    /// Moves in one chunk's buffer before its further fixes are left to the evaluator.
    static let movesPerChunk = 1 << 18
    /// ``movesPerChunk``, smaller in tests.
    var movesLimit = FenceAhead.movesPerChunk

    init(copy: GuardedFences, addedAt: [Int64?], scopedDevice: [String?], now: Int64?, defaultAddedAt: Int64?,
         knownDevices: DeviceInterner?, lastAccepted: [Int64], share: UInt64) {
        self.copy = copy
        shareEighths = min(8, share)
        self.addedAt = addedAt
        self.scopedDevice = scopedDevice
        self.now = now
        self.defaultAddedAt = copy.started ? defaultAddedAt : nil
        self.knownDevices = knownDevices
        self.lastAccepted = lastAccepted
    }

    /// Whether the default `addedAt` is still to be fixed (by the next line that begins).
    var needsStart: Bool { !off && defaultAddedAt == nil }

    /// A line the fast scan left to the full parser came first: its `t` may be the default
    /// `addedAt`, unknown here, so nothing more is decided.
    mutating func lineReadWhole() {
        if defaultAddedAt == nil { off = true }
    }

    /// Fixes the default `addedAt` (`--now`, else `t`, the first line's that the evaluator
    /// begins with) and the gates, with each scoped device's number here.
    mutating func start(at t: Int64, devices: [Int32]) {
        let def = now ?? t
        defaultAddedAt = def
        copy.startGeometry(addedAt: { addedAt[Int(copy.fenceOfRequest[Int($0)])] ?? def },
                           device: { devices[Int(copy.fenceOfRequest[Int($0)])] })
    }

    /// Steps the copy for a used fix of device `d` (the lookahead's number) and appends its
    /// answer to `moves`: a ``FenceMove/Kind/answer`` (the device's fix it followed, the
    /// default `addedAt` assumed, how many moves follow), then the moves. Returns where the
    /// answer starts, or -1 when the fix is left to the evaluator (and with it the device).
    mutating func decide(device d: Int32, eighth: UInt64, sequence: Int64, t: Int64, latitude: Double, longitude: Double,
                         accuracy: Double?, moves: inout [FenceMove]) -> Int32 {
        deciding = true
        guard !off, let def = defaultAddedAt, !copy.fences.isEmpty, latitude.isFinite, longitude.isFinite,
              (-90...90).contains(latitude) else { return -1 }
        if last.count <= Int(d) { last += repeatElement(-1, count: Int(d) + 1 - last.count) }
        guard last[Int(d)] >= -1 else { return -1 }
        guard eighth < shareEighths, moves.count < movesLimit else {
            last[Int(d)] = -3
            return -1
        }
        let start = moves.count
        moves.append(FenceMove(fence: 0, kind: .answer, tIn: last[Int(d)], tOut: def))
        swap(&copy.moves, &moves)
        var none: [FiredEvent] = []
        copy.fix(device: d, t: t, latitude: latitude, longitude: longitude, accuracy: accuracy, initialFire: false, into: &none)
        swap(&copy.moves, &moves)
        moves[start].fence = Int32(moves.count - start - 1)
        last[Int(d)] = sequence
        return Int32(start)
    }

    /// Sets the share: to any value before deciding began, only down after.
    mutating func setShare(_ eighths: UInt64) {
        shareEighths = deciding ? min(shareEighths, eighths) : eighths
    }
}
