/// What one commit writes: everything that changed since the previous commit, and the
/// input position it brings the store to. Written in one transaction, so after a crash
/// the store is at the previous batch or this one, never in between.
public struct StateBatch: Sendable {
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
    /// The batch's fires, in output order.
    public var delivered: [DeliveredEvent] = []

    public init(inputPosition: Int, defaultAddedAt: Int64?, streamTime: Int64?, stats: StreamStats) {
        self.inputPosition = inputPosition
        self.defaultAddedAt = defaultAddedAt
        self.streamTime = streamTime
        self.stats = stats
    }
}

/// A delivered fire as the store logs it: the fields of `triggerkit run`'s output line.
public struct DeliveredEvent: Sendable, Hashable {
    public var eventId: String
    public var identifier: String
    public var date: Int64
    public var trigger: TriggerKind
    /// enter or exit, for location fires.
    public var event: Crossing?
    public var device: String?
    public var region: String?

    public init(eventId: String, identifier: String, date: Int64, trigger: TriggerKind, event: Crossing?,
                device: String?, region: String?) {
        self.eventId = eventId
        self.identifier = identifier
        self.date = date
        self.trigger = trigger
        self.event = event
        self.device = device
        self.region = region
    }

    /// Appends the event as one line of `run`'s JSON output (same keys, same order, so a
    /// delivered listing can be compared byte for byte with what the run printed).
    public func write(to w: inout JSONWriter) {
        w.raw("{\"identifier\":")
        w.string(identifier)
        w.raw(",\"date\":")
        w.timestamp(millis: date)
        w.raw(",\"trigger\":")
        w.string(trigger.rawValue)
        if let event {
            w.raw(",\"event\":")
            w.string(event.rawValue)
        }
        if let device {
            w.raw(",\"device\":")
            w.string(device)
        }
        if let region {
            w.raw(",\"region\":")
            w.string(region)
        }
        w.raw(",\"eventId\":")
        w.string(eventId)
        w.raw("}\n")
    }
}

extension StreamEvaluator {
    /// An event with its names resolved, as the store logs it.
    public func delivered(_ e: FiredEvent) -> DeliveredEvent {
        DeliveredEvent(eventId: eventId(of: e), identifier: identifier(of: e), date: e.date, trigger: e.kind,
                       event: e.crossing, device: deviceName(of: e), region: regionIdentifier(of: e))
    }
}
