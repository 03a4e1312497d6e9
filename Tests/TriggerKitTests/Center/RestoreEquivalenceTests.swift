import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A center restored from its snapshot behaves as the center it was taken from: same
/// answers, deliveries, pending list, request count and statistics for every call after.
/// (`serve` restores tenants this way at every restart.) Three differences found by a
/// helper's fuzz, each with its test, and a seeded fuzz of our own over the whole API.
@Suite("Restore: a restored center behaves as the uninterrupted one")
struct RestoreEquivalenceTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)
    static let paris = (latitude: 48.85, longitude: 2.29)

    static func restored(_ center: TriggerCenter, configuration: CenterConfiguration = .init(), clock: ManualClock) async throws -> TriggerCenter {
        let snapshot = try CenterSnapshot(serialized: try await center.snapshot().serialized())
        return try TriggerCenter(restoring: snapshot, configuration: configuration, clock: clock)
    }

    static func circle(_ id: String, radius: Double = 150, crossings: Bool = false, repeats: Bool = true, device: String? = nil) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(title: id), trigger: .location(LocationTrigger(
            region: .circular(CircularRegion(identifier: id, center: Coordinate(latitude: paris.latitude, longitude: paris.longitude), radius: radius)),
            repeats: repeats, rules: FenceRules(crossings: crossings))), device: device)
    }

    /// A request whose next fire lies past its `expiresAt` is held until the fences' clock
    /// acts on the expiry. A fix leading the clock had carried the stream time past that
    /// expiry; the restore dropped the request at once (it compared with the stream time),
    /// the live center held it until the next step.
    @Test func aRequestPastItsExpiryByALeadingFixIsHeldAsLive() async throws {
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        // A fix 200 s ahead of the clock (maxFixLead is 300 s): the stream time leads.
        _ = try await live.receive(LocationFix(device: "d", date: Self.t0.addingTimeInterval(200), latitude: 0, longitude: 0))
        // Expires in 10 s, first fire in 61 s: never fires.
        try await live.add(NotificationRequest(identifier: "never", content: NotificationContent(title: "x"),
                                               trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 61, repeats: true)),
                                               expiresAt: Self.t0.addingTimeInterval(10)))
        clock.advance(by: 1)
        let restored = try await Self.restored(live, clock: ManualClock(clock.now))
        #expect(await live.requestCount == 1)
        #expect(await restored.requestCount == (await live.requestCount))
        #expect(await restored.request(withIdentifier: "never") == (await live.request(withIdentifier: "never")))
        // The next step moves time past the expiry: both let it go.
        clock.advance(by: 300)
        _ = await live.deliverDue()
        let again = try await Self.restored(restored, clock: ManualClock(clock.now))
        _ = try await again.receive(LocationFix(device: "d", date: clock.now, latitude: 0, longitude: 0))
        _ = try await live.receive(LocationFix(device: "d", date: clock.now, latitude: 0, longitude: 0))
        #expect(await live.requestCount == 0)
        #expect(await again.requestCount == 0)
    }

    /// A crossings fence added after every fence with rules had ended interpolated an enter
    /// from a fix that only the ended fences' lingering state had recorded; the restored
    /// center (its snapshot compacted) had no such fix and fired nothing. Now both know when
    /// d1 was last seen (the evaluator's last used fix, at the fence's `addedAt`: its state
    /// is known, outside) and neither its position: both fire the enter, dated at the fix.
    @Test func aCrossingsFenceAfterEndedFencesDoesNotUseWhatTheyRecorded() async throws {
        // Two centers given the same calls; the second is restored from its own snapshot
        // (taking one compacts the center it is taken from, so the first is left alone).
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        var twin = try TriggerCenter(clock: clock)
        func both<T>(_ body: (TriggerCenter) async throws -> T) async throws -> (T, T) { (try await body(live), try await body(twin)) }
        // A device-scoped one-shot with rules fires for d0 and leaves: its state lingers.
        _ = try await both { try await $0.add(Self.circle("once", crossings: true, repeats: false, device: "d0")) }
        _ = try await both { try await $0.receive(LocationFix(device: "d0", date: clock.now, latitude: 48.86, longitude: Self.paris.longitude)) }
        clock.advance(by: 10)
        let fired = try await both { try await $0.receive(LocationFix(device: "d0", date: clock.now, latitude: Self.paris.latitude, longitude: Self.paris.longitude)) }
        #expect(fired.0.count == 1 && fired.1.count == 1)
        #expect(await live.request(withIdentifier: "once") == nil)
        // d1 is seen outside; the twin is restored; then a shared crossings fence and d1 inside.
        clock.advance(by: 10)
        _ = try await both { try await $0.receive(LocationFix(device: "d1", date: clock.now, latitude: 48.86, longitude: Self.paris.longitude)) }
        twin = try await Self.restored(twin, clock: clock)
        _ = try await both { try await $0.add(Self.circle("toll", crossings: true)) }
        clock.advance(by: 10)
        let fix = LocationFix(device: "d1", date: clock.now, latitude: Self.paris.latitude, longitude: Self.paris.longitude)
        let (a, b) = try await both { try await $0.receive(fix) }
        #expect(a.map(\.id) == b.map(\.id))
        #expect(a.map(\.date) == [fix.date], "d1 was seen outside at the fence's addedAt: the enter, dated at the fix")
    }

    /// A response naming no device resolves the request of the newest delivery to any device;
    /// among deliveries at one instant the dictionary's order chose, and a restored center
    /// chose another. The greatest device identifier is taken now.
    @Test func aResponseWithoutDeviceResolvesTiesTheSameWay() async throws {
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        try await live.setNotificationCategories([NotificationCategory(identifier: "C", dismissEffect: .removeRequest)])
        // One identifier delivered to eight devices at one instant; only the last device's
        // version has the category that removes on dismissal.
        let devices = (0..<8).map { "device-\($0)" }
        for d in devices {
            try await live.add(NotificationRequest(identifier: "r", content: NotificationContent(title: d, categoryIdentifier: d == devices.last ? "C" : nil),
                                                   device: d))
            #expect(await live.deliverDue().count == 1)
        }
        // (All fired and left the center: the response resolves from the history.)
        #expect(await live.request(withIdentifier: "r") == nil)
        #expect(Set(await live.deliveredNotifications().map(\.date)).count == 1)
        let restored = try await Self.restored(live, clock: ManualClock(clock.now))
        let response = NotificationResponse(requestIdentifier: "r", actionIdentifier: NotificationResponse.dismissActionIdentifier)
        let a = await live.respond(response), b = await restored.respond(response)
        #expect(a.effect == .removeRequest)
        #expect(b.effect == a.effect && b.applied == a.applied)
    }

    /// A window built in code is kept as its JSON reads back: interval bounds to the
    /// millisecond (a restored center had them rounded, the live one not), and a time zone
    /// on intervals is refused as the JSON reader refuses it (the restore dropped it).
    @Test func aWindowBuiltInCodeIsTheSameAfterARestore() async throws {
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        func windowed(_ zone: TimeZone?) -> NotificationRequest {
            var r = Self.circle("w")
            guard case .location(var t) = r.trigger else { return r }
            t.rules.window = FenceWindow(schedule: .intervals([DateInterval(start: Self.t0.addingTimeInterval(600.0004),
                                                                            end: Self.t0.addingTimeInterval(900.0007))]),
                                         timeZone: zone)
            r.trigger = .location(t)
            return r
        }
        let zoned = await #expect(throws: RequestError.self) { try await live.add(windowed(TimeZone(identifier: "Europe/Paris"))) }
        #expect(zoned?.message.contains("a zone applies to weekly hours only") == true, "\(String(describing: zoned))")
        try await live.add(windowed(nil))
        let restored = try await Self.restored(live, clock: ManualClock(clock.now))
        let kept = try #require(await live.request(withIdentifier: "w"))
        #expect(await restored.request(withIdentifier: "w") == kept)
        guard case .location(let t) = kept.trigger, case .intervals(let list)? = t.rules.window?.schedule else {
            Issue.record("no window"); return
        }
        #expect(list.map(\.start) == [Timestamp.date(millis: Timestamp.millis(Self.t0) + 600_000)])
    }

    /// A center restored while its clock reads behind the saved stream time (the clock
    /// jumped back; a fix leading the clock once moved it) planned its windows twice: once at the clock (the
    /// restore's migration), once at the stream time (the snapshot's). The first plan's
    /// openings and closings stayed queued and were replayed at the next step, against
    /// devices as the snapshot had them later: here an exit at a closing that came before
    /// the device was inside.
    @Test func aRestoreBehindTheStreamTimeDoesNotReplayWindows() async throws {
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        var twin = try TriggerCenter(clock: clock)
        func both<T>(_ body: (TriggerCenter) async throws -> T) async throws -> (T, T) { (try await body(live), try await body(twin)) }
        var request = Self.circle("w")
        guard case .location(var trigger) = request.trigger else { Issue.record("not a location trigger"); return }
        trigger.rules.window = FenceWindow(schedule: .intervals([DateInterval(start: Self.t0.addingTimeInterval(100),
                                                                              end: Self.t0.addingTimeInterval(200))]),
                                           exitAtClosing: true)
        request.trigger = .location(trigger)
        _ = try await both { try await $0.add(request) }
        // A fix 250 s ahead of the clock, inside: taken as dated at the clock (t0), so d is
        // inside when the window opens and when it closes.
        let inside = LocationFix(device: "d", date: Self.t0.addingTimeInterval(250), latitude: Self.paris.latitude, longitude: Self.paris.longitude)
        let fired = try await both { try await $0.receive(inside) }
        #expect(fired.0.isEmpty && fired.1.isEmpty)
        // Restored with the clock at t0.
        twin = try await Self.restored(twin, clock: clock)
        clock.advance(by: 250)
        let (a, b) = try await both { await $0.deliverDue() }
        func brief(_ list: [DeliveredNotification]) -> [String] {
            list.map { "\($0.crossing.map { "\($0)" } ?? "-")@\($0.date.timeIntervalSince(Self.t0))" }
        }
        #expect(brief(a) == ["exit@200.0"])
        #expect(brief(b) == brief(a), "the restored center replayed the window or lost its closing")
        // And later steps agree as well.
        clock.advance(by: 100)
        let out = LocationFix(device: "d", date: clock.now, latitude: 48.86, longitude: Self.paris.longitude)
        let (a2, b2) = try await both { try await $0.receive(out) }
        #expect(a2.map(\.id) == b2.map(\.id))
    }

    /// A restore builds the schedule and plans the fences once, at the saved start: the
    /// migration that applied the restored requests started them at the clock first, then the
    /// restore again (twice the work: seconds for a calendar Foundation answers slowly, found
    /// by `make fuzz`).
    @Test func aRestoreStartsTheStreamOnce() async throws {
        let clock = ManualClock(Self.t0)
        let center = try TriggerCenter(clock: clock)
        var daily = DateComponents()
        daily.hour = 9
        try await center.add(NotificationRequest(identifier: "daily", content: NotificationContent(title: "d"),
                                                 trigger: .calendar(CalendarTrigger(dateMatching: daily, repeats: true))))
        try await center.add(Self.circle("c", crossings: true))
        clock.advance(by: 90_000)
        #expect(await center.deliverDue().map(\.request.identifier) == ["daily"])
        let restored = try await Self.restored(center, clock: clock)
        #expect(await restored.evaluatorStarts == 1)
        #expect(await restored.nextTriggerDate(forIdentifier: "daily") == center.nextTriggerDate(forIdentifier: "daily"))
    }

    /// The fields of two snapshots that differ (for the failure message: the bytes are not
    /// printed).
    static func differingFields(_ a: Data, _ b: Data) -> [String] {
        guard let x = try? CenterSnapshot(serialized: a), let y = try? CenterSnapshot(serialized: b) else { return ["unreadable"] }
        var out: [String] = []
        if x.formatVersion != y.formatVersion { out.append("formatVersion") }
        if x.requests != y.requests { out.append("requests") }
        if x.categories != y.categories { out.append("categories") }
        if x.delivered != y.delivered { out.append("delivered") }
        if x.statistics != y.statistics { out.append("statistics") }
        let e = x.evaluator, f = y.evaluator
        if e.requestsFingerprint != f.requestsFingerprint { out.append("evaluator.requestsFingerprint") }
        if e.defaultAddedAt != f.defaultAddedAt { out.append("evaluator.defaultAddedAt") }
        if e.streamTime != f.streamTime { out.append("evaluator.streamTime") }
        if e.stats != f.stats { out.append("evaluator.stats") }
        if e.queuedFires != f.queuedFires { out.append("evaluator.queuedFires") }
        if e.doneLocationSlots != f.doneLocationSlots { out.append("evaluator.doneLocationSlots") }
        if e.devices != f.devices {
            out.append("evaluator.devices \(e.devices.map(\.name)) vs \(f.devices.map(\.name))")
        }
        if e.fences != f.fences {
            out.append("evaluator.fences.devices \(e.fences?.devices.map(\.name) ?? []) vs \(f.fences?.devices.map(\.name) ?? [])")
        }
        return out
    }

    /// Whether two snapshots' bytes are the same (a `Bool`: the bytes are not printed).
    static func sameBytes(_ a: Data, _ b: Data) -> Bool { a == b }

    static func bytes(_ c: TriggerCenter) async throws -> Data { try await c.snapshot().serialized() }

    /// A center restored from its snapshot's bytes gives the same bytes back, and keeps giving
    /// the uninterrupted center's after the same steps. Devices were numbered in another
    /// order: the restore's build interned the devices of the fences with rules scoped to one
    /// (at the fences' start) before the snapshot's, which then came after them; the
    /// uninterrupted center had interned them when its fences started, after the devices
    /// already seen (the evaluator's and the fences' device lists both follow that order).
    @Test func aRestoredCenterSnapshotsTheBytesItWasRestoredFrom() async throws {
        let clock = ManualClock(Self.t0)
        let live = try TriggerCenter(clock: clock)
        // "b" is seen first; then a fence with rules for "a" alone, and a plain one for "c".
        _ = try await live.receive(LocationFix(device: "b", date: clock.now, latitude: 48.86, longitude: Self.paris.longitude))
        try await live.add(Self.circle("dwell-a", crossings: true, device: "a"))
        clock.advance(by: 10)
        _ = try await live.receive(LocationFix(device: "b", date: clock.now, latitude: Self.paris.latitude, longitude: Self.paris.longitude))
        let s1 = try await Self.bytes(live)
        let restored = try TriggerCenter(restoring: try CenterSnapshot(serialized: s1), clock: ManualClock(clock.now))
        let s2 = try await Self.bytes(restored)
        #expect(Self.sameBytes(s1, s2), "\(Self.differingFields(s1, s2))")

        // The same further steps on the uninterrupted center and the restored one.
        let twinClock = ManualClock(clock.now)
        let twin = try TriggerCenter(restoring: try CenterSnapshot(serialized: s1), clock: twinClock)
        for (c, k) in [(live, clock), (twin, twinClock)] {
            k.advance(by: 10)
            _ = try await c.receive(LocationFix(device: "c", date: k.now, latitude: Self.paris.latitude, longitude: Self.paris.longitude))
            try await c.add(Self.circle("plain-c", device: "c"))
            k.advance(by: 10)
            _ = try await c.receive(LocationFix(device: "a", date: k.now, latitude: Self.paris.latitude, longitude: Self.paris.longitude))
        }
        let a = try await Self.bytes(live), b = try await Self.bytes(twin)
        #expect(Self.sameBytes(a, b), "\(Self.differingFields(a, b))")
    }

    /// A seeded walk over the whole API, two centers side by side, the second restored from
    /// its own snapshot now and then: every answer and every observable must agree.
    @Test(arguments: 0..<24)
    func aRestoredTwinAgreesAtEveryStep(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed &+ 7_000)
        var configuration = CenterConfiguration()
        configuration.deliveredLimitPerDevice = [0, 2, 50][rng.below(3)]
        configuration.catchUp = rng.chance(0.5) ? .coalesced : .everyFire
        configuration.dwell = rng.chance(0.3) ? 30 : 0
        configuration.initialFire = rng.chance(0.5)
        let clockA = ManualClock(Self.t0)
        var clockB = ManualClock(Self.t0)
        let a = try TriggerCenter(configuration: configuration, clock: clockA)
        var b = try TriggerCenter(configuration: configuration, clock: clockB)
        let categories = [NotificationCategory(identifier: "C", actions: [
            NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest),
            NotificationAction(identifier: "later", title: "Later", effect: .snooze(60)),
        ], dismissEffect: rng.chance(0.5) ? .removeRequest : .none)]
        try await a.setNotificationCategories(categories)
        try await b.setNotificationCategories(categories)
        let ids = (0..<6).map { "r\($0)" }, devices = ["d0", "d1", "d2"]
        func brief(_ ds: [DeliveredNotification]) -> [String] {
            ds.map { "\($0.request.identifier)|\($0.date.timeIntervalSince1970)|\($0.device ?? "-")|\($0.id)" }.sorted()
        }
        for step in 0..<150 {
            if rng.chance(0.1) {
                clockB = ManualClock(clockA.now)
                b = try await Self.restored(b, configuration: configuration, clock: clockB)
            }
            let id = ids[rng.below(ids.count)]
            let device: String? = rng.chance(0.4) ? nil : devices[rng.below(devices.count)]
            var ra = "", rb = ""
            switch rng.below(10) {
            case 0, 1:
                let interval = [1.0, 30, 60, 61, 90, 600][rng.below(6)]
                let request = NotificationRequest(
                    identifier: id, content: NotificationContent(title: "t\(step)", categoryIdentifier: rng.chance(0.5) ? "C" : nil),
                    trigger: .timeInterval(TimeIntervalTrigger(timeInterval: interval, repeats: interval >= 60 && rng.chance(0.6))),
                    device: device, expiresAt: rng.chance(0.2) ? clockA.now.addingTimeInterval([10.0, 100, 1000][rng.below(3)]) : nil)
                ra = "\(String(describing: try? await a.add(request)))"; rb = "\(String(describing: try? await b.add(request)))"
            case 2:
                var components = DateComponents()
                components.second = rng.below(60)
                if rng.chance(0.5) { components.minute = rng.below(60) }
                let request = NotificationRequest(identifier: id, content: NotificationContent(body: "c", categoryIdentifier: "C"),
                                                  trigger: .calendar(CalendarTrigger(dateMatching: components, repeats: rng.chance(0.7))), device: device)
                ra = "\(String(describing: try? await a.add(request)))"; rb = "\(String(describing: try? await b.add(request)))"
            case 3:
                var rules = FenceRules(crossings: rng.chance(0.2))
                if rng.chance(0.2) { rules.dwell = FenceDwell(side: rng.chance(0.7) ? .inside : .outside, duration: 60) }
                if rng.chance(0.1) { rules.accuracy = FenceAccuracy(maximum: 50) }
                let region = Region.circular(CircularRegion(
                    identifier: "reg\(rng.below(3))",
                    center: Coordinate(latitude: Self.paris.latitude + Double(rng.below(5) - 2) * 0.001, longitude: Self.paris.longitude),
                    radius: [50.0, 150, 400][rng.below(3)], notifyOnEntry: rng.chance(0.8), notifyOnExit: rng.chance(0.6)))
                let request = NotificationRequest(identifier: id, content: NotificationContent(title: "loc", categoryIdentifier: "C"),
                                                  trigger: .location(LocationTrigger(region: region, repeats: rng.chance(0.6), rules: rules)),
                                                  device: device, expiresAt: rng.chance(0.1) ? clockA.now.addingTimeInterval(100) : nil)
                ra = "\(String(describing: try? await a.add(request)))"; rb = "\(String(describing: try? await b.add(request)))"
            case 4:
                let gone = [id, ids[rng.below(ids.count)]]
                await a.removePendingRequests(withIdentifiers: gone)
                await b.removePendingRequests(withIdentifiers: gone)
            case 5, 6:
                let by = [0.0, 1, 10, 59, 61, 600, 3700][rng.below(7)]
                clockA.advance(by: by); clockB.advance(by: by)
                ra = "\(brief(await a.deliverDue()))"; rb = "\(brief(await b.deliverDue()))"
            case 7, 8:
                let fix = LocationFix(device: devices[rng.below(devices.count)],
                                      date: clockA.now.addingTimeInterval(-[0.0, 0, 1, 30, 400][rng.below(5)] + (rng.chance(0.05) ? 200 : 0)),
                                      latitude: Self.paris.latitude + Double(rng.below(13) - 6) * 0.0009,
                                      longitude: Self.paris.longitude + Double(rng.below(13) - 6) * 0.0012,
                                      horizontalAccuracy: rng.chance(0.3) ? [5.0, 80, 300][rng.below(3)] : nil)
                do { ra = "\(brief(try await a.receive(fix)))" } catch { ra = "\(error)" }
                do { rb = "\(brief(try await b.receive(fix)))" } catch { rb = "\(error)" }
            default:
                let action = ["cancel", "later", NotificationResponse.defaultActionIdentifier, NotificationResponse.dismissActionIdentifier][rng.below(4)]
                let response = NotificationResponse(requestIdentifier: id, device: rng.chance(0.3) ? nil : devices[rng.below(devices.count)],
                                                    actionIdentifier: action)
                let oa = await a.respond(response), ob = await b.respond(response)
                ra = "\(oa.applied) \(oa.effect) \(oa.warnings)"; rb = "\(ob.applied) \(ob.effect) \(ob.warnings)"
            }
            let where_ = "seed \(seed) step \(step)"
            try #require(ra == rb, "\(where_): \(ra) vs \(rb)")
            try #require(await a.requestCount == (await b.requestCount), "\(where_): request count")
            try #require(await a.pendingRequests() == (await b.pendingRequests()), "\(where_): pending")
            try #require(brief(await a.deliveredNotifications()) == brief(await b.deliveredNotifications()), "\(where_): delivered")
            try #require(await a.statistics == (await b.statistics), "\(where_): statistics")
            let upcoming: (TriggerCenter) async -> [String] = { c in
                await c.upcomingFires(limit: 20).map { "\($0.date.timeIntervalSince1970)|\($0.identifier)|\($0.device ?? "-")" }
            }
            try #require(await upcoming(a) == (await upcoming(b)), "\(where_): upcoming")
        }
    }
}

extension TriggerCenter {
    /// How many times the center's evaluator started its stream.
    var evaluatorStarts: Int { evaluator.starts }
}
