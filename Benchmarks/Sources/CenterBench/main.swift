// CenterBench: what a live service pays with TriggerCenter (issue 9).
//   swift run -c release CenterBench [N] [CHANGES]
// Defaults: N = 1,000,000 requests (calendar, interval, circles, polygons: a quarter each),
// CHANGES = 10,000.
// 1. Load: N single adds (validated), then the first step; resident memory per request.
// 2. Fix throughput without changes: 100,000 fixes from 10,000 devices walking around the
//    regions (the clock advances 1 ms per fix, so time triggers fire along the way).
// 3. CHANGES single changes interleaved with the same fix stream (10 fixes per change):
//    adds (interval, circle, polygon), replaces (calendar, circle) and removes, each timed
//    alone (ContinuousClock, the whole `center` call including validation); fix throughput
//    with changes.
// 4. A compaction: what the change that triggers one pays (every N/8 adds or N/2 removes).
// 5. Many fires: 1,000 repeating 60 s triggers over a day through the center (coalescing
//    off, every fire delivered as a value, kept in the history and sent to a feed) vs the
//    batch evaluator `run` drives.
import BenchSupport
import Foundation
@_spi(Engine) import TriggerKit

let n = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let changeCount = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 10_000 : 10_000
let t0 = Date(timeIntervalSince1970: 1_795_770_000)

/// Request `i`: kind by `i % 4`; regions spread over a 1 x 1 degree square (1,000 x 1,000
/// positions 111 m apart), radii 50-2,049 m, polygons 55 m squares.
func request(_ i: Int, variant: Int = 0) -> NotificationRequest {
    let content = NotificationContent(title: "r\(i)")
    let trigger: NotificationTrigger
    let lat = 40 + Double(i % 1000) * 0.001, lon = -74 + Double(i / 1000 % 1000) * 0.001
    switch i % 4 {
    case 0: trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "America/New_York"), hour: (i + variant) % 24, minute: i % 60), repeats: true))
    case 1: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double(60 + i % 3600), repeats: true))
    case 2:
        trigger = .location(LocationTrigger(region: .circular(CircularRegion(identifier: "c\(i)", center: Coordinate(
            latitude: lat, longitude: lon), radius: 50 + Double((i + variant * 7) % 2000))), repeats: true))
    default:
        let d = 0.0005
        let ring = [(lon, lat), (lon + d, lat), (lon + d, lat + d), (lon, lat + d), (lon, lat)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        trigger = .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "p\(i)", polygons: [[ring]], isMultiPolygon: false)), repeats: true))
    }
    return NotificationRequest(identifier: "r\(i)", content: content, trigger: trigger)
}

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    return s[min(s.count - 1, Int(Double(s.count) * p))]
}

func us(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }
func f1(_ x: Double) -> String { String(format: "%.1f", x) }

