import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 9: the center's engine takes changes in place (time-based adds, every removal);
/// after any sequence of changes it must answer exactly as an evaluator rebuilt (migrated)
/// after every change.
@Suite("Live engine: in-place changes equal rebuilding")
struct LiveEngineEquivalenceTests {
    static let t0: Int64 = 1_795_770_000_000

    static func request(_ rng: inout SeededGenerator, id: String, at t: Int64, locationHeavy: Bool = false,
                        expiring: Bool = false, fenced: Bool = false) -> NotificationRequest {
        let trigger: NotificationTrigger
        if fenced, Int.random(in: 0..<2, using: &rng) == 0 {
            trigger = fence(&rng, id: id, at: t)
        } else {
            trigger = plainTrigger(&rng, id: id, locationHeavy: locationHeavy)
        }
        var r = NotificationRequest(identifier: id, content: NotificationContent(title: id), trigger: trigger,
                                    device: Bool.random(using: &rng) ? nil : "d\(Int.random(in: 0..<2, using: &rng))",
                                    addedAt: Timestamp.date(millis: t))
        if expiring, Int.random(in: 0..<3, using: &rng) == 0 {
            r.expiresAt = Timestamp.date(millis: t + Int64(Int.random(in: 1...600, using: &rng)) * 1000)
        }
        return r
    }

