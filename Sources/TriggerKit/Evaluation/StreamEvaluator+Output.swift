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
        // miss per event where separate arrays per piece cost several. The line is written
        // through a cursor into room made once for all of it.
        var h = record.seed
        let d = Int(e.device)
        let deviceBytes = d >= 0 ? Int(deviceEnds[d + 1] - deviceEnds[d]) : 0
        let secs = CivilDate.floorDiv(e.date, 1000)
        if secs != eventSecond.second {
            eventSecond = EventSecond(second: secs, text: Timestamp.secondText(secs))
        }
        let second = eventSecond
        w.append(atMost: record.end - record.text + deviceBytes + EventBytes.lineRoom) { c in
            eventTexts.arena.withUnsafeBufferPointer { arena in
                c.copy(arena[record.text..<record.headEnd])
                c.byte(0x22)
                if let text = second.text {
                    withUnsafeBytes(of: text) { c.copy(UnsafeBufferPointer(rebasing: $0.bindMemory(to: UInt8.self)[..<19])) }
                    let ms = Int(e.date - secs * 1000)
                    if ms != 0 {
                        c.byte(0x2E)
                        c.byte(UInt8(truncatingIfNeeded: 0x30 + ms / 100))
                        c.byte(UInt8(truncatingIfNeeded: 0x30 + ms / 10 % 10))
                        c.byte(UInt8(truncatingIfNeeded: 0x30 + ms % 10))
                    }
                    c.byte(0x5A)
                } else {
                    var text: [UInt8] = []
                    Timestamp.append(millis: e.date, to: &text)
                    text.withUnsafeBufferPointer { c.copy($0) }
                }
                c.byte(0x22)
                c.copy(arena[record.headEnd..<record.triggerEnd])
                switch e.crossing {
                case .enter?: c.copy(",\"event\":\"enter\"")
                case .exit?: c.copy(",\"event\":\"exit\"")
                case .dwellInside?: c.copy(",\"event\":\"dwellInside\"")
                case .dwellOutside?: c.copy(",\"event\":\"dwellOutside\"")
                case nil: break
                }
                if d >= 0 {
                    c.copy(",\"device\":")
                    deviceText.withUnsafeBufferPointer { c.copy($0[Int(deviceEnds[d])..<Int(deviceEnds[d + 1])]) }
                    EventID.mixDevice(&h, deviceHashes[d])
                } else {
                    EventID.mixDevice(&h, nil)
                }
                EventID.mixTail(&h, event: EventID.code(e), date: e.date)
                c.copy(arena[record.triggerEnd..<record.end])
            }
            let p = Int(e.presentation.rawValue & 31)
            EventBytes.presentations.withUnsafeBufferPointer {
                c.copy($0[Int(EventBytes.presentationEnds[p])..<Int(EventBytes.presentationEnds[p + 1])])
            }
            if e.count > 1 {
                c.copy(",\"coalesced\":")
                if e.count < 1 << 53 {
                    c.decimal(e.count)  // (what `JSONWriter.number` writes for it)
                } else {
                    var n = JSONWriter()
                    n.number(Double(e.count))
                    n.bytes.withUnsafeBufferPointer { c.copy($0) }
                }
            }
            c.copy(",\"eventId\":\"")
            c.hex(h)
            c.copy("\"}\n")
        }
    }
}

/// The second of the last event written and its text (``Timestamp/secondText(_:)``): events
/// come in bursts within a second, so the date is converted once per second.
struct EventSecond {
    var second = Int64.min
    var text: (UInt64, UInt64, UInt64)?
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
    /// Room for an event line besides its request's record and its device's name: the date
    /// (at most 40 bytes quoted, whatever the year), the event (26), the longest
    /// presentation, `coalesced` (13 + at most 24 for the number), the eventId (46) and the
    /// line's end (3).
    static let lineRoom = 40 + 26 + (0..<32).map { Int(presentationEnds[$0 + 1] - presentationEnds[$0]) }.max()! + 37 + 46 + 3

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
