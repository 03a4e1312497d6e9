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
        guard format == .json else {
            w.bytes.append(contentsOf: identifier(of: e).utf8)
            w.bytes.append(0x0A)
            return
        }
        delivered(e).write(to: &w)
    }
}
