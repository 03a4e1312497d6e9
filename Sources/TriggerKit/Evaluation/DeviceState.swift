/// What the evaluator remembers about one device. Memory is proportional to what is
/// actually inside or pending for it, never to the number of regions.
struct DeviceState: Sendable {
    // The fields every fix reads come first, together (a fix whose hits did not change
    // touches only these: one cache line).
    /// Latest `t` of an accepted fix (staleness reference); `Int64.min` before the first.
    var lastAccepted: Int64 = .min
    /// Latest `t` of a used fix (accepted and accurate enough): a request added after it has
    /// not seen this device yet, so its state is unknown until the next used fix.
    var lastUsed: Int64 = .min
    /// The ``FixGeometry/sequence`` of the last fix used, when it was decided ahead by a
    /// ``FixLookahead``; -2 when the last fix was decided here (or none was).
    var lastSequence: Int64 = -2
    /// The evaluator's ``StreamEvaluator/regionEpoch`` when ``near`` was taken.
    var nearEpoch: UInt32 = 0
    /// Whether the last step left nothing pending and no one-shot just fired: a fix with the
    /// same hits would change nothing.
    var settled = false
    /// Whether ``aheadHits`` holds the hits of the last fix used (see there).
    var aheadHitsKept = false
    /// Region slots this device is inside, sorted.
    var inside: [Int32] = []
    /// Crossings waiting for dwell confirmation, sorted by slot.
    var pending: [PendingCrossing] = []
    /// Shared one-shot region slots that already fired for this device, sorted.
    var firedOnce: [Int32] = []
    /// The hits of the last fix used when ``aheadHitsKept`` (a lookahead sends none for a
    /// fix deciding as its predecessor, only the changes for one deciding otherwise): kept
    /// only when that fix left something pending. A cache like ``near``, never persisted.
    var aheadHits: [RegionHit] = []
    /// The tile of the device's last fix and its open regions' state (``Neighbourhood``):
    /// fixes in the same tile test only the open regions they may have reached. A cache, never
    /// persisted: a restored device takes its tile again on its next fix. Valid while
    /// ``nearEpoch`` is the evaluator's ``StreamEvaluator/regionEpoch``, or once its tile is
    /// found still held (``StreamEvaluator/nearIsCurrent(_:)``).
    var near = Neighbourhood()
}

/// A crossing seen but not yet confirmed by `--dwell`: its first fix on the new side.
struct PendingCrossing: Sendable, Hashable {
    var slot: Int32
    var since: Int64
}

/// A location request as the evaluator holds it (slot = position in identifier order).
struct LocationEntry: Sendable {
    var request: Int32
    /// Device index the request is scoped to; -1 when shared.
    var device: Int32
    var addedAt: Int64
    var notifyOnEntry: Bool
    var notifyOnExit: Bool
    var repeats: Bool
    /// Whether the request gives its own `addedAt` (else the stream's default): only those
    /// requests are read again when the default becomes known.
    var ownAddedAt: Bool
    /// A device-scoped one-shot that fired: no longer pending.
    var done: Bool = false
    /// Removed in place (``StreamEvaluator/kill(request:)``; also `done`): its state is never
    /// carried over to a request added again under its identifier.
    var removed: Bool = false
}
