import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// `CenterSnapshot.serialized()` / `init(serialized:)`: the byte form `StateStore` and
/// `triggerkit serve` keep. It must give back the snapshot exactly, still read the JSON saved
/// before it existed, and refuse damaged bytes with a reason (never trap).
@Suite struct SnapshotBytesTests {
    static let square = [(0.0, 0.0), (0.01, 0), (0.01, 0.01), (0, 0.01), (0, 0)].map { Coordinate(latitude: 40 + $0.1, longitude: -74 + $0.0) }

    /// Every kind of request, with devices, rules, user info and a polygon with a hole.
    static func requests() -> [NotificationRequest] {
        let hole = [(0.004, 0.004), (0.004, 0.006), (0.006, 0.006), (0.004, 0.004)].map { Coordinate(latitude: 40 + $0.1, longitude: -74 + $0.0) }
        return CenterSnapshotTests.requests() + [
            NotificationRequest(identifier: "area", content: NotificationContent(title: "a", userInfo: ["k": .array([.number(1.5), .null])]),
                                trigger: .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "a", polygons: [[square, hole]],
                                                                                                  isMultiPolygon: false)), repeats: true))),
            NotificationRequest(identifier: "dwell", content: NotificationContent(title: "w"), trigger: .location(LocationTrigger(
                region: .circular(CircularRegion(identifier: "w", center: Coordinate(latitude: 40, longitude: -74), radius: 150)), repeats: true,
                rules: FenceRules(dwell: FenceDwell(duration: 60)))), device: "d"),
            NotificationRequest(identifier: "soon", content: NotificationContent(title: "s \u{e9}\"\n"),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 600, repeats: false)),
                                expiresAt: Center.t0.addingTimeInterval(86_400)),
        ]
    }

    /// A center with history: requests, categories, settings, fires delivered, devices inside.
    static func used() async throws -> Center {
        let c = Center()
        try await c.center.setNotificationCategories([NotificationCategory(identifier: "R", actions: [
            NotificationAction(identifier: "stop", title: "Stop", effect: .removeRequest)])])
        try await c.setNotificationSettings(NotificationSettings(authorizationStatus: .provisional), forDevice: "e")
        for r in requests() { try await c.add(r) }
        for k in 0..<9 { _ = try await CenterSnapshotTests.step(c, k) }
        return c
    }

    static func same(_ a: CenterSnapshot, _ b: CenterSnapshot) {
        #expect(a.formatVersion == b.formatVersion)
        #expect(a.requests == b.requests)
        #expect(a.evaluator == b.evaluator)
        #expect(a.categories == b.categories)
        #expect(a.delivered == b.delivered)
        #expect(a.statistics == b.statistics)
    }

    @Test func aSnapshotComesBackExactly() async throws {
        let c = try await Self.used()
        let snap = await c.center.snapshot()
        #expect(!snap.delivered.isEmpty && !snap.evaluator.queuedFires.isEmpty && !snap.evaluator.devices.isEmpty)
        let bytes = try snap.serialized()
        #expect(bytes.starts(with: Array("TKCS".utf8)))
        Self.same(try CenterSnapshot(serialized: bytes), snap)
        // The JSON of the `Codable` conformance (what was stored before) reads the same.
        Self.same(try CenterSnapshot(serialized: JSONEncoder().encode(snap)), snap)
        // An empty center too.
        let empty = await Center().center.snapshot()
        Self.same(try CenterSnapshot(serialized: try empty.serialized()), empty)
    }

    /// Restored from its bytes, a center goes on as the original does (and as one restored
    /// from the JSON form).
    @Test func aCenterRestoredFromItsBytesGoesOnAlike() async throws {
        let a = try await Self.used()
        let snap = await a.center.snapshot()
        func restored(_ s: CenterSnapshot) throws -> Center {
            let clock = ManualClock(a.clock.now)
            return Center(wrapping: try TriggerCenter(restoring: s, configuration: a.center.configuration, clock: clock), clock: clock)
        }
        let b = try restored(CenterSnapshot(serialized: try snap.serialized()))
        let j = try restored(JSONDecoder().decode(CenterSnapshot.self, from: JSONEncoder().encode(snap)))
        var fired = 0
        for k in 9..<40 {
            let want = try await CenterSnapshotTests.step(a, k)
            #expect(try await CenterSnapshotTests.step(b, k) == want, "step \(k)")
            #expect(try await CenterSnapshotTests.step(j, k) == want, "step \(k)")
            fired += want.count
        }
        #expect(fired > 20)
    }

    /// Cut anywhere, or with a byte changed, the bytes are refused with a reason or give a
    /// snapshot; restoring that either works or is refused. Nothing traps.
    @Test func damagedBytesAreRefusedNotTrapped() async throws {
        let snap = await (try await Self.used()).center.snapshot()
        let bytes = [UInt8](try snap.serialized())
        var cuts = Array(0..<min(bytes.count, 64))
        cuts += stride(from: 64, to: bytes.count, by: max(1, bytes.count / 300)).map { $0 }
        for n in cuts {
            #expect(throws: SnapshotError.self, "cut at \(n)") { try CenterSnapshot(serialized: Data(bytes[..<n])) }
        }
        #expect(throws: SnapshotError.self) { try CenterSnapshot(serialized: Data(bytes + [0])) }
        var g = SeededGenerator(seed: 11)
        var refused = 0, restored = 0
        for _ in 0..<1_500 {
            var damaged = bytes
            damaged[g.int(damaged.count)] ^= UInt8(1 << g.int(8))
            guard let s = try? CenterSnapshot(serialized: Data(damaged)) else {
                refused += 1
                continue
            }
            let clock = ManualClock(Center.t0.addingTimeInterval(3600))
            if let center = try? TriggerCenter(restoring: s, clock: clock) {
                restored += 1
                _ = try? await center.receive(LocationFix(device: "d", date: clock.now, latitude: 40.0001, longitude: -73.9999))
                _ = await center.deliverDue()
            }
        }
        #expect(refused > 50)
        #expect(refused + restored < 1_500)  // some damage (a changed letter of a title) still restores
    }

    /// Found by CI (a damaged byte in a fence link's number, reached by the test above in
    /// one process's key order): state naming a region or fence the requests do not have
    /// trapped at the next fix. Such state is refused, naming what it names (fence links were
    /// skipped until the twenty-seventh pass: a damaged snapshot is now refused whole).
    @Test func stateNamingMissingRegionsIsRefusedNotTrapped() async throws {
        let c = try await Self.used()
        let snap = await c.center.snapshot()
        #expect(snap.evaluator.fences?.devices.contains { !$0.links.isEmpty } == true)
        #expect(snap.evaluator.devices.contains { !$0.inside.isEmpty })
        var badFence = snap
        for k in badFence.evaluator.fences!.devices.indices {
            for j in badFence.evaluator.fences!.devices[k].links.indices {
                badFence.evaluator.fences!.devices[k].links[j].fence = 999
                badFence.evaluator.fences!.devices[k].links[j].due = 1_795_770_100_000
            }
        }
        let clock = ManualClock(c.clock.now)
        var badDone = snap
        badDone.evaluator.fences!.doneFences.append(-5)
        for (bad, words) in [(badFence, "links fence 999 of"), (badDone, "doneFences names fence -5 of")] {
            let error = #expect(throws: CenterError.self) { try TriggerCenter(restoring: CenterSnapshot(serialized: try bad.serialized()), clock: clock) }
            #expect("\(error.map { "\($0)" } ?? "")".contains(words), "\(String(describing: error))")
        }
        var badSlot = snap
        let k = badSlot.evaluator.devices.firstIndex { !$0.inside.isEmpty }!
        badSlot.evaluator.devices[k].inside.append(99_999)
        let refused = #expect(throws: CenterError.self) { try TriggerCenter(restoring: CenterSnapshot(serialized: try badSlot.serialized()), clock: clock) }
        guard case .invalidSnapshot = refused else { Issue.record("not a snapshot error: \(String(describing: refused))"); return }
        // The same bytes every time (sorted header keys): a stored snapshot is reproducible.
        #expect(try snap.serialized() == (try snap.serialized()))
    }

    @Test func whatIsWrongIsNamed() async throws {
        let snap = await (try await Self.used()).center.snapshot()
        var bytes = [UInt8](try snap.serialized())
        var newer = bytes
        newer[4] = 9
        #expect(throws: SnapshotError(reason: "layout 9 is newer than this build's 2")) { try CenterSnapshot(serialized: Data(newer)) }
        // The second request line made unreadable (same length, so the sections still add up).
        let headerLength = Int(UInt64(littleEndian: bytes[8..<16].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        let requestsStart = 16 + headerLength + 8
        let secondLine = bytes[requestsStart...].firstIndex(of: 0x0A)! + 1
        bytes[secondLine] = UInt8(ascii: "x")
        let error = #expect(throws: SnapshotError.self) { try CenterSnapshot(serialized: Data(bytes)) }
        #expect(error?.reason.hasPrefix("request line 2: ") == true, "\(String(describing: error))")
        #expect(throws: SnapshotError.self) { try CenterSnapshot(serialized: Data("{\"formatVersion\": 2}".utf8)) }
    }

    /// Requests read from bytes were not validated: a polygon GEOS finds invalid is refused by
    /// the restored center's index (it never fires) instead of reaching a GEOS predicate.
    @Test func restoredPolygonsAreCheckedOnce() async throws {
        let c = Center()
        try await c.add(NotificationRequest(identifier: "area", content: NotificationContent(title: "a"), trigger: .location(LocationTrigger(
            region: .polygon(PolygonRegion(identifier: "a", polygons: [[Self.square]], isMultiPolygon: false)), repeats: true))))
        var snap = await c.center.snapshot()
        let bow = [(0.0, 0.0), (0.01, 0.01), (0.01, 0), (0, 0.01), (0, 0)].map { Coordinate(latitude: 40 + $0.1, longitude: -74 + $0.0) }
        snap.requests[0].trigger = .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "a", polygons: [[bow]],
                                                                                            isMultiPolygon: false)), repeats: true))
        // A snapshot made consistent with the changed request (its fingerprint), as a
        // tampered or hand-made file could be.
        snap.evaluator.requestsFingerprint = StreamEvaluator.fingerprint(snap.requests[...], continuing: StreamEvaluator.fingerprintSeed)
        // An earlier format's snapshot is restored by adding its requests one by one: checked too.
        var older = snap
        older.formatVersion = 2
        let oldClock = ManualClock(Center.t0)
        let fromOlder = try TriggerCenter(restoring: CenterSnapshot(serialized: try older.serialized()), clock: oldClock)
        #expect(try await fromOlder.receive(LocationFix(device: "d", date: oldClock.now, latitude: 40.002, longitude: -73.998)).isEmpty)
        #expect(await fromOlder.atomically { $0.evaluator.refusedRegions.count } == 1)
        let clock = ManualClock(Center.t0)
        let restored = try TriggerCenter(restoring: CenterSnapshot(serialized: try snap.serialized()), clock: clock)
        let fired = try await restored.receive(LocationFix(device: "d", date: clock.now, latitude: 40.002, longitude: -73.998))
        #expect(fired.isEmpty)
        #expect(await restored.atomically { $0.evaluator.refusedRegions.count } == 1)
        // The same center adding a valid polygon afterwards (validated, not checked again) fires.
        try await restored.add(NotificationRequest(identifier: "ok", content: NotificationContent(title: "ok"), trigger: .location(LocationTrigger(
            region: .polygon(PolygonRegion(identifier: "ok", polygons: [[Self.square]], isMultiPolygon: false)), repeats: true))))
        clock.advance(by: 1)
        let now = try await restored.receive(LocationFix(device: "d", date: clock.now, latitude: 40.002, longitude: -73.998))
        #expect(now.map(\.request.identifier) == ["ok"])
    }

    /// A snapshot's format is one this build knows: 1 to the newest. Format -7 (the field is a
    /// public `var`) restored as the newest (a helper embedding the library).
    @Test(arguments: [-7, 0, Int.min, CenterSnapshot.formatVersion + 1])
    func aFormatThisBuildDoesNotKnowIsRefused(_ format: Int) async throws {
        let c = Center()
        try await c.add(NotificationRequest(identifier: "tick", content: NotificationContent(title: "t"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true))))
        var snap = await c.center.snapshot()
        snap.formatVersion = format
        #expect(throws: CenterError.self) { try TriggerCenter(restoring: snap, clock: ManualClock(Center.t0)) }
        snap.formatVersion = CenterSnapshot.formatVersion
        _ = try TriggerCenter(restoring: snap, clock: ManualClock(Center.t0))
    }

    /// Found by `make fuzz`: a center kept a request as given, with an `addedAt` between two
    /// milliseconds or a calendar with the process's locale, and its snapshot (contract JSON)
    /// gave back another value. It keeps what the JSON reads back.
    @Test func aCenterKeepsRequestsAsTheirJSONReadsBack() async throws {
        let c = Center()
        var calendar = Calendar(identifier: .iso8601)
        calendar.locale = Locale(identifier: "fr_FR")
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        let odd = Center.t0.addingTimeInterval(60.000_4)
        try await c.add(NotificationRequest(identifier: "iso", content: NotificationContent(title: "t"),
                                            trigger: .calendar(CalendarTrigger(dateMatching: DateComponents(calendar: calendar, hour: 9), repeats: true)),
                                            addedAt: odd, expiresAt: odd.addingTimeInterval(86_400.000_7)))
        c.clock.advance(to: Center.t0.addingTimeInterval(0.000_3))
        try await c.add(NotificationRequest(identifier: "now", content: NotificationContent(title: "t"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 600, repeats: false))))
        let snap = await c.center.snapshot()
        #expect(try CenterSnapshot(serialized: try snap.serialized()).requests == snap.requests)
        let pending = await c.pendingRequests()
        #expect(pending.map { $0.addedAt.map(Timestamp.millis) } == [1_795_770_060_000, 1_795_770_000_000])
        #expect(pending.allSatisfy { Timestamp.date(millis: Timestamp.millis($0.addedAt!)) == $0.addedAt! })
        guard case .calendar(let t) = pending[0].trigger, let kept = t.dateComponents.calendar else { Issue.record("no calendar"); return }
        #expect(kept.identifier == .iso8601 && kept.firstWeekday == 2 && kept.minimumDaysInFirstWeek == 4)
        #expect(kept.locale?.identifier == "en_US_POSIX")
    }

    /// Found by `make fuzz`: "café" written with U+00E9 and with `e` + U+0301 are two
    /// requests, but the migration (a compaction, which every snapshot makes) carried their
    /// schedule cursors over in a `String`-keyed table, where they are one key: a delivered
    /// one-shot came back pending with the other's fire date.
    @Test func canonicallyEqualIdentifiersKeepTheirOwnState() async throws {
        let c = Center()
        for (id, at) in [("caf\u{E9}", 64_092_211_200.0), ("cafe\u{301}", -62_135_596_800.0), ("a", 1_795_770_000.0)] {
            try await c.add(NotificationRequest(identifier: id, content: NotificationContent(body: "b"), addedAt: Date(timeIntervalSince1970: at)))
        }
        c.clock.advance(to: Date(timeIntervalSince1970: 1_796_461_200))
        #expect(await c.center.deliverDue().map { Array($0.request.identifier.unicodeScalars) } == [Array("cafe\u{301}".unicodeScalars), ["a"]])
        func state(_ center: TriggerCenter) async -> [String] {
            await center.pendingRequests().map { $0.identifier.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") }
                + center.upcomingFires(limit: 10).map { "\($0.identifier.unicodeScalars.count) \($0.date.timeIntervalSince1970)" }
        }
        let before = await state(c.center)
        #expect(before == ["63 61 66 e9", "4 64092211200.0"])
        let snap = await c.center.snapshot()  // compacts
        #expect(await state(c.center) == before)
        let restored = try TriggerCenter(restoring: CenterSnapshot(serialized: try snap.serialized()), clock: c.clock)
        #expect(await state(restored) == before)
    }

    /// Requests added in place after a compaction are numbered after the built ones; a
    /// restore builds all at once (identifier order). The snapshot is taken from a center with
    /// every request applied by one build, so both number them alike: the restored center
    /// goes on as the original, devices inside and one-shots done included.
    @Test func requestsAddedAfterACompactionRestoreAlike() async throws {
        func circle(_ id: String, _ k: Int, once: Bool = false) -> NotificationRequest {
            NotificationRequest(identifier: id, content: NotificationContent(title: id), trigger: .location(LocationTrigger(
                region: .circular(CircularRegion(identifier: id, center: Coordinate(latitude: 40 + Double(k % 10) * 0.001,
                                                                                        longitude: -74 + Double(k / 10) * 0.001), radius: 80)),
                repeats: !once)), device: once ? "d" : nil)
        }
        func walk(_ c: Center, _ k: Int) async throws -> [String] {
            let at = Center.t0.addingTimeInterval(Double(k) * 30)
            var out: [String] = []
            for (n, device) in ["d", "e"].enumerated() {
                let lat = 40 + Double((k * 3 + n * 5) % 10) * 0.001, lon = -74 + Double((k * 7 + n) % 10) * 0.001
                out += try await c.receive(LocationFix(device: device, date: at, latitude: lat, longitude: lon)).map { "\($0.request.identifier) \($0.eventId)" }
            }
            return out
        }
        let a = Center()
        for k in 0..<100 { try await a.add(circle("r\(1000 + k)", k)) }
        for k in 0..<5 { _ = try await walk(a, k) }
        // Appended in place (too few for a compaction), their identifiers before every other.
        for k in 0..<6 { try await a.add(circle("a\(k)", 37 + 11 * k, once: k % 2 == 0)) }
        var before = 0, firedOnce = Set<String>()
        for k in 5..<25 {
            let fired = try await walk(a, k)
            before += fired.count
            firedOnce.formUnion(fired.map { String($0.split(separator: " ")[0]) }.filter { ["a0", "a2", "a4"].contains($0) })
        }
        #expect(before > 20)
        let snap = await a.center.snapshot()
        // The device's one-shots that fired have left the center (so the snapshot), the others stay.
        #expect(!firedOnce.isEmpty)
        #expect(snap.formatVersion == 3 && snap.evaluator.doneLocationSlots.isEmpty)
        #expect(Set(snap.requests.map(\.identifier)).isDisjoint(with: firedOnce))
        #expect(snap.requests.count == 106 - firedOnce.count)
        let clock = ManualClock(a.clock.now)
        let b = Center(wrapping: try TriggerCenter(restoring: CenterSnapshot(serialized: try snap.serialized()), clock: clock), clock: clock)
        var compared = 0
        for k in 25..<60 {
            let want = try await walk(a, k)
            #expect(try await walk(b, k) == want, "step \(k)")
            compared += want.count
        }
        #expect(compared > 20)
    }
}
