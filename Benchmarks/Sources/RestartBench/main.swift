// RestartBench: what a service restarting with a large center pays (a snapshot saved, then
// loaded and restored), the byte form against Foundation's JSON coders (what
// `StateStore.saveCenter` and `triggerkit serve` stored before), in one run.
//   swift run -c release RestartBench [N] [--mixed] [--json] [--devices D]
// N (default 1,000,000) requests: location requests as issue 12's loading workload (90 %
// circles of 50-2,000 m, 10 % convex polygons of 8-64 vertices, around New York), or with
// --mixed a quarter each of calendar, interval, circle and polygon triggers. Every figure is
// one timed call (ContinuousClock) on the same snapshot; --json also times Foundation's
// JSONEncoder / JSONDecoder on it (about 30 s and 60 s at a million).
// --devices D: D devices then walk in and out of a circle each (100 fixes apiece, in one
// `atomically` block), so the snapshot holds D device states and a full delivered history
// (100 a device, the default bound): a service's snapshot after a while.
// 1. The center: N adds in one `atomically` block, then the first fix (one build).
// 2. snapshot(); serialized() and init(serialized:); with --json, JSONEncoder and JSONDecoder.
// 3. Restore: TriggerCenter(restoring:) and its first fix (the build), for the byte form's
//    snapshot, and the earlier restore (format 2: every request added one by one) on the same
//    requests, for the cost of the path it replaces.
// 4. Through the SQLite store, as a restart does: saveCenter, then loadCenter + restore +
//    first fix in a fresh center.
import BenchSupport
import Foundation
@_spi(Engine) import TriggerKit
import TriggerKitStore

let args = CommandLine.arguments.dropFirst()
let n = args.first.flatMap { Int($0) } ?? 1_000_000
let mixed = args.contains("--mixed"), json = args.contains("--json")
let deviceCount = args.firstIndex(of: "--devices").flatMap { i in args.index(after: i) < args.endIndex ? Int(args[args.index(after: i)]) : nil } ?? 0
let t0 = Date(timeIntervalSince1970: 1_795_770_000)

extension SplitMix64 {
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }
}

func request(_ i: Int, _ g: inout SplitMix64) -> NotificationRequest {
    let id = String(format: "geo-%07d", i)
    let lat = g.uniform(40.45, 40.95), lon = g.uniform(-74.25, -73.65), radius = g.uniform(50, 2000)
    let kind = mixed ? i % 4 : (i % 10 == 0 ? 3 : 2)
    let trigger: NotificationTrigger
    switch kind {
    case 0: trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "America/New_York"), hour: i % 24, minute: i % 60), repeats: true))
    case 1: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double(60 + i % 3600), repeats: true))
    case 2: trigger = .location(LocationTrigger(region: .circular(CircularRegion(identifier: id, center: Coordinate(latitude: lat, longitude: lon), radius: radius)), repeats: true))
    default:
        let sides = 8 + Int(g.next() % 57)
        let dLat = radius / 111_320, dLon = radius / (111_320 * cos(lat * .pi / 180))
        var ring = (0..<sides).map { k -> Coordinate in
            let a = 2 * Double.pi * Double(k) / Double(sides)
            return Coordinate(latitude: lat + dLat * sin(a), longitude: lon + dLon * cos(a))
        }
        ring.append(ring[0])
        trigger = .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: id, polygons: [[ring]], isMultiPolygon: false)), repeats: true))
    }
    return NotificationRequest(identifier: id, content: NotificationContent(title: "Arrived", body: "zone \(i)"), trigger: trigger)
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let v = try body()
    return (v, seconds(ContinuousClock.now - start))
}
func timedAsync<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let v = try await body()
    return (v, seconds(ContinuousClock.now - start))
}
func row(_ what: String, _ s: Double, _ note: String = "") {
    print("| \(what) | \(f(s, 3)) s | \(note) |")
}

