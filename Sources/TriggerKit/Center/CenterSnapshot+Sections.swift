import Foundation

// A snapshot's device states and delivered history in binary: the parts that grow with the
// devices a service has seen (the fences' state, the third, has its own binary form). Through Foundation's JSON, 10,000 devices with their full
// history (a million deliveries) took 10.6 s to write and 8.4 s to read back.

extension CenterSnapshot {
    /// Writes the device states: a count, then per device its name, `lastAccepted` and
    /// `lastUsed` (`Int64`), `inside` and `pendingSlots` (`Int32` lists), `pendingSince`
    /// (`Int64` list), `firedOnce` (`Int32` list), and its settings (a byte: 0 none, 1 then
    /// six bytes, each setting's position among its cases). Lists are a count and the values.
    static func write(devices: [DeviceSnapshot], to w: inout BinaryWriter) {
        w.count(devices.count)
        for d in devices {
            w.string(d.name)
            w.int(d.lastAccepted)
            w.int(d.lastUsed)
            w.ints(d.inside)
            w.ints(d.pendingSlots)
            w.ints(d.pendingSince)
            w.ints(d.firedOnce)
            if let s = d.settings {
                w.int(UInt8(1))
                w.int(position(of: s.authorizationStatus))
                for setting in [s.alertSetting, s.soundSetting, s.badgeSetting, s.notificationCenterSetting, s.lockScreenSetting] {
                    w.int(position(of: setting))
                }
            } else {
                w.int(UInt8(0))
            }
        }
    }

    /// Reads what ``write(devices:to:)`` wrote.
    static func readDevices(_ r: inout BinaryReader) throws(SnapshotError) -> [DeviceSnapshot] {
        // A device takes at least 4 + 8 + 8 + 4 x 4 + 1 bytes.
        guard let n = r.count(elementSize: 37) else { throw SnapshotError(reason: "damaged device states") }
        var devices: [DeviceSnapshot] = []
        devices.reserveCapacity(n)
        for k in 0..<n {
            guard let name = r.string(), let lastAccepted = r.int(Int64.self), let lastUsed = r.int(Int64.self),
                  let inside = r.ints(Int32.self), let pendingSlots = r.ints(Int32.self), let pendingSince = r.ints(Int64.self),
                  let firedOnce = r.ints(Int32.self), let hasSettings = r.flag() else {
                throw SnapshotError(reason: "damaged device state \(k)")
            }
            var settings: NotificationSettings?
            if hasSettings {
                guard let status: AuthorizationStatus = value(r.int(UInt8.self)), let alert: NotificationSetting = value(r.int(UInt8.self)),
                      let sound: NotificationSetting = value(r.int(UInt8.self)), let badge: NotificationSetting = value(r.int(UInt8.self)),
                      let centre: NotificationSetting = value(r.int(UInt8.self)), let lock: NotificationSetting = value(r.int(UInt8.self)) else {
                    throw SnapshotError(reason: "damaged settings of device state \(k)")
                }
                settings = NotificationSettings(authorizationStatus: status, alertSetting: alert, soundSetting: sound, badgeSetting: badge,
                                                notificationCenterSetting: centre, lockScreenSetting: lock)
            }
            devices.append(DeviceSnapshot(name: name, lastAccepted: lastAccepted, lastUsed: lastUsed, inside: inside,
                                          pendingSlots: pendingSlots, pendingSince: pendingSince, firedOnce: firedOnce, settings: settings))
        }
        return devices
    }

    /// Writes the delivered history: a table of the strings its devices and regions name
    /// (a count, then each), then a count and per delivery: its request's position in
    /// ``requests`` (`Int32`; -1: the request follows as its contract JSON, a length and the
    /// bytes, for a request changed or removed since), its date (the `Double` of
    /// `timeIntervalSinceReferenceDate`, bit for bit), its trigger kind, crossing (255: none)
    /// and presentation (a byte each), its device and region (`Int32` positions in the table,
    /// -1: none), its fire count (`Int64`), and its event id (a byte 0 then its 128 bits, two
    /// `UInt64`s low first; or 1 then the text, for an id given by hand).
    func writeDelivered(to w: inout BinaryWriter) {
        let positions = deliveredPositions()
        var table: [ExactKey: Int32] = [:]
        var strings: [String] = []
        // Byte-exact keys: a device named with a decomposed accent stays so.
        func entry(_ s: String?) -> Int32 {
            guard let s else { return -1 }
            let key = ExactKey(s)
            if let k = table[key] { return k }
            let k = Int32(strings.count)
            table[key] = k
            strings.append(s)
            return k
        }
        var records = BinaryWriter()
        records.count(delivered.count)
        for (d, position) in zip(delivered, positions) {
            records.int(Int32(position ?? -1))
            if position == nil {
                let record = d.request.contractRecord
                records.count(record.count)
                records.bytes(record)
            }
            records.int(d.date.timeIntervalSinceReferenceDate.bitPattern)
            records.int(Self.position(of: d.trigger))
            records.int(d.crossing.map(Self.code) ?? 255)
            records.int(d.presentation.rawValue)
            records.int(entry(d.device))
            records.int(entry(d.region))
            records.int(Int64(d.fireCount))
            switch d.id.compact {
            case .bits(let h):
                records.int(UInt8(0))
                records.int(UInt64(truncatingIfNeeded: h))
                records.int(UInt64(truncatingIfNeeded: h >> 64))
            case .text(let s):
                records.int(UInt8(1))
                records.string(s)
            }
        }
        w.count(strings.count)
        for s in strings { w.string(s) }
        w.bytes(records.out)
    }

