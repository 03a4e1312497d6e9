import Foundation
@_spi(Engine) @_spi(StreamFastPath) import TriggerKit

/// Runs cases [from, from + count) of a seed, reporting each case index on `progress`
/// before running it, and the outcome counts on stdout at the end (one JSON object).
struct Worker {
    let seed: UInt64
    var counts: [String: Int] = [:]

    mutating func record(_ o: Outcome) {
        switch o {
        case .accepted: counts["accepted", default: 0] += 1
        case .rejected(let code): counts["rejected " + code, default: 0] += 1
        case .untyped(let what): counts["untyped " + what, default: 0] += 1
        }
    }

    static let kinds = ["validate", "center", "requests-file", "stream", "calendar", "parse"]
    /// With `--geo`, every case is a geometry stream (``geoStream(_:)``); the other kinds
    /// keep their case numbers whatever is added.
    var geo = false

    static func kind(of index: Int, geo: Bool) -> String { geo ? "geo" : kinds[index % kinds.count] }

    mutating func run(case index: Int) async {
        var r = CaseRNG(seed: seed, index: index)
        if geo {
            geoStream(&r)
            return
        }
        switch index % Self.kinds.count {
        case 0:
            let req = Make.request(&r, index: index)
            if ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil { FileHandle.standardError.write(Data("validate \(req.trigger)\n".utf8)) }
            do throws(RequestError) {
                try RequestValidation.validate(req, options: ValidationOptions(now: Date(timeIntervalSince1970: 1_795_770_000)))
                record(.accepted)
            } catch { record(.rejected(error.code.rawValue)) }
        case 1:
            await centerSession(&r, index: index)
        case 2:
            var w = JSONWriter()
            w.value(Make.request(&r, index: index).json)
            var bytes = w.bytes
            for _ in 0..<Int(r.next() % 4) where !bytes.isEmpty { bytes[Int(r.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: r.next()) }
            let set = bytes.withUnsafeBufferPointer { RequestsFile.parse($0, file: "fuzz", options: ValidationOptions(deferTimeChecks: true)) }
            if set.requests.isEmpty { record(.rejected(set.diagnostics.first?.code?.rawValue ?? "noRequest")) } else { record(.accepted) }
        case 3:
            let reqs = (0..<Int(r.next() % 4)).map { _ in Make.request(&r, index: index) }
            if ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil { FileHandle.standardError.write(Data("stream \(reqs.map(\.trigger))\n".utf8))
                for q in reqs { var w = JSONWriter(); w.value(q.json); FileHandle.standardError.write(Data(w.bytes + [0x0A])) } }
            var options = StreamOptions(margin: r.chance(3) ? 15 : 0, dwell: r.chance(3) ? 20 : 0)
            if r.chance(3) { options.catchUp = .coalesced }
            if ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil { FileHandle.standardError.write(Data("options \(options)\n".utf8)) }
            let e = StreamEvaluator(requests: reqs, options: options)
            var out: [FiredEvent] = []
            let trace = ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil
            for _ in 0..<20 {
                let line = Make.line(&r)
                let started = ContinuousClock.now
                do throws(StreamLineError) {
                    let parsed = try line.withUnsafeBufferPointer { (b) throws(StreamLineError) in try StreamLineParser.parse(b) }
                    try e.process(parsed, into: &out)
                    record(.accepted)
                } catch { record(.rejected("streamLine")) }
                if trace {
                    FileHandle.standardError.write(Data("line \(String(decoding: line.prefix(300), as: UTF8.self)): \(out.count) events, \(ContinuousClock.now - started)\n".utf8))
                }
                out.removeAll(keepingCapacity: true)
            }
        case 4:
            let t = CalendarTrigger(dateMatching: Make.components(&r), repeats: true)
            let zone = TimeZone(identifier: r.pick(Pool.zones)) ?? .gmt
            if ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil { FileHandle.standardError.write(Data("calendar \(t.dateComponents) zone \(zone.identifier)\n".utf8)) }
            let s = CalendarSchedule(t, floatingTimeZone: zone)
            if let start = r.pick(Pool.dates), let d = s.nextDate(after: start) {
                _ = s.nextDate(after: d)
                record(.accepted)
            } else { record(.rejected("noDate")) }
        default:
            let bytes = Make.line(&r)
            _ = bytes.withUnsafeBufferPointer { Timestamp.parseMillis($0) }
            do throws(JSONSyntaxError) {
                _ = try bytes.withUnsafeBufferPointer { (b) throws(JSONSyntaxError) in try JSONValue.parse(b) }
                record(.accepted)
            } catch { record(.rejected("json")) }
        }
    }

    /// Regions and fixes close together, where the geometry is degenerate or extreme: places
    /// at the poles and the antimeridian, sizes from subnormal to planetary, polygons with
    /// repeated, collinear or nearly equal vertices, fixes on and within ulps of boundaries,
    /// fence rules; each stream evaluated as `run` evaluates it.
    mutating func geoStream(_ r: inout CaseRNG) {
        let place = (lat: r.pick(Geo.latitudes), lon: r.pick(Geo.longitudes))
        var requests: [NotificationRequest] = []
        for i in 0..<Int(1 + r.next() % 5) {
            var rules = FenceRules.none
            if r.chance(3) {
                rules = FenceRules(dwell: r.chance(2) ? FenceDwell(side: r.chance(2) ? .inside : .outside, duration: r.pick(Geo.durations)) : nil,
                                   accuracy: r.chance(3) ? FenceAccuracy(maximum: r.pick(Pool.doubles)) : nil,
                                   crossings: r.chance(2))
            }
            let region: Region
            if r.chance(2) {
                let c = Geo.near(place, &r)
                region = .circular(CircularRegion(identifier: "g\(i)", center: Coordinate(latitude: c.lat, longitude: c.lon),
                                                  radius: r.pick(Geo.sizes)))
            } else {
                let size = r.pick(Geo.sizes) / 111_000
                var ring: [Coordinate] = []
                for k in 0..<Int(3 + r.next() % 6) {
                    let a = 2 * Double.pi * Double(k) / 6
                    var p = (lat: place.lat + size * sin(a), lon: place.lon + size * cos(a))
                    // Past six vertices the angles come round again: rings that touch themselves.
                    if r.chance(4) { p = (place.lat, place.lon) }  // a repeated or collinear vertex
                    if r.chance(5) { p.lat = p.lat.nextUp }
                    ring.append(Coordinate(latitude: min(90, max(-90, p.lat)), longitude: p.lon > 180 ? p.lon - 360 : (p.lon < -180 ? p.lon + 360 : p.lon)))
                }
                ring.append(ring[0])
                region = .polygon(PolygonRegion(identifier: "g\(i)", polygons: [[ring]], isMultiPolygon: false))
            }
            requests.append(NotificationRequest(identifier: "g\(i)", content: NotificationContent(title: "t"),
                                                trigger: .location(LocationTrigger(region: region, repeats: !r.chance(4), rules: rules)),
                                                addedAt: Date(timeIntervalSince1970: 1_795_770_000)))
        }
        let valid = requests.filter { req in
            do throws(RequestError) {
                try RequestValidation.validate(req, options: ValidationOptions(now: Date(timeIntervalSince1970: 1_795_770_000)))
                return true
            } catch { record(.rejected(error.code.rawValue)); return false }
        }
        if ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil { FileHandle.standardError.write(Data("geo \(place) \(valid.map(\.trigger))\n".utf8)) }
        var options = StreamOptions(margin: r.chance(3) ? r.pick([0.001, 15, 1e6]) : 0, dwell: r.chance(4) ? 20 : 0)
        options.initialFire = r.chance(2)
        let e = StreamEvaluator(requests: valid, options: options)
        var out: [FiredEvent] = []
        var w = JSONWriter()
        var t = 1_795_770_000.0
        for _ in 0..<40 {
            t += r.pick([0.001, 1, 1, 30, 3600, 0])
            let p = Geo.near(place, &r)
            var line = "{\"device\": \"d\(r.next() % 2)\", \"t\": \(t), \"lat\": \(p.lat), \"lon\": \(p.lon)"
            if r.chance(3) { line += ", \"acc\": \(r.pick(Pool.doubles))" }
            let bytes = Array((line + "}").utf8)
            do throws(StreamLineError) {
                try bytes.withUnsafeBufferPointer { (b) throws(StreamLineError) in try e.process(lineBytes: b, into: &out) }
                for f in out { e.write(f, format: .json, to: &w) }
                record(.accepted)
            } catch { record(.rejected("streamLine")) }
            out.removeAll(keepingCapacity: true)
            w.bytes.removeAll(keepingCapacity: true)
        }
    }

    /// A center taking random adds, removals, clock moves and fixes.
    mutating func centerSession(_ r: inout CaseRNG, index: Int) async {
        let start = Date(timeIntervalSince1970: 1_795_770_000)
        let clock = ManualClock(start)
        var config = CenterConfiguration()
        if r.chance(2) { config.catchUp = .everyFire }
        // Now and then an extreme configuration value: refused by the center's validator, or
        // in range and used.
        if r.chance(4) {
            let v: Double = r.pick([.nan, .infinity, -.infinity, -1, 0, 1e-9, 59.5, 100_000, 100_001, 31_622_400, 1e300])
            switch r.next() % 6 {
            case 0: config.margin = v
            case 1: config.dwell = v
            case 2: config.maxAccuracy = v
            case 3: config.catchUpWindow = v
            case 4: config.maxFixLead = v
            default: config.deliveredLimitPerDevice = r.pick([Int.min, -1, 0, 1, 100_000, 100_001, Int.max])
            }
        }
        let center: TriggerCenter
        do throws(CenterError) {
            center = try TriggerCenter(configuration: config, clock: clock)
        } catch {
            record(.rejected("configuration"))
            return
        }
        var now = start
        let trace = ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil
        let traceStart = ContinuousClock.now
        for step in 0..<12 {
            let action = r.next() % 4
            if trace { FileHandle.standardError.write(Data("step \(step) action \(action) at \(ContinuousClock.now - traceStart)\n".utf8)) }
            switch action {
            case 0, 1:
                let req = Make.request(&r, index: index * 100 + step)
                if trace { FileHandle.standardError.write(Data("add \(req.identifier.prefix(12)) \(req.trigger) added \(String(describing: req.addedAt?.timeIntervalSince1970))\n".utf8)) }
                do throws(RequestError) { try await center.add(req); record(.accepted) } catch { record(.rejected(error.code.rawValue)) }
            case 2:
                let moves: [TimeInterval] = [0.001, 60, 3600, -3600, 86_400 * 8, 1e9, .nan, 3.2e11]
                now = now.addingTimeInterval(r.pick(moves))
                if trace { FileHandle.standardError.write(Data("advance \(now.timeIntervalSince1970)\n".utf8)) }
                clock.advance(to: now)
                _ = await center.deliverDue()
                record(.accepted)
            default:
                let date = r.chance(2) ? now : r.pick(Pool.dates) ?? now
                let fix = LocationFix(device: r.chance(2) ? "d" : r.pick(Pool.strings), date: date, latitude: r.pick(Pool.doubles),
                                      longitude: r.pick(Pool.doubles), horizontalAccuracy: r.chance(2) ? nil : r.pick(Pool.doubles))
                do throws(FixError) { _ = try await center.receive(fix); record(.accepted) } catch { record(.rejected("fix")) }
            }
            if r.chance(5) { await center.removePendingRequests(withIdentifiers: ["r\(r.next() % 50)"]) }
            if r.chance(6) { _ = await center.respond(NotificationResponse(requestIdentifier: "r\(r.next() % 50)", actionIdentifier: "cancel")) }
            if r.chance(6) { _ = await center.upcomingFires(limit: Int(truncatingIfNeeded: r.next())) }
        }
        if trace { FileHandle.standardError.write(Data("steps done at \(ContinuousClock.now - traceStart)\n".utf8)) }
        let pending = await center.pendingRequests()
        await roundTrip(center, pending: pending, clock: clock, config: config, &r)
        await center.shutdown()
    }

    /// The center's snapshot through its bytes: the restored center must list the same
    /// pending requests and upcoming fires (a difference is a failure: it traps here, so the
    /// supervisor records the case); the bytes with one byte changed must be refused or
    /// restore, never trap.
    func roundTrip(_ center: TriggerCenter, pending: [NotificationRequest], clock: ManualClock, config: CenterConfiguration,
                   _ r: inout CaseRNG) async {
        let snapshot = await center.snapshot()
        let bytes: Data, back: CenterSnapshot, restored: TriggerCenter
        do throws(SnapshotError) {
            bytes = try snapshot.serialized()
            back = try CenterSnapshot(serialized: bytes)
            guard back.requests == snapshot.requests else {
                let k = snapshot.requests.indices.first { back.requests.indices.contains($0) && back.requests[$0] != snapshot.requests[$0] } ?? 0
                fatalError("a snapshot's requests came back otherwise from its bytes: \(snapshot.requests[k]) as \(back.requests[k])")
            }
            guard back.evaluator == snapshot.evaluator else { fatalError("a snapshot's state came back otherwise from its bytes") }
            do throws(CenterError) {
                restored = try TriggerCenter(restoring: back, configuration: config, clock: clock)
            } catch {
                fatalError("a center's snapshot did not restore: \(error)")
            }
        } catch {
            fatalError("a center's snapshot did not come back from its bytes: \(error.reason)")
        }
        let upcoming = await center.upcomingFires(limit: 20), again = await restored.upcomingFires(limit: 20)
        let restoredPending = await restored.pendingRequests()
        guard restoredPending == pending, again == upcoming else {
            fatalError("the restored center differs: pending \(pending.map(\.identifier)) / \(restoredPending.map(\.identifier)), "
                       + "upcoming \(upcoming.map { "\($0.identifier)@\($0.date.timeIntervalSince1970)" }) / \(again.map { "\($0.identifier)@\($0.date.timeIntervalSince1970)" })")
        }
        await restored.shutdown()
        var damaged = [UInt8](bytes)
        damaged[Int(r.next() % UInt64(damaged.count))] ^= UInt8(1 << (r.next() % 8))
        if let s = try? CenterSnapshot(serialized: Data(damaged)), let other = try? TriggerCenter(restoring: s, configuration: config, clock: clock) {
            _ = await other.deliverDue()
            await other.shutdown()
        }
    }
}