// MARK: fixes
/// 10,000 devices, each walking in small steps (about 20 m per fix) around the regions.
struct Walker {
    var lat: Double, lon: Double
    var state: UInt64
    mutating func step() {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let a = Double(state >> 11) / Double(1 << 53) * 2 * .pi
        lat = min(41, max(40, lat + 0.00018 * sin(a)))
        lon = min(-73, max(-74, lon + 0.00018 * cos(a)))
    }
}
// The loop runs off the main actor, as a service's request handlers do: a call into the
// center's actor from the main thread would pay a thread switch each way (~25 us).
func bench() async throws {
    // MARK: 1. load
    let clock = ManualClock(t0)
    let center = try TriggerCenter(clock: clock)
    let rss0 = residentBytes()
    var load = ContinuousClock.now
    for i in 0..<n { try await center.add(request(i)) }
    let addSeconds = us(ContinuousClock.now - load) / 1e6
    load = ContinuousClock.now
    _ = await center.deliverDue()
    let firstStep = us(ContinuousClock.now - load) / 1e6
    let rss1 = residentBytes()
    print("CenterBench: \(grouped(n)) requests, \(grouped(changeCount)) changes")
    print("load: \(grouped(n)) adds in \(f1(addSeconds)) s (\(f1(addSeconds * 1e6 / Double(n))) us each, validation incl.), first step (compaction of the appends) \(f1(firstStep)) s")
    print("memory: \(grouped((rss1 - rss0) / 1_048_576)) MiB resident for \(grouped(n)) requests = \(grouped((rss1 - rss0) / max(1, n))) B per request (requests themselves, schedule, region index, GEOS polygons)")

    var walkers: [Walker] = (0..<10_000).map { (k: Int) -> Walker in
        let lat: Double = 40 + Double(k % 100) * 0.01
        let lon: Double = -74 + Double(k / 100) * 0.01
        return Walker(lat: lat, lon: lon, state: UInt64(k + 1))
    }
    var fixT = t0
    var fixDeliveries = 0
    var fixTime = 0.0, fixCount = 0

    func oneFix(_ k: Int) async throws {
        let w = k % walkers.count
        walkers[w].step()
        fixT = fixT.addingTimeInterval(0.001)
        clock.advance(to: fixT)
        let s = ContinuousClock.now
        fixDeliveries += try await center.receive(LocationFix(device: "d\(w)", date: fixT, latitude: walkers[w].lat, longitude: walkers[w].lon)).count
        fixTime += us(ContinuousClock.now - s)
        fixCount += 1
    }

    // MARK: 2. fixes without changes
    for k in 0..<100_000 { try await oneFix(k) }
    let plainRate = Double(fixCount) / (fixTime / 1e6)
    print("fixes without changes: \(grouped(fixCount)) in \(f1(fixTime / 1000)) ms = \(grouped(Int(plainRate))) fixes/s (\(grouped(fixDeliveries)) deliveries incl. time fires)")

    // MARK: 3. changes interleaved with fixes
    let kinds = ["add interval", "add circle", "add polygon", "replace calendar", "replace circle", "remove"]
    var costs: [String: [Double]] = Dictionary(uniqueKeysWithValues: kinds.map { ($0, []) })
    var all: [Double] = []
    var added: [Int] = []
    var next = n
    fixTime = 0; fixCount = 0; fixDeliveries = 0
    for c in 0..<changeCount {
        for k in 0..<10 { try await oneFix(c * 10 + k) }
        let kind = kinds[c % kinds.count]
        func fresh(_ mod: Int) -> NotificationRequest {
            while next % 4 != mod { next += 1 }
            defer { next += 1 }
            added.append(next)
            return request(next)
        }
        let r: NotificationRequest?
        switch kind {
        case "add interval": r = fresh(1)
        case "add circle": r = fresh(2)
        case "add polygon": r = fresh(3)
        case "replace calendar": r = request((c * 4_001) % n / 4 * 4, variant: c)
        case "replace circle": r = request((c * 4_001) % n / 4 * 4 + 2, variant: c)
        default: r = nil
        }
        let s = ContinuousClock.now
        if let r { try await center.add(r) } else {
            await center.removePendingRequests(withIdentifiers: ["r\(added.removeFirst())"])
        }
        let cost = us(ContinuousClock.now - s)
        costs[kind]!.append(cost)
        all.append(cost)
    }
    let changeRate = Double(fixCount) / (fixTime / 1e6)
    print("")
    print("| change (\(grouped(n)) requests, fixes streaming) | count | p50 us | p99 us | max us |")
    print("|---|---:|---:|---:|---:|")
    for kind in kinds {
        let xs = costs[kind]!
        print("| \(kind) | \(xs.count) | \(f1(percentile(xs, 0.5))) | \(f1(percentile(xs, 0.99))) | \(f1(xs.max()!)) |")
    }
    print("| all | \(all.count) | \(f1(percentile(all, 0.5))) | \(f1(percentile(all, 0.99))) | \(f1(all.max()!)) |")
    print("")
    print("fixes with a change every 10 fixes: \(grouped(fixCount)) in \(f1(fixTime / 1000)) ms = \(grouped(Int(changeRate))) fixes/s (\(f1(changeRate / plainRate * 100)) % of the rate without changes)")

    // MARK: 4. a compaction
    // A snapshot needs positions without removed requests: it compacts, as the change that
    // crosses the N/8-appends or N/2-removes threshold does.
    let cs = ContinuousClock.now
    _ = await center.snapshot()
    print("compaction + snapshot of \(grouped(n)) requests: \(f1(us(ContinuousClock.now - cs) / 1e6)) s")

    // MARK: 5. many fires
    // The same day of fires four ways: the center with its return values only, the center
    // with one feed consumer draining concurrently, the bare evaluator, and the evaluator
    // plus the JSON lines `run` writes (rendered into a buffer, not written).
    let fires = (0..<1000).map { i in NotificationRequest(identifier: "f\(i)", content: NotificationContent(title: "f"),
                                                         trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)), addedAt: t0) }
    func centerDay(feed withFeed: Bool) async throws -> (ms: Double, delivered: Int, fed: Int) {
        var cfg = CenterConfiguration()
        cfg.catchUp = .everyFire
        let c2clock = ManualClock(t0)
        let c2 = try TriggerCenter(configuration: cfg, clock: c2clock)
        for r in fires { try await c2.add(r) }
        _ = await c2.deliverDue()
        let stream = withFeed ? await c2.deliveries(bufferLimit: 10_000) : nil
        let consumer: Task<Int, Never>? = stream.map { stream in
            Task {
                var fed = 0
                for await _ in stream { fed += 1 }
                return fed
            }
        }
        var delivered = 0
        let ms = ContinuousClock.now
        for m in 1...1440 {
            c2clock.advance(to: t0.addingTimeInterval(Double(m) * 60))
            delivered += await c2.deliverDue().count
        }
        await c2.shutdown()
        let fed = await consumer?.value ?? 0
        // With a feed the clock stops once the consumer has everything.
        return (us(ContinuousClock.now - ms) / 1000, delivered, fed)
    }
    func batchDay(render: Bool) -> (ms: Double, fires: Int, bytes: Int) {
        let batch = StreamEvaluator(requests: fires, options: StreamOptions(now: t0))
        var events: [FiredEvent] = []
        var count = 0, bytes = 0
        var w = JSONWriter()
        let bs = ContinuousClock.now
        for m in 0...1440 {
            events.removeAll(keepingCapacity: true)
            try? batch.process(.clock(Int64(1_795_770_000 + m * 60) * 1000), into: &events)
            count += events.count
            if render {
                for e in events { batch.write(e, format: .json, to: &w) }
                bytes += w.bytes.count
                w.bytes.removeAll(keepingCapacity: true)
            }
        }
        return (us(ContinuousClock.now - bs) / 1000, count, bytes)
    }
    let plain = try await centerDay(feed: false)
    let fed = try await centerDay(feed: true)
    let bare = batchDay(render: false)
    let rendered = batchDay(render: true)
    print("")
    print("| many fires: 1,000 x every 60 s for a day | fires | ms | vs run's evaluation + rendering |")
    print("|---|---:|---:|---:|")
    print("| batch evaluator alone | \(grouped(bare.fires)) | \(Int(bare.ms)) | \(String(format: "%.2f", bare.ms / rendered.ms))x |")
    print("| batch evaluator + JSON lines (what `run` does, \(grouped(rendered.bytes / 1_048_576)) MiB) | \(grouped(rendered.fires)) | \(Int(rendered.ms)) | 1.00x |")
    print("| center, deliveries returned | \(grouped(plain.delivered)) | \(Int(plain.ms)) | \(String(format: "%.2f", plain.ms / rendered.ms))x |")
    print("| center + one feed drained concurrently (got \(grouped(fed.fed))) | \(grouped(fed.delivered)) | \(Int(fed.ms)) | \(String(format: "%.2f", fed.ms / rendered.ms))x |")
}

try await Task.detached { try await bench() }.value
