/// How fired events are written.
public enum EventFormat: String, Sendable, CaseIterable {
    /// One JSON object per fire (the contract's shape, with `eventId`).
    case json
    /// Only the request identifier, one per line.
    case ids
}

extension StreamEvaluator {
    /// Appends one event as a line in `format` straight into `writer`'s byte buffer.
    ///
    /// JSON keys come in a fixed order (identifier, date, trigger, event, device, region,
    /// eventId) so the same input always gives byte-identical output.
    public func write(_ e: FiredEvent, format: EventFormat, to w: inout JSONWriter) {
        let id = identifier(of: e)
        guard format == .json else {
            w.bytes.append(contentsOf: id.utf8)
            w.bytes.append(0x0A)
            return
        }
        w.raw("{\"identifier\":")
        w.string(id)
        w.raw(",\"date\":")
        w.timestamp(millis: e.date)
        w.raw(",\"trigger\":")
        w.string(e.kind.rawValue)
        if let c = e.crossing {
            w.raw(",\"event\":")
            w.string(c.rawValue)
        }
        if let dev = deviceName(of: e) {
            w.raw(",\"device\":")
            w.string(dev)
        }
        if let region = regionIdentifier(of: e) {
            w.raw(",\"region\":")
            w.string(region)
        }
        w.raw(",\"presentation\":[")
        var first = true
        for (p, name) in Presentation.names where e.presentation.contains(p) {
            if !first { w.raw(",") }
            first = false
            w.string(name)
        }
        w.raw("]")
        w.raw(",\"eventId\":")
        w.string(eventId(of: e))
        w.raw("}\n")
    }
}
