/// A fire with its names resolved: one line of `triggerkit run`'s output, and what the
/// durable store logs as delivered.
@_spi(Engine) public struct DeliveredEvent: Sendable, Hashable {
    public var eventId: String
    public var identifier: String
    public var date: Int64
    public var trigger: TriggerKind
    /// enter or exit, for location fires.
    public var event: Crossing?
    public var device: String?
    public var region: String?
    /// How it was presented (see ``NotificationSettings/presentation(of:)``).
    public var presentation: Presentation

    public init(eventId: String, identifier: String, date: Int64, trigger: TriggerKind, event: Crossing?,
                device: String?, region: String?, presentation: Presentation) {
        self.presentation = presentation
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
        w.raw(",\"presentation\":[")
        var first = true
        for (p, name) in Presentation.names where presentation.contains(p) {
            if !first { w.raw(",") }
            first = false
            w.string(name)
        }
        w.raw("],\"eventId\":")
        w.string(eventId)
        w.raw("}\n")
    }
}

@_spi(Engine) extension StreamEvaluator {
    /// An event with its names resolved, as the store logs it.
    public func delivered(_ e: FiredEvent) -> DeliveredEvent {
        DeliveredEvent(eventId: eventId(of: e), identifier: identifier(of: e), date: e.date, trigger: e.kind,
                       event: e.crossing, device: deviceName(of: e), region: regionIdentifier(of: e), presentation: e.presentation)
    }
}

@_spi(Engine) extension DeliveredEvent {
    /// Reads one line of `run`'s JSON output back; `nil` when it is not one.
    public init?(json: JSONValue) {
        guard case .object(let o) = json, case .string(let id)? = o["identifier"], case .string(let date)? = o["date"],
              let ms = Timestamp.parseMillis(date), case .string(let kind)? = o["trigger"], let trigger = TriggerKind(rawValue: kind),
              case .string(let eventId)? = o["eventId"] else { return nil }
        var presentation: Presentation = []
        if case .array(let names)? = o["presentation"] {
            for case .string(let n) in names {
                guard let p = Presentation.names.first(where: { $0.1 == n })?.0 else { return nil }
                presentation.insert(p)
            }
        }
        self.init(eventId: eventId, identifier: id, date: ms, trigger: trigger,
                  event: o["event"]?.stringValue.flatMap(Crossing.init(rawValue:)),
                  device: o["device"]?.stringValue, region: o["region"]?.stringValue, presentation: presentation)
    }
}
