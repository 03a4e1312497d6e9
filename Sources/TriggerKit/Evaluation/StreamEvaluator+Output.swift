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
        let at = eventTexts.offsets[r]
        let record = eventTexts.arena.withUnsafeBufferPointer { EventTexts.Record($0, at: at) }
        guard record.kind == e.kind else {
            // Not the request's own kind (no such event today): the general path.
            delivered(e).write(to: &w)
            return
        }
        // One record per request in one arena (its seed, ends and bytes together): one cache
        // miss per event where separate arrays per piece cost several.
        var h = record.seed
        eventTexts.arena.withUnsafeBufferPointer { arena in
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: arena[record.text..<record.headEnd]))
            w.timestamp(millis: e.date)
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: arena[record.headEnd..<record.triggerEnd]))
            switch e.crossing {
            case .enter?: w.raw(",\"event\":\"enter\"")
            case .exit?: w.raw(",\"event\":\"exit\"")
            case .dwellInside?: w.raw(",\"event\":\"dwellInside\"")
            case .dwellOutside?: w.raw(",\"event\":\"dwellOutside\"")
            case nil: break
            }
            if e.device >= 0 {
                w.raw(",\"device\":")
                let d = Int(e.device)
                deviceText.withUnsafeBufferPointer { w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[Int(deviceEnds[d])..<Int(deviceEnds[d + 1])])) }
                EventID.mixDevice(&h, deviceHashes[d])
            } else {
                EventID.mixDevice(&h, nil)
            }
            EventID.mixTail(&h, event: EventID.code(e), date: e.date)
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: arena[record.triggerEnd..<record.end]))
        }
        let p = Int(e.presentation.rawValue & 31)
        EventBytes.presentations.withUnsafeBufferPointer {
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[Int(EventBytes.presentationEnds[p])..<Int(EventBytes.presentationEnds[p + 1])]))
        }
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
        if eventTexts.offsets.count < requests.count {
            eventTexts.offsets += Array(repeating: EventTexts.none, count: requests.count - eventTexts.offsets.count)
        }
        if eventTexts.offsets[r] == EventTexts.none { eventTexts.add(requests[r], at: r) }
        if e.device >= 0 && deviceHashes.count <= Int(e.device) {
            for d in deviceHashes.count..<deviceNames.count {
                deviceText.append(contentsOf: JSONWriter.stringLiteral(deviceNames[d]))
                deviceEnds.append(Int32(deviceText.count))
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
        var h = eventTexts.arena.withUnsafeBufferPointer { EventTexts.Record($0, at: eventTexts.offsets[Int(e.request)]) }.seed
        EventID.mixDevice(&h, e.device >= 0 ? deviceHashes[Int(e.device)] : nil)
        EventID.mixTail(&h, event: EventID.code(e), date: e.date)
        return h
    }
}

/// Each request's share of its output lines, as bytes, filled on first use: one record per
/// request in one arena, found through its offset (a small array that stays in cache).
struct EventTexts {
    /// Per request, where its record starts in ``arena``; ``none`` until first used.
    var offsets: [Int] = []
    var arena: [UInt8] = []
    static let none = -1

    /// A record: the ``EventID`` seed (16 bytes), three ends (8 bytes each, absolute
    /// positions in the arena), the trigger kind (1 byte), then the text:
    /// `{"identifier":"…","date":` up to ``headEnd``, `,"trigger":"…"` up to ``triggerEnd``,
    /// then `,"region":"…"` for location requests, up to ``end``.
    struct Record {
        static let headerSize = 41
        let seed: UInt128
        let headEnd: Int
        let triggerEnd: Int
        let end: Int
        let kind: TriggerKind
        let text: Int

        @inline(__always)
        init(_ arena: UnsafeBufferPointer<UInt8>, at offset: Int) {
            let raw = UnsafeRawPointer(arena.baseAddress.unsafelyUnwrapped) + offset
            seed = raw.loadUnaligned(as: UInt128.self)
            headEnd = raw.loadUnaligned(fromByteOffset: 16, as: Int.self)
            triggerEnd = raw.loadUnaligned(fromByteOffset: 24, as: Int.self)
            end = raw.loadUnaligned(fromByteOffset: 32, as: Int.self)
            kind = TriggerKind.allCases[Int(raw.load(fromByteOffset: 40, as: UInt8.self))]
            text = offset + Self.headerSize
        }
    }

    /// Renders request `r`'s record at the end of the arena.
    mutating func add(_ request: NotificationRequest, at r: Int) {
        let start = arena.count
        var w = JSONWriter()
        w.raw("{\"identifier\":")
        w.string(request.identifier)
        w.raw(",\"date\":")
        let headEnd = w.bytes.count
        let kind = request.trigger.kind
        w.raw(",\"trigger\":")
        w.string(kind.rawValue)
        let triggerEnd = w.bytes.count
        if case .location(let t) = request.trigger {
            w.raw(",\"region\":")
            w.string(t.region.identifier)
        }
        let base = start + Record.headerSize
        withUnsafeBytes(of: EventID.seed(identifier: request.identifier)) { arena.append(contentsOf: $0) }
        for end in [base + headEnd, base + triggerEnd, base + w.bytes.count] {
            withUnsafeBytes(of: end) { arena.append(contentsOf: $0) }
        }
        arena.append(UInt8(TriggerKind.allCases.firstIndex(of: kind)!))
        arena.append(contentsOf: w.bytes)
        offsets[r] = start
    }
}

/// `,"presentation":[…]` bytes.
enum EventBytes {
    /// `,"presentation":[…]` for every value of the 5-bit ``Presentation`` set, one after the
    /// other: value v's bytes end at ``presentationEnds``[v + 1].
    static let presentations: [UInt8] = (0..<32).flatMap { presentation($0) }
    static let presentationEnds: [Int32] = (0..<32).reduce(into: [0]) { ends, raw in ends.append(ends.last! + Int32(presentation(raw).count)) }

    private static func presentation(_ raw: Int) -> [UInt8] {
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