print("| \(grouped(n)) \(mixed ? "mixed" : "location") requests | seconds | |")
print("|---|---:|---|")
var g = SplitMix64(seed: 42)
let requests = (0..<n).map { request($0, &g) }
let clock = ManualClock(t0)
let fix = LocationFix(device: "d", date: t0, latitude: 40.7, longitude: -74)
let center = try TriggerCenter(clock: clock)
let (_, adds) = try await timedAsync { try await center.atomically { c in for r in requests { try c.add(r) } } }
row("center: \(grouped(n)) adds (validated)", adds)
let (_, build) = try await timedAsync { try await center.receive(fix) }
row("center: first fix (builds the evaluator)", build)
if deviceCount > 0 {
    // Each device walks in and out of its own circle (the requests' circles in turn): about
    // 100 enters and exits, the history's bound.
    let circles = requests.compactMap { r -> CircularRegion? in
        if case .location(let l) = r.trigger, case .circular(let c) = l.region { return c } else { return nil }
    }
    let (fired, walk) = try await timedAsync {
        try await center.atomically { c in
            var fired = 0
            for k in 0..<100 {
                clock.advance(by: 60)
                for d in 0..<deviceCount {
                    let circle = circles[d % circles.count]
                    let lat = circle.center.latitude + (k % 2 == 0 ? 0 : 3 * circle.radius / 111_000)
                    fired += try c.receive(LocationFix(device: "device-\(d)", date: clock.now, latitude: lat, longitude: circle.center.longitude)).count
                }
            }
            return fired
        }
    }
    row("\(grouped(deviceCount)) devices: \(grouped(deviceCount * 100)) fixes", walk, "(\(grouped(fired)) deliveries)")
}
let (snap, snapTime) = await timedAsync { await center.snapshot() }
row("snapshot()", snapTime, "(\(grouped(snap.evaluator.devices.count)) device states, \(grouped(snap.delivered.count)) delivered)")
let (bytes, encode) = try timed { try snap.serialized() }
row("serialized()", encode, "(\(grouped(bytes.count)) bytes)")
let (decoded, decode) = try timed { try CenterSnapshot(serialized: bytes) }
row("init(serialized:)", decode)
guard decoded.requests == snap.requests, decoded.evaluator == snap.evaluator else { fatalError("the snapshot did not come back") }
if json {
    let (data, jsonEncode) = try timed { try JSONEncoder().encode(snap) }
    row("Foundation JSONEncoder", jsonEncode, "(\(grouped(data.count)) bytes)")
    let (_, jsonDecode) = try timed { try JSONDecoder().decode(CenterSnapshot.self, from: data) }
    row("Foundation JSONDecoder", jsonDecode)
}

func restore(_ s: consuming CenterSnapshot, _ label: String) async throws {
    let c = ManualClock(t0)
    let start = ContinuousClock.now
    let restored = try TriggerCenter(restoring: s, clock: c)
    row("\(label): init(restoring:)", seconds(ContinuousClock.now - start))
    let (_, first) = try await timedAsync { try await restored.receive(LocationFix(device: "d", date: t0, latitude: 40.7001, longitude: -74)) }
    row("\(label): first fix", first)
}
try await restore(decoded, "restore (format 3, one build)")
var older = snap
older.formatVersion = 2
try await restore(older, "restore (format 2, added one by one)")

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("restart-bench-\(getpid())")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let path = dir.appendingPathComponent("state.db").path
let (_, save) = try timed { try StateStore(path: path).saveCenter(snap) }
row("StateStore.saveCenter", save)
let c2 = ManualClock(t0)
let (again, load) = try timed { try TriggerCenter(restoring: StateStore(readingAt: path).loadCenter()!, clock: c2) }
row("StateStore.loadCenter + init(restoring:)", load)
let (_, first2) = try await timedAsync { try await again.receive(LocationFix(device: "d", date: t0, latitude: 40.7002, longitude: -74)) }
row("... its first fix", first2)
row("restart through the store (load + restore + first fix)", load + first2)
print("peak resident: \(grouped(peakResidentBytes() / 1_048_576)) MiB")
