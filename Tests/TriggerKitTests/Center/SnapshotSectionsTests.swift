import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The snapshot's device states and delivered history as binary records (layout 2 of the
/// byte form): every field back exactly, names byte for byte, the layout before still read,
/// and the history's order kept without formatting ids.
@Suite struct SnapshotSectionsTests {
    /// A snapshot of layout 1, saved by the build before layout 2 from the center
    /// `SnapshotBytesTests.used()` makes (that center is deterministic).
    @Test func aSnapshotOfTheLayoutBeforeIsStillRead() async throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("snapshots/used-center-layout1.tkcs")))
        #expect(bytes[4] == 1, "the fixture is of layout 1")
        let snap = await (try await SnapshotBytesTests.used()).center.snapshot()
        // That build stored the history by date; a snapshot now stores each device's in the
        // order it arrived (what a restore appends). The same entries, in the two orders.
        var byDate = snap
        byDate.delivered.sort { $0.date != $1.date ? $0.date < $1.date : $0.id.sorts(before: $1.id) }
        SnapshotBytesTests.same(try CenterSnapshot(serialized: bytes), byDate)
        // And the same snapshot in today's layout.
        let now = try snap.serialized()
        #expect(now[4] == 2)
        SnapshotBytesTests.same(try CenterSnapshot(serialized: now), snap)
    }

    /// Deliveries and device states of every shape: a request changed after it fired (stored
    /// whole), ids given by hand, names that differ only in Unicode normalisation, every
    /// crossing, no device or region, a coalesced fire, a date off the millisecond, settings.
    @Test func everyFieldComesBackExactly() async throws {
        var snap = await (try await SnapshotBytesTests.used()).center.snapshot()
        let base = try #require(snap.delivered.first)
        var changed = base.request
        changed.content.title = "changed since"
        let crossings: [Crossing?] = [nil, .enter, .exit, .dwellInside, .dwellOutside]
        for (k, name) in ["cafe\u{301}", "caf\u{e9}", "", "\u{1F600}\u{0}", "d"].enumerated() {
            var d = base
            d.device = k == 4 ? nil : name
            d.region = k == 1 ? nil : "r\u{301}\(k)"
            d.crossing = crossings[k]
            d.fireCount = [1, 3, 1 << 40, 7, 2][k]
            d.date = Date(timeIntervalSinceReferenceDate: 817_000_000.123_456_789 + Double(k))
            d.presentation = Presentation(rawValue: UInt8(k * 7))
            if k == 0 { d.request = changed }
            if k == 1 { d.eventId = "given by hand" }
            if k == 2 { d.eventId = "0123456789abcdef0123456789ABCDEF" }  // hex, but not as computed
            if k == 3 { d.eventId = "0123456789abcdef0123456789abcdef" }  // as computed: kept as its bits
            snap.delivered.append(d)
            snap.evaluator.devices.append(DeviceSnapshot(
                name: name, lastAccepted: Int64.min + Int64(k), lastUsed: Int64.max - Int64(k), inside: [Int32(k), 9],
                pendingSlots: k == 0 ? [] : [1], pendingSince: k == 0 ? [] : [-5], firedOnce: [Int32.max],
                settings: k == 0 ? nil : NotificationSettings(
                    authorizationStatus: AuthorizationStatus.allCases[k % 5], alertSetting: NotificationSetting.allCases[k % 3],
                    soundSetting: NotificationSetting.allCases[(k + 1) % 3], badgeSetting: NotificationSetting.allCases[(k + 2) % 3],
                    notificationCenterSetting: .disabled, lockScreenSetting: .notSupported)))
        }
        let back = try CenterSnapshot(serialized: try snap.serialized())
        SnapshotBytesTests.same(back, snap)
        // `==` on strings is canonical equivalence: the bytes are checked too.
        #expect(back.delivered.map { $0.device.map { Array($0.utf8) } } == snap.delivered.map { $0.device.map { Array($0.utf8) } })
        #expect(back.delivered.map { $0.region.map { Array($0.utf8) } } == snap.delivered.map { $0.region.map { Array($0.utf8) } })
        #expect(back.evaluator.devices.map { Array($0.name.utf8) } == snap.evaluator.devices.map { Array($0.name.utf8) })
        #expect(back.delivered.map(\.eventId) == snap.delivered.map(\.eventId))
        #expect(back.delivered.map(\.date.timeIntervalSinceReferenceDate.bitPattern) == snap.delivered.map(\.date.timeIntervalSinceReferenceDate.bitPattern))
        let restoredChanged = try #require(back.delivered.first { $0.request.content.title == "changed since" })
        #expect(restoredChanged.request == changed)
        // Deliveries of one unchanged request share it again.
        let sameRequest = back.delivered.filter { $0.request == base.request }
        #expect(sameRequest.count > 1)
        #expect(Set(sameRequest.map { ObjectIdentifier($0.shared) }).count == 1)
    }

    /// The history is listed by date, then event id text; computed ids are compared by their
    /// bits, which must give the text's order.
    @Test func idsSortAsTheirText() {
        var g = SeededGenerator(seed: 3)
        var ids: [EventIDText] = (0..<400).map { _ in .bits(UInt128(g.next()) << 64 | UInt128(g.next()) >> UInt128(g.int(64))) }
        ids += [.text("given"), .text(""), .text("0123456789abcdef0123456789abcdef"), .text("ffffffffffffffffffffffffffffffff0"), .bits(0), .bits(.max)]
        for a in ids {
            for b in ids.prefix(60) {
                #expect(a.sorts(before: b) == (a.text < b.text), "\(a.text) / \(b.text)")
            }
        }
    }
}
