// One line's answer from a ``FixLookahead``: the regions its fix is in, relative to which
// earlier fix, and where its fences' moves are.

/// What ``FixLookahead`` decided for one fix line.
@_spi(StreamFastPath) public struct FixGeometry: Sendable {
    // The fields ordered widest first: 40 bytes with the optional's tag (one per line).

    /// This fix's number among the lines the lookahead saw.
    let sequence: Int64
    /// The number of the device's fix this one was compared with (-1: none).
    let previous: Int64
    /// The fix's hits (or changes): `count` of the caller's hit buffer from `start`, sorted by
    /// slot; none when `same` (they are the previous fix's).
    let start: Int32
    let count: Int32
    /// The device's number in the lookahead (devices numbered as first seen, by their bytes):
    /// the evaluator finds its own device through it, without hashing the id again.
    let device: Int32
    /// Fences with rules: where the fix's answer is in the caller's move buffer (a
    /// ``FenceMove/Kind/answer`` then its moves, in fence order); -1 when they were not decided.
    var fenceStart: Int32 = -1
    /// Whether both are in one neighbourhood and its open regions decide alike for both: the
    /// fix's hits are that fix's.
    let same: Bool
    /// Whether the entries are only the changes from the previous fix's hits (both in one
    /// neighbourhood): the regions whose decision changed, by slot, each with its new hit or
    /// as ``RegionHit/miss(_:)``.
    let delta: Bool
    /// Whether the geometry was decided (the device is in the lookahead's ``FixLookahead/share``);
    /// if not, only ``device`` is given and the evaluator decides the fix.
    let decided: Bool

    init(sequence: Int64, previous: Int64, same: Bool, delta: Bool, start: Int32, count: Int32, device: Int32, decided: Bool) {
        self.sequence = sequence
        self.previous = previous
        self.same = same
        self.delta = delta
        self.start = start
        self.count = count
        self.device = device
        self.decided = decided
    }

    /// Whether the lookahead decided the fix's geometry (else the evaluator does).
    public var isDecided: Bool { decided }
}
