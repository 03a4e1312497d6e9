import Foundation

// The snapshot's own byte form, which `StateStore` and `triggerkit serve` save. Foundation's
// JSON coders took 2.2 s to encode and 5.2 s to decode the snapshot of 100,000 location
// requests (a restart of a million: over a minute), nearly all of it the requests. Here the
// requests are their contract JSON lines (rendered, and read back, on every core, through
// the requests file's own decoder), the time triggers' cursors are fixed-width integers, and
// the device states, delivered history and fences' state are binary records
// (`CenterSnapshot+Sections`, `FenceSnapshot.binary`); the rest (categories, counters)
// stays Codable JSON.

extension CenterSnapshot {
    /// The snapshot as bytes, for ``init(serialized:)``: what a service stores to restart
    /// where it stopped (`StateStore.saveCenter(_:)` and `triggerkit serve` store this).
    ///
    /// Layout (integers little-endian): the magic `TKCS`, a `UInt32` layout version (2), then
    /// six sections, each a `UInt64` byte length and its bytes: a JSON object with
    /// everything but the requests, the cursors, the device states, the delivered history
    /// and the fences' state; the requests, one contract JSON object per line, in order; the
    /// queued fires, 12 bytes each (`Int32` slot, `Int64` date in milliseconds since 1970);
    /// the device states; the delivered history (both binary records, see
    /// `CenterSnapshot+Sections`); the fences' state (the binary form `run --state` keeps;
    /// empty when no request has fence rules). Layout 1 (the first three sections, the rest in
    /// the JSON) is still read.
    ///
    /// Requests are written as they are: a center's were all validated. (One the validator
    /// would refuse, made by hand, may not read back: a NaN has no JSON text.)
    ///
    /// - Throws: ``SnapshotError`` when the rest cannot be encoded as JSON (a non-finite
    ///   number where a center never keeps one).
    /// - Complexity: O(size of the snapshot); the requests are rendered on every core.
    public func serialized() throws(SnapshotError) -> Data {
        var head = self
        head.requests = []
        head.evaluator.queuedFires = []
        head.evaluator.devices = []
        head.evaluator.fences = nil
        let header = Header(formatVersion: formatVersion, requestCount: requests.count, evaluator: head.evaluator,
                            categories: categories, delivered: nil, statistics: statistics)
        let headerBytes: [UInt8]
        do {
            // Sorted keys: the same snapshot gives the same bytes in every process.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            headerBytes = [UInt8](try encoder.encode(header))
        } catch {
            throw SnapshotError(reason: "cannot encode the snapshot: \(error)")
        }
        let lines = Self.renderedLines(requests)
        let fires = evaluator.queuedFires
        var devices = BinaryWriter(), history = BinaryWriter()
        Self.write(devices: evaluator.devices, to: &devices)
        writeDelivered(to: &history)
        let fences = [UInt8](evaluator.fences?.binary ?? Data())
        let total = Self.magic.count + 4 + 6 * 8 + headerBytes.count + lines.reduce(0) { $0 + $1.count } + 12 * fires.count
            + devices.out.count + history.out.count + fences.count
        // One buffer of the final size, handed to `Data` without a copy.
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(1, total), alignment: 8)
        var at = 0
        func put(_ bytes: UnsafeRawBufferPointer) {
            if let p = bytes.baseAddress { (base + at).copyMemory(from: p, byteCount: bytes.count) }
            at += bytes.count
        }
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { put($0) } }
        Self.magic.withUnsafeBytes { put($0) }
        put(UInt32(Self.layoutVersion))
        put(UInt64(headerBytes.count))
        headerBytes.withUnsafeBytes { put($0) }
        put(UInt64(lines.reduce(0) { $0 + $1.count }))
        for part in lines { part.withUnsafeBytes { put($0) } }
        put(UInt64(fires.count * 12))
        for f in fires {
            put(f.slot)
            put(f.date)
        }
        for section in [devices.out, history.out, fences] {
            put(UInt64(section.count))
            section.withUnsafeBytes { put($0) }
        }
        return Data(bytesNoCopy: base, count: total, deallocator: .custom { p, _ in p.deallocate() })
    }

    /// A snapshot from ``serialized()``'s bytes, or from the JSON its `Codable` conformance
    /// writes (what services stored before this form existed).
    ///
    /// - Throws: ``SnapshotError`` naming what is wrong: damaged or cut bytes, a request
    ///   line that is not a request (with its number), a layout newer than this build's.
    ///   Requests are read as stored, not validated again (they were when added).
    /// - Complexity: O(size); the requests are decoded on every core.
    public init(serialized data: Data) throws(SnapshotError) {
        guard data.starts(with: Self.magic) else {
            do {
                self = try JSONDecoder().decode(CenterSnapshot.self, from: data)
                return
            } catch {
                throw SnapshotError(reason: "neither a serialized snapshot nor its JSON: \(error)")
            }
        }
        let read = data.withUnsafeBytes { raw in
            Result { () throws(SnapshotError) in try Self.read(raw.bindMemory(to: UInt8.self)) }
        }
        self = try read.get()
    }

    private static let magic: [UInt8] = Array("TKCS".utf8)
    private static let layoutVersion = 2

    /// Everything but the requests and the cursors (and from layout 2, the device states, the
    /// delivered history and the fences' state: `delivered` and `evaluator.fences` nil,
    /// `evaluator.devices` empty).
    private struct Header: Codable {
        var formatVersion: Int
        var requestCount: Int
        var evaluator: EvaluatorSnapshot
        var categories: [NotificationCategory]
        var delivered: [Delivery]?
        var statistics: CenterStatistics
    }

    /// Each request's contract JSON and a newline, in order, rendered on every core: one
    /// byte array per chunk of requests.
    private static func renderedLines(_ requests: [NotificationRequest]) -> [[UInt8]] {
        let chunks = ParallelChunks.ranges(requests.count)
        return ParallelChunks.results(chunks.count) { k in
            var w = JSONWriter()
            for i in chunks[k] {
                w.request(requests[i])
                w.bytes.append(0x0A)
            }
            return w.bytes
        }
    }

    private static func read(_ b: UnsafeBufferPointer<UInt8>) throws(SnapshotError) -> CenterSnapshot {
        var at = magic.count
        func integer<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(SnapshotError) -> T {
            let size = MemoryLayout<T>.size
            guard b.count - at >= size else { throw SnapshotError(reason: "cut short in \(what)") }
            let v = T(littleEndian: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[at..<at + size])).loadUnaligned(as: T.self))
            at += size
            return v
        }
        func section(_ what: String) throws(SnapshotError) -> UnsafeBufferPointer<UInt8> {
            let length = try integer(UInt64.self, "the length of \(what)")
            guard length <= UInt64(b.count - at) else { throw SnapshotError(reason: "cut short in \(what)") }
            defer { at += Int(length) }
            return UnsafeBufferPointer(rebasing: b[at..<at + Int(length)])
        }
        let layout = try integer(UInt32.self, "the layout version")
        guard layout <= layoutVersion else {
            throw SnapshotError(reason: "layout \(layout) is newer than this build's \(layoutVersion)")
        }
        let headerBytes = try section("the header")
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw SnapshotError(reason: "damaged header: \(error)")
        }
        let requests = try decodeLines(section("the requests"))
        guard requests.count == header.requestCount else {
            throw SnapshotError(reason: "\(requests.count) requests where the header says \(header.requestCount)")
        }
        let cursors = try section("the queued fires")
        guard cursors.count % 12 == 0 else { throw SnapshotError(reason: "the queued fires are cut short") }
        var evaluator = header.evaluator
        evaluator.queuedFires.reserveCapacity(cursors.count / 12)
        let raw = UnsafeRawBufferPointer(cursors)
        for k in stride(from: 0, to: raw.count, by: 12) {
            evaluator.queuedFires.append(.init(slot: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: Int32.self)),
                                               date: Int64(littleEndian: raw.loadUnaligned(fromByteOffset: k + 4, as: Int64.self))))
        }
        let delivered: [DeliveredNotification]
        if layout >= 2 {
            var devices = BinaryReader(raw: UnsafeRawBufferPointer(try section("the device states")))
            evaluator.devices = try readDevices(&devices)
            guard devices.atEnd else { throw SnapshotError(reason: "bytes after the device states") }
            var history = BinaryReader(raw: UnsafeRawBufferPointer(try section("the delivered history")))
            delivered = try readDelivered(&history, requests: requests)
            guard history.atEnd else { throw SnapshotError(reason: "bytes after the delivered history") }
            let fences = try section("the fences' state")
            if !fences.isEmpty {
                guard let read = FenceSnapshot(binary: Data(fences)) else { throw SnapshotError(reason: "damaged fences' state") }
                evaluator.fences = read
            }
        } else {
            delivered = try Self.delivered(from: header.delivered ?? [], requests: requests)
        }
        guard at == b.count else { throw SnapshotError(reason: "\(b.count - at) bytes after the last section") }
        return CenterSnapshot(formatVersion: header.formatVersion, requests: requests, evaluator: evaluator,
                              categories: header.categories, delivered: delivered, statistics: header.statistics)
    }

    /// The requests of the requests section, shape and values only (as `Codable` reads them):
    /// the common shapes straight from their bytes, the rest through a JSON tree.
    private static func decodeLines(_ bytes: UnsafeBufferPointer<UInt8>) throws(SnapshotError) -> [NotificationRequest] {
        let spans = RequestsFile.requestLines(bytes, from: 0, pieces: ParallelChunks.defaultPieces)
        nonisolated(unsafe) let text = bytes
        let chunks = ParallelChunks.ranges(spans.count)
        var failure: SnapshotError?
        // Each chunk decodes into its own part of the list; a record that fails is reported and
        // its place (and the rest of its chunk's) filled with an empty request, so the list is
        // whole when it is dropped.
        let requests = [NotificationRequest](unsafeUninitializedCapacity: spans.count) { buffer, initialized in
            nonisolated(unsafe) let out = buffer
            let failures = ParallelChunks.results(chunks.count) { k -> SnapshotError? in
                var failed: SnapshotError?
                for i in chunks[k] {
                    let (line, _, s, e) = spans[i]
                    var request: NotificationRequest?
                    if failed == nil {
                        let record = UnsafeBufferPointer(rebasing: text[s..<e])
                        request = RequestRecordDecoder.decode(record)
                        if request == nil {
                            do {
                                // The shape only (the requests were validated when added): a
                                // rule tightened since must not fail the restore (a polygon
                                // refused now stays, inert: the region index refuses it).
                                var warnings: [String] = []
                                request = try NotificationRequest(decoding: JSONValue.parse(record), warnings: &warnings)
                            } catch {
                                failed = SnapshotError(reason: "request line \(line): \(error)")
                            }
                        }
                    }
                    (out.baseAddress! + i).initialize(to: request ?? NotificationRequest(identifier: "", content: NotificationContent()))
                }
                return failed
            }
            initialized = spans.count
            failure = failures.lazy.compactMap { $0 }.first
        }
        if let failure { throw failure }
        return requests
    }
}
