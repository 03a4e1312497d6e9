/// How fired events are written.
@_spi(Engine) public enum EventFormat: String, Sendable, CaseIterable {
    /// One JSON object per fire (the contract's shape, with `eventId`).
    case json
    /// Only the request identifier, one per line.
    case ids
}

@_spi(Engine) extension StreamEvaluator {
    /// Appends one event as a line in `format` straight into `writer`'s byte buffer.
    ///
    /// JSON keys come in a fixed order (identifier, date, trigger, event, device, region,
    /// presentation, eventId) so the same input always gives byte-identical output; the bytes
    /// are those of ``DeliveredEvent/write(to:)`` for ``delivered(_:)``.
    ///
    /// - Complexity: O(length of the line). The escaped identifier, trigger and region of a
    ///   request, its `eventId` hash seed and each device's escaped name are computed once and
    ///   copied in bulk afterwards: no Strings and no ``DeliveredEvent`` per event.
    public func write(_ e: FiredEvent, format: EventFormat, to w: inout JSONWriter) {
        guard format == .json else {
            // Control characters and backslashes escaped as in a JSON string body, so every
            // identifier is exactly one line and the output reads back unambiguously.
            w.stringBody(identifier(of: e))
            w.bytes.append(0x0A)
            return
        }
        let r = Int(e.request)
        fillCaches(e)
        guard eventBytes[r].kind == e.kind else {
            // Not the request's own kind (no such event today): the general path.
            delivered(e).write(to: &w)
            return
        }
        var h = eventBytes[r].seed
        w.bytes.append(contentsOf: eventBytes[r].head)
        w.timestamp(millis: e.date)
        w.bytes.append(contentsOf: eventBytes[r].trigger)
        switch e.crossing {
        case .enter?: w.raw(",\"event\":\"enter\"")
        case .exit?: w.raw(",\"event\":\"exit\"")
        case .dwellInside?: w.raw(",\"event\":\"dwellInside\"")
        case .dwellOutside?: w.raw(",\"event\":\"dwellOutside\"")
        case nil: break
        }
        if e.device >= 0 {
            w.raw(",\"device\":")
            w.bytes.append(contentsOf: deviceBytes[Int(e.device)])
            EventID.mixDevice(&h, deviceHashes[Int(e.device)])
        } else {
            EventID.mixDevice(&h, nil)
        }
        EventID.mixTail(&h, event: EventID.code(e), date: e.date)
        w.bytes.append(contentsOf: eventBytes[r].region)
        w.bytes.append(contentsOf: EventBytes.presentations[Int(e.presentation.rawValue & 31)])
        if e.count > 1 {
            w.raw(",\"coalesced\":")
            w.number(Double(e.count))
        }
        w.raw(",\"eventId\":\"")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buf in
            EventID.writeHex(h, to: buf.baseAddress.unsafelyUnwrapped)
            w.bytes.append(contentsOf: buf)
        }
        w.raw("\"}\n")
    }
}

extension StreamEvaluator {
    /// Fills the per-request and per-device caches an event needs (first use only).
    @inline(__always)
    func fillCaches(_ e: FiredEvent) {
        let r = Int(e.request)
        if eventBytes.count < requests.count { eventBytes += Array(repeating: EventBytes(), count: requests.count - eventBytes.count) }
        if eventBytes[r].head.isEmpty { eventBytes[r] = EventBytes(requests[r]) }
        if e.device >= 0 && deviceBytes.count <= Int(e.device) {
            for d in deviceBytes.count..<deviceNames.count {
                deviceBytes.append(JSONWriter.stringLiteral(deviceNames[d]))
                deviceHashes.append(EventID.deviceHash(deviceNames[d]))
            }
        }
    }

    /// The contract's `eventId` of an event, from the cached request seed and device hash
    /// (three word mixes, no rehashing of names): what ``TriggerCenter`` attaches to each
    /// delivery.
    public func eventId(of e: FiredEvent) -> String {
        EventIDText.bits(eventIdBits(of: e)).text
    }

    /// ``eventId(of:)`` as its 128 bits.
    func eventIdBits(of e: FiredEvent) -> UInt128 {
        fillCaches(e)
        var h = eventBytes[Int(e.request)].seed
        EventID.mixDevice(&h, e.device >= 0 ? deviceHashes[Int(e.device)] : nil)
        EventID.mixTail(&h, event: EventID.code(e), date: e.date)
        return h
    }
}

/// A request's share of its output lines, as bytes.
struct EventBytes {
    /// `{"identifier":"…","date":`; empty until first used.
    var head: [UInt8] = []
    /// `,"trigger":"…"`.
    var trigger: [UInt8] = []
    /// `,"region":"…"` for location requests, else empty.
    var region: [UInt8] = []
    var kind: TriggerKind = .immediate
    /// ``EventID`` state after the identifier.
    var seed: UInt128 = 0

    init() {}

    init(_ r: NotificationRequest) {
        var w = JSONWriter()
        w.raw("{\"identifier\":")
        w.string(r.identifier)
        w.raw(",\"date\":")
        head = w.bytes
        kind = r.trigger.kind
        w = JSONWriter()
        w.raw(",\"trigger\":")
        w.string(kind.rawValue)
        trigger = w.bytes
        if case .location(let t) = r.trigger {
            w = JSONWriter()
            w.raw(",\"region\":")
            w.string(t.region.identifier)
            region = w.bytes
        }
        seed = EventID.seed(identifier: r.identifier)
    }

    /// `,"presentation":[…]` for every value of the 5-bit ``Presentation`` set.
    static let presentations: [[UInt8]] = (0..<32).map { raw in
        var w = JSONWriter()
        w.raw(",\"presentation\":[")
        var first = true
        for (p, name) in Presentation.names where Presentation(rawValue: UInt8(raw)).contains(p) {
            if !first { w.raw(",") }
            first = false
            w.string(name)
        }
        w.raw("]")
        return w.bytes
    }
}
