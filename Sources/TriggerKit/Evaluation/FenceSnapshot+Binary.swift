import Foundation

/// The state of fences with rules as one compact binary blob: `run --state` writes it whole
/// with every batch, so its cost is per device per batch. Its JSON took about 15 % of a run
/// with rules on every circle (1,000 devices, 20 batches); this is a copy of fixed-width
/// fields.
///
/// Layout, little-endian: the magic `TKF1`; the done fences (a count, then `Int32`s); the
/// devices (a count, then for each: its name's UTF-8 length and bytes, `lastSeen`, a byte
/// of flags saying which of latitude, longitude and last fix time follow, those, and its
/// links: a count, then for each `fence` Int32, `inside` byte, `since` and `due` Int64,
/// `firedOnce` byte). Counts are `UInt32`.
extension FenceSnapshot {
    private static let magic: [UInt8] = Array("TKF1".utf8)

    /// The snapshot as a compact binary blob (see above), read back by ``init(binary:)``.
    package var binary: Data {
        var w = BinaryWriter()
        w.bytes(Self.magic)
        w.count(doneFences.count)
        for f in doneFences { w.int(f) }
        w.count(devices.count)
        for d in devices {
            let name = Array(d.name.utf8)
            w.count(name.count)
            w.bytes(name)
            w.int(d.lastSeen)
            let flags = UInt8((d.lastLatitude != nil ? 1 : 0) | (d.lastLongitude != nil ? 2 : 0) | (d.lastFixTime != nil ? 4 : 0))
            w.int(flags)
            if let v = d.lastLatitude { w.int(v.bitPattern) }
            if let v = d.lastLongitude { w.int(v.bitPattern) }
            if let v = d.lastFixTime { w.int(v) }
            w.count(d.links.count)
            for l in d.links {
                w.int(l.fence)
                w.int(UInt8(l.inside ? 1 : 0))
                w.int(l.since)
                w.int(l.due)
                w.int(UInt8(l.firedOnce ? 1 : 0))
            }
        }
        return Data(w.out)
    }

    /// Reads ``binary``'s blob; nil when it is not one or is damaged: no magic, short, a
    /// count beyond its length, a name that is not UTF-8, a flag or Boolean byte out of range,
    /// or bytes left over.
    package init?(binary blob: Data) {
        guard blob.starts(with: Self.magic) else { return nil }
        let read = blob.withUnsafeBytes { raw -> FenceSnapshot? in
            var r = BinaryReader(raw: raw, at: Self.magic.count)
            guard let doneCount = r.count(elementSize: 4) else { return nil }
            var done: [Int32] = []
            done.reserveCapacity(doneCount)
            for _ in 0..<doneCount {
                guard let f = r.int(Int32.self) else { return nil }
                done.append(f)
            }
            // A device takes at least 4 + 8 + 1 + 4 bytes.
            guard let deviceCount = r.count(elementSize: 17) else { return nil }
            var devices: [FenceSnapshot.Device] = []
            devices.reserveCapacity(deviceCount)
            for _ in 0..<deviceCount {
                guard let nameLength = r.count(elementSize: 1), let nameBytes = r.bytes(nameLength),
                      let name = String(validating: nameBytes, as: UTF8.self),
                      let lastSeen = r.int(Int64.self), let flags = r.int(UInt8.self), flags < 8 else { return nil }
                var latitude: Double?, longitude: Double?, fixTime: Int64?
                if flags & 1 != 0 { guard let v = r.int(UInt64.self) else { return nil }; latitude = Double(bitPattern: v) }
                if flags & 2 != 0 { guard let v = r.int(UInt64.self) else { return nil }; longitude = Double(bitPattern: v) }
                if flags & 4 != 0 { guard let v = r.int(Int64.self) else { return nil }; fixTime = v }
                guard let linkCount = r.count(elementSize: 22) else { return nil }
                var links: [FenceSnapshot.LinkState] = []
                links.reserveCapacity(linkCount)
                for _ in 0..<linkCount {
                    guard let fence = r.int(Int32.self), let inside = r.flag(), let since = r.int(Int64.self),
                          let due = r.int(Int64.self), let firedOnce = r.flag() else { return nil }
                    links.append(FenceSnapshot.LinkState(fence: fence, inside: inside, since: since, due: due, firedOnce: firedOnce))
                }
                devices.append(FenceSnapshot.Device(name: name, lastSeen: lastSeen, lastLatitude: latitude, lastLongitude: longitude,
                                                    lastFixTime: fixTime, links: links))
            }
            guard r.atEnd else { return nil }
            return FenceSnapshot(doneFences: done, devices: devices)
        }
        guard let read else { return nil }
        self = read
    }
}