    /// A circle or square with fence rules: dwell inside or outside, an accuracy limit,
    /// crossings, a window of intervals around `t` (the fixes' positions are those of
    /// ``plainTrigger(_:id:locationHeavy:)``).
    static func fence(_ rng: inout SeededGenerator, id: String, at t: Int64) -> NotificationTrigger {
        var rules = FenceRules()
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: rules.dwell = FenceDwell(side: .inside, duration: Double(Int.random(in: 1...40, using: &rng)))
        case 1: rules.dwell = FenceDwell(side: .outside, duration: Double(Int.random(in: 1...40, using: &rng)))
        default: break
        }
        if Bool.random(using: &rng) { rules.accuracy = FenceAccuracy(maximum: Double([10, 50, 200].randomElement(using: &rng)!)) }
        if Bool.random(using: &rng) { rules.crossings = true }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            // Open for a while from a few seconds on, then again later.
            let s = Double(t) / 1000 + Double(Int.random(in: 0...60, using: &rng))
            rules.window = FenceWindow(schedule: .intervals([DateInterval(start: Date(timeIntervalSince1970: s), duration: 90),
                                                             DateInterval(start: Date(timeIntervalSince1970: s + 200), duration: 300)]),
                                       enterAtOpening: Bool.random(using: &rng), exitAtClosing: Bool.random(using: &rng))
        }
        if rules == FenceRules() { rules.crossings = true }
        let repeats = Bool.random(using: &rng)
        if Bool.random(using: &rng) {
            let lat = 40 + Double(Int.random(in: 0..<6, using: &rng)) * 0.001, h = 0.0007
            let ring = [Coordinate(latitude: lat - h, longitude: -74.001), Coordinate(latitude: lat - h, longitude: -73.999),
                        Coordinate(latitude: lat + h, longitude: -73.999), Coordinate(latitude: lat + h, longitude: -74.001),
                        Coordinate(latitude: lat - h, longitude: -74.001)]
            return .location(LocationTrigger(region: .polygon(PolygonRegion(
                identifier: "p\(id)", polygons: [[ring]], isMultiPolygon: false, notifyOnEntry: Bool.random(using: &rng),
                notifyOnExit: Bool.random(using: &rng))), repeats: repeats, rules: rules))
        }
        return .location(LocationTrigger(region: .circular(CircularRegion(
            identifier: "z\(id)", center: Coordinate(latitude: 40 + Double(Int.random(in: 0..<3, using: &rng)) * 0.002, longitude: -74),
            radius: Double([150, 400].randomElement(using: &rng)!))), repeats: repeats, rules: rules))
    }

    static func plainTrigger(_ rng: inout SeededGenerator, id: String, locationHeavy: Bool) -> NotificationTrigger {
        let trigger: NotificationTrigger
        switch Int.random(in: locationHeavy ? 3..<8 : 0..<5, using: &rng) {
        case 0: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double([60, 90, 120, 600].randomElement(using: &rng)!), repeats: true))
        case 1: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double(Int.random(in: 1...900, using: &rng)), repeats: false))
        case 2: trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "UTC"), second: [0, 30].randomElement(using: &rng)!), repeats: Bool.random(using: &rng)))
        case 3: trigger = .immediate
        case 5:
            // A square around one of the fix positions (polygons take the GEOS path).
            let lat = 40 + Double(Int.random(in: 0..<6, using: &rng)) * 0.001, h = 0.0007
            let ring = [Coordinate(latitude: lat - h, longitude: -74.001), Coordinate(latitude: lat - h, longitude: -73.999),
                        Coordinate(latitude: lat + h, longitude: -73.999), Coordinate(latitude: lat + h, longitude: -74.001),
                        Coordinate(latitude: lat - h, longitude: -74.001)]
            trigger = .location(LocationTrigger(region: .polygon(PolygonRegion(
                identifier: "p\(id)", polygons: [[ring]], isMultiPolygon: false, notifyOnEntry: true, notifyOnExit: Bool.random(using: &rng))),
                repeats: Bool.random(using: &rng)))
        default:
            trigger = .location(LocationTrigger(region: .circular(CircularRegion(
                identifier: "z\(id)", center: Coordinate(latitude: 40 + Double(Int.random(in: 0..<3, using: &rng)) * 0.002, longitude: -74),
                radius: 150)), repeats: Bool.random(using: &rng)))
        }
        return trigger
    }

    static func names(_ e: StreamEvaluator, _ events: [FiredEvent]) -> [String] {
        events.map { "\(e.identifier(of: $0)) \($0.date) \($0.crossing?.rawValue ?? $0.kind.rawValue) \(e.deviceName(of: $0) ?? "-") \($0.count)" }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomChangeSequences(seed: UInt64) throws {
        try Self.run(seed: seed, locationHeavy: false)
    }

    /// Mostly circles and polygons (added in place into the region index's overlay), with
    /// compactions at random moments; the reference never uses neighbourhoods, so a
    /// neighbourhood the engine wrongly trusts after a region was added shows as a missed event.
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18] as [UInt64])
    func locationChangeSequences(seed: UInt64) throws {
        try Self.run(seed: seed, locationHeavy: true)
    }

    /// A third of the requests with an `expiresAt`: once the fences' clock exists (the first
    /// such request builds it), they are added in place too (each rebuilt the evaluator: 2 s
    /// an add at 200,000 requests, found by a helper) and must expire as a rebuild does.
    @Test(arguments: [(31, false), (32, false), (33, false), (34, true), (35, true), (36, true)] as [(UInt64, Bool)])
    func expiringChangeSequences(seed: UInt64, locationHeavy: Bool) throws {
        try Self.run(seed: seed, locationHeavy: locationHeavy, expiring: true)
    }

    /// Half the adds are fences with rules (dwell either side, accuracy, crossings, windows),
    /// which are added in place once one is live: the fixes (with accuracies, some far
    /// apart, so paths cross fences) and the clock must answer as a rebuild after every change.
    @Test(arguments: [(41, false), (42, false), (43, true), (44, true), (45, true), (46, false)] as [(UInt64, Bool)])
    func fenceChangeSequences(seed: UInt64, expiring: Bool) throws {
        try Self.run(seed: seed, locationHeavy: true, expiring: expiring, fenced: true)
    }

    /// Once the fences' clock exists, a request with an `expiresAt` is added in place (the
    /// evaluator is not rebuilt), and removed at its expiry.
    @Test func anExpiringRequestIsAddedInPlace() throws {
        let engine = LiveEngine(options: StreamOptions(), start: Self.t0)
        func every(_ id: String, expires: Int64?) -> NotificationRequest {
            NotificationRequest(identifier: id, content: NotificationContent(title: id),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)),
                                addedAt: Timestamp.date(millis: Self.t0), expiresAt: expires.map { Timestamp.date(millis: Self.t0 + $0) })
        }
        engine.add(every("first", expires: 3_600_000))
        let built = engine.current
        for (k, at) in [150_000, 90_000, 400_000].enumerated() { engine.add(every("e\(k)", expires: Int64(at))) }
        engine.add(LiveEngineEquivalenceTests.InPlaceAndRebuilt.circle("zone", Coordinate(latitude: 40, longitude: -74), radius: 100, at: Self.t0))
        engine.add({ var r = $0; r.expiresAt = Timestamp.date(millis: Self.t0 + 120_000); return r }(
            LiveEngineEquivalenceTests.InPlaceAndRebuilt.circle("zone2", Coordinate(latitude: 40, longitude: -74), radius: 100, at: Self.t0)))
        #expect(engine.current === built, "an add with an expiresAt rebuilt the evaluator")
        #expect(engine.current.requests.count == 6)
        var events: [FiredEvent] = []
        try engine.current.process(.clock(Self.t0 + 200_000), into: &events)
        // e1 expired at 90 s (one fire at 60 s), e0 at 150 s (60, 120), zone2 at 120 s.
        #expect(Self.names(engine.current, events).filter { $0.hasPrefix("e") } == [
            "e0 1795770060000 timeInterval - 1", "e1 1795770060000 timeInterval - 1", "e2 1795770060000 timeInterval - 1",
            "e0 1795770120000 timeInterval - 1", "e2 1795770120000 timeInterval - 1", "e2 1795770180000 timeInterval - 1"])
        engine.retireFinished()
        #expect(engine.pendingRequests(device: nil).map(\.identifier) == ["first", "e2", "zone"])
    }

    /// A live engine taking requests in place beside an evaluator rebuilt after each add that
    /// never uses tiles: each fix is given to both and must answer alike.
    struct InPlaceAndRebuilt {
        let engine: LiveEngine
        var reference: StreamEvaluator
        var live: [NotificationRequest] = []
        /// Events compared, and tiles the engine built for the fixes.
        var compared = 0, builds = 0

        init() {
            var options = StreamOptions()
            options.maxClockJump = nil
            engine = LiveEngine(options: options, start: LiveEngineEquivalenceTests.t0)
            reference = StreamEvaluator(requests: [], options: options)
            reference.start(defaultAddedAt: LiveEngineEquivalenceTests.t0)
            reference.skipsStableFixes = false
        }

        mutating func add(_ r: NotificationRequest) {
            live.append(r)
            engine.add(r)
            reference = reference.migrated(to: live)
            reference.skipsStableFixes = false
        }

        mutating func fix(_ fix: Fix, _ note: String) throws {
            var a: [FiredEvent] = [], b: [FiredEvent] = []
            let e = engine.current
            let before = e.tileCache.builds
            try e.process(.fix(fix), into: &a)
            builds += e.tileCache.builds - before
            try reference.process(.fix(fix), into: &b)
            #expect(LiveEngineEquivalenceTests.names(e, a) == LiveEngineEquivalenceTests.names(reference, b), "\(note)")
            compared += b.count
        }

        static func circle(_ id: String, _ center: Coordinate, radius: Double, at t: Int64) -> NotificationRequest {
            NotificationRequest(identifier: id, content: NotificationContent(title: id), trigger: .location(LocationTrigger(
                region: .circular(CircularRegion(identifier: id, center: center, radius: radius)), repeats: true)), addedAt: Timestamp.date(millis: t))
        }
    }

    /// A region added in place drops only the tiles it overlaps: devices elsewhere keep their
    /// tiles (and their open regions' state), and every fix still answers as an evaluator
    /// rebuilt after each add (that never uses tiles). Ten devices 5 km apart, each add a circle
    /// next to one of them.
    @Test(arguments: [21, 22, 23] as [UInt64])
    func addsKeepTheTilesTheyMiss(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var both = InPlaceAndRebuilt()
        var positions = (0..<10).map { k in (lat: 40 + Double(k) * 0.05, lon: -74.0) }
        var t = Self.t0, fixes = 0
        for step in 0..<400 {
            if step % 8 == 7 {
                // A circle next to one device (within ~300 m), sometimes across its path.
                let k = Int.random(in: 0..<10, using: &rng)
                let center = Coordinate(latitude: positions[k].lat + Double.random(in: -0.002...0.002, using: &rng),
                                        longitude: positions[k].lon + Double.random(in: -0.002...0.002, using: &rng))
                both.add(InPlaceAndRebuilt.circle("c\(step)", center, radius: Double.random(in: 50...300, using: &rng), at: t))
                continue
            }
            t += 1000
            let k = step % 10
            positions[k].lat += Double.random(in: -0.0003...0.0003, using: &rng)
            positions[k].lon += Double.random(in: -0.0003...0.0003, using: &rng)
            try both.fix(Fix(device: "d\(k)", t: t, latitude: positions[k].lat, longitude: positions[k].lon), "seed \(seed) step \(step)")
            fixes += 1
        }
        #expect(both.compared > 10)
        #expect(both.engine.current.requests.count == both.live.count)  // every add took the in-place path
        // Dropping every tile at each add rebuilds a leaf and its coarser tiles at nearly every
        // fix (each device sees about 4 adds between two of its fixes): about 1,200 tiles for
        // these 350 fixes; dropping only those the circle overlaps, about 220.
        #expect(both.builds < fixes, "\(both.builds) tiles built for \(fixes) fixes")
    }

    /// Where regions are added faster than a device's fixes come (CenterBench: a change every
    /// 10 fixes, 10,000 devices), a device's first fix after adds is queried plainly and a tile
    /// is taken only at a fix with no add since its last: not a tile rebuilt at every fix.
    /// Every fix still answers as the rebuilt reference.
    @Test func addsBetweenEveryFixQueryPlainly() throws {
        var rng = SeededGenerator(seed: 31)
        var both = InPlaceAndRebuilt()
        var t = Self.t0
        for step in 0..<300 {
            let center = Coordinate(latitude: 40 + Double.random(in: 0...0.01, using: &rng), longitude: -74 + Double.random(in: 0...0.01, using: &rng))
            both.add(InPlaceAndRebuilt.circle("c\(step)", center, radius: 200, at: t))
            t += 1000
            try both.fix(Fix(device: "d\(step % 10)", t: t, latitude: 40.005 + Double(step % 10) * 0.0005, longitude: -73.995), "step \(step)")
        }
        #expect(both.compared > 10)
        #expect(both.builds == 0, "\(both.builds) tiles built, with a region added before every fix")
    }

    static func run(seed: UInt64, locationHeavy: Bool, expiring: Bool = false, fenced: Bool = false) throws {
        var rng = SeededGenerator(seed: seed)
        var options = StreamOptions()
        options.maxClockJump = nil
        if locationHeavy { options.margin = 20 }
        let engine = LiveEngine(options: options, start: Self.t0)
        // The reference rebuilds after every change (the previous center's way).
        var reference = StreamEvaluator(requests: [], options: options)
        reference.start(defaultAddedAt: Self.t0)
        var inPlaceLocationAdds = 0, inPlaceFenceAdds = 0
        var live: [(id: String, request: NotificationRequest)] = []
        var t = Self.t0
        var compared = 0
        for step in 0..<(fenced ? 320 : 160) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1, 2:  // add or replace
                let id = "r\(Int.random(in: 0..<12, using: &rng))"
                let r = Self.request(&rng, id: id, at: t, locationHeavy: locationHeavy, expiring: expiring, fenced: fenced)
                let replaced = live.contains { $0.id == id }
                live.removeAll { $0.id == id }
                live.append((id, r))
                let before = engine.current.requests.count
                engine.add(r)
                if case .location(let l) = r.trigger, engine.evaluator.requests.count == before + 1 {
                    inPlaceLocationAdds += 1
                    if l.hasRules { inPlaceFenceAdds += 1 }
                }
                reference = reference.migrated(to: live.map(\.request), fresh: replaced ? [id] : [])
                reference.skipsStableFixes = !locationHeavy
            case 3:  // remove
                guard let victim = live.randomElement(using: &rng) else { continue }
                live.removeAll { $0.id == victim.id }
                engine.remove(identifiers: [victim.id])
                reference = reference.migrated(to: live.map(\.request))
                reference.skipsStableFixes = !locationHeavy
                // Now and then a compaction (as a snapshot forces): the migration must carry
                // appended and removed slots' state over exactly.
                if locationHeavy && Bool.random(using: &rng) { _ = engine.compacted }
            case 4, 5, 6:  // clock
                t += Int64(Int.random(in: 1...200, using: &rng)) * 1000
                var a: [FiredEvent] = [], b: [FiredEvent] = []
                let e = engine.current
                try e.process(.clock(t), into: &a)
                try reference.process(.clock(t), into: &b)
                #expect(Self.names(e, a) == Self.names(reference, b), "seed \(seed) step \(step)")
                compared += b.count
            default:  // a fix
                t += 1000
                var fix = Fix(device: "d\(Int.random(in: 0..<2, using: &rng))", t: t,
                              latitude: 40 + Double(Int.random(in: 0..<7, using: &rng)) * 0.001, longitude: -74)
                if fenced {
                    // Some inaccurate fixes, and some far apart (paths across fences).
                    if Int.random(in: 0..<4, using: &rng) == 0 { fix.accuracy = Double([5, 30, 120, 500].randomElement(using: &rng)!) }
                    if Int.random(in: 0..<5, using: &rng) == 0 { fix.latitude = [39.99, 40.01].randomElement(using: &rng)! }
                }
                var a: [FiredEvent] = [], b: [FiredEvent] = []
                let e = engine.current
                try e.process(.fix(fix), into: &a)
                try reference.process(.fix(fix), into: &b)
                #expect(Self.names(e, a) == Self.names(reference, b), "seed \(seed) step \(step)")
                compared += b.count
            }
            if expiring {
                // Expired requests leave the center (as one-shots that fired do): the reference
                // is rebuilt without them, the engine retires them.
                let before = live.count
                live.removeAll { $0.request.expiresAt.map { Timestamp.millis($0) <= t } ?? false }
                engine.retireFinished()
                if live.count < before {
                    // (Left in the reference, an expired request's end was carried to a later
                    // add of its identifier, which the engine, having retired it, adds anew.)
                    reference = reference.migrated(to: live.map(\.request))
                    reference.skipsStableFixes = !locationHeavy
                }
            }
            let pendingA = engine.pendingRequests(device: nil).map(\.identifier)
            let flags = reference.pendingFlags()
            let pendingB = reference.requests.indices.filter { flags[$0] }.map { reference.requests[$0].identifier }
            #expect(pendingA == pendingB, "seed \(seed) step \(step)")
            for (id, _) in live {
                let refSlot = reference.schedule.flatMap { s in s.entries.firstIndex { reference.requests[Int($0.request)].identifier == id } }
                let refNext = refSlot.flatMap { slot in reference.schedule?.queuedFires.first { Int($0.slot) == slot }?.date }
                #expect(engine.nextFireDate(identifier: id) == refNext, "seed \(seed) step \(step) \(id)")
            }
        }
        #expect(compared > 20)
        if locationHeavy && !expiring && !fenced { #expect(inPlaceLocationAdds > 20, "location adds must take the in-place path") }
        if fenced { #expect(inPlaceFenceAdds > 5, "fences with rules must be added in place once one is live (\(inPlaceFenceAdds))") }
    }
}