    /// Reads what ``writeDelivered(to:)`` wrote; deliveries of one request share it, as they
    /// did in the center.
    static func readDelivered(_ r: inout BinaryReader, requests: [NotificationRequest]) throws(SnapshotError) -> [DeliveredNotification] {
        guard let stringCount = r.count(elementSize: 4) else { throw SnapshotError(reason: "damaged delivered history") }
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount {
            guard let s = r.string() else { throw SnapshotError(reason: "damaged delivered history: a name") }
            strings.append(s)
        }
        func string(_ k: Int32?) -> String?? {
            guard let k, k >= -1, k < Int32(strings.count) else { return nil }
            return k < 0 ? .some(nil) : .some(strings[Int(k)])
        }
        // A delivery takes at least 4 + 8 + 3 + 4 + 4 + 8 + 1 bytes.
        guard let n = r.count(elementSize: 32) else { throw SnapshotError(reason: "damaged delivered history") }
        var boxes = RequestBoxes(requests)
        var out: [DeliveredNotification] = []
        out.reserveCapacity(n)
        for k in 0..<n {
            // (Made only when thrown: not a string per delivery.)
            var damaged: SnapshotError { SnapshotError(reason: "damaged delivery \(k)") }
            guard let position = r.int(Int32.self) else { throw damaged }
            let request: SharedRequest
            if position >= 0 {
                request = try boxes.box(Int(position))
            } else {
                guard position == -1, let length = r.count(elementSize: 1), let bytes = r.span(length),
                      let own = try? NotificationRequest(contractRecord: bytes.bindMemory(to: UInt8.self)) else { throw damaged }
                request = SharedRequest(own)
            }
            guard let date = r.int(UInt64.self), let trigger: TriggerKind = value(r.int(UInt8.self)), let crossingCode = r.int(UInt8.self),
                  crossingCode == 255 || crossingCode < 4, let presentation = r.int(UInt8.self),
                  let device = string(r.int(Int32.self)), let region = string(r.int(Int32.self)),
                  let fireCount = r.int(Int64.self), let idForm = r.int(UInt8.self) else { throw damaged }
            let id: EventIDText
            switch idForm {
            case 0:
                guard let low = r.int(UInt64.self), let high = r.int(UInt64.self) else { throw damaged }
                id = .bits(UInt128(high) << 64 | UInt128(low))
            case 1:
                guard let text = r.string() else { throw damaged }
                id = .text(text)
            default: throw damaged
            }
            out.append(DeliveredNotification(shared: request, date: Date(timeIntervalSinceReferenceDate: Double(bitPattern: date)),
                                             trigger: trigger, crossing: crossingCode == 255 ? nil : crossings[Int(crossingCode)],
                                             device: device, region: region, presentation: Presentation(rawValue: presentation),
                                             fireCount: Int(truncatingIfNeeded: fireCount), id: id))
        }
        return out
    }

    /// Crossings by their stored code.
    private static let crossings: [Crossing] = [.enter, .exit, .dwellInside, .dwellOutside]
    private static func code(_ c: Crossing) -> UInt8 { UInt8(crossings.firstIndex(of: c)!) }

    /// A case's position among its type's cases (a byte).
    private static func position<E: CaseIterable & Equatable>(of e: E) -> UInt8 {
        UInt8(truncatingIfNeeded: E.allCases.firstIndex(of: e).map { E.allCases.distance(from: E.allCases.startIndex, to: $0) } ?? 0)
    }

    /// The case at a stored position; nil when the byte is missing or out of range.
    private static func value<E: CaseIterable>(_ byte: UInt8?) -> E? {
        guard let byte, Int(byte) < E.allCases.count else { return nil }
        return E.allCases[E.allCases.index(E.allCases.startIndex, offsetBy: Int(byte))]
    }
}

extension EventIDText {
    /// The same id, as its 128 bits when its text is what they format to (an id read back
    /// from JSON is text): stored in 16 bytes instead of 32.
    var compact: EventIDText {
        guard case .text(let s) = self, s.utf8.count == 32 else { return self }
        var h: UInt128 = 0
        for c in s.utf8 {
            switch c {
            case 0x30...0x39: h = h << 4 | UInt128(c - 0x30)
            case 0x61...0x66: h = h << 4 | UInt128(c - 0x61 + 10)
            default: return self
            }
        }
        return .bits(h)
    }
}
