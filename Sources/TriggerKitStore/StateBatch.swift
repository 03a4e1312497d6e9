@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
/// What one commit writes: everything that changed since the previous commit, and the
/// input position it brings the store to. Written in one transaction, so after a crash
/// the store is at the previous batch or this one, never in between.
@_spi(Engine) public struct StateBatch: Sendable {
    /// Input lines fully processed once this batch is committed.
    public var inputPosition: Int
    public var defaultAddedAt: Int64?
    public var streamTime: Int64?
    public var stats: StreamStats
    /// Devices whose state changed in the batch.
    public var devices: [DeviceSnapshot] = []
    /// Schedule cursors set or moved (slot, next date).
    public var cursors: [EvaluatorSnapshot.QueuedFire] = []
    /// Schedule slots that have no next fire any more.
    public var finishedCursors: [Int32] = []
    /// Location slots of device-scoped one-shots that fired.
    public var doneLocationSlots: [Int32] = []
    /// Requests (by position) that are no longer pending.
    public var finishedRequests: [Int32] = []
    /// The batch's fires, in output order, as lines of `run`'s JSON output (one blob per
    /// batch: logging fires one row each cost more than evaluating them).
    public var deliveredLines: [UInt8] = []
    /// How many fires ``deliveredLines`` holds.
    public var deliveredCount = 0
    /// The fences with rules, whole (`nil`: none, nothing written).
    public var fences: FenceSnapshot?
    /// ``InputDigest`` of the first ``inputPosition`` lines.
    public var inputDigest = InputDigest().description

    public init(inputPosition: Int, defaultAddedAt: Int64?, streamTime: Int64?, stats: StreamStats) {
        self.inputPosition = inputPosition
        self.defaultAddedAt = defaultAddedAt
        self.streamTime = streamTime
        self.stats = stats
    }
}
