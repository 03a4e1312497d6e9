// CenterBench: what a live service pays with TriggerCenter (issue 9).
//   swift run -c release CenterBench [N]
// 1. Cost of one change (add / replace / remove, each followed by the next step, which is
//    when a change is applied) in a center holding N requests (calendar, interval, circles,
//    polygons mixed): p50 / p99 / max over 300 changes, ContinuousClock per change.
// 2. A burst of 1,000 changes between two steps: cost per change.
// 3. Many fires: 1,000 repeating 60 s triggers over a day through the center (coalescing
//    off, every fire delivered as a value) vs the batch evaluator `run` drives.
import Foundation
@_spi(Engine) import TriggerKit

let n = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10_000 : 10_000
let t0 = Date(timeIntervalSince1970: 1_795_770_000)

func request(_ i: Int) -> NotificationRequest {
    let content = NotificationContent(title: "r\(i)")
    let trigger: NotificationTrigger
    switch i % 4 {
    case 0: trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "America/New_York"), hour: i % 24, minute: i % 60), repeats: true))
    case 1: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: Double(60 + i % 3600), repeats: true))
    case 2:
        trigger = .location(LocationTrigger(region: .circular(CircularRegion(identifier: "c\(i)", center: Coordinate(
            latitude: 40 + Double(i % 1000) * 0.001, longitude: -74 + Double(i / 1000 % 1000) * 0.001), radius: 50 + Double(i % 2000))), repeats: true))
    default:
        let lat = 40 + Double(i % 1000) * 0.001, lon = -74 + Double(i / 1000 % 1000) * 0.001, d = 0.0005
        let ring = [(lon, lat), (lon + d, lat), (lon + d, lat + d), (lon, lat + d), (lon, lat)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        trigger = .location(LocationTrigger(region: .polygon(PolygonRegion(identifier: "p\(i)", polygons: [[ring]], isMultiPolygon: false)), repeats: true))
    }
    return NotificationRequest(identifier: "r\(i)", content: content, trigger: trigger, addedAt: t0)
}

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    return s[min(s.count - 1, Int(Double(s.count) * p))]
}

func us(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }

let clock = ManualClock(t0)
let center = TriggerCenter(clock: clock)
let load = ContinuousClock.now
for i in 0..<n { try await center.add(request(i)) }
_ = await center.deliverDue()
print("CenterBench: \(n) requests loaded (validated, one migration) in \(String(format: "%.2f", us(ContinuousClock.now - load) / 1e6)) s")

// Kinds of change: a time-based add (calendar/interval: in place), a location add (batched
// into a migration at the next step), a time-based replace (in place), a remove (in place).
let kinds = ["add time-based", "add location", "replace time-based", "remove"]
var costs: [String: [Double]] = Dictionary(uniqueKeysWithValues: kinds.map { ($0, []) })
var fixT = t0
var added: [Int] = []
for k in 0..<400 {
    let kind = kinds[k % 4]
    fixT = fixT.addingTimeInterval(1)
    clock.advance(to: fixT)
    let start = ContinuousClock.now
    switch kind {
    case "add time-based": let i = n + 4 * k + 1; added.append(i); try await center.add(request(i))        // i % 4 == 1: interval
    case "add location": let i = n + 4 * k + 2; added.append(i); try await center.add(request(i))          // i % 4 == 2: circle
    case "replace time-based": try await center.add(request((k * 28) % n))                                 // % 4 == 0: calendar
    default: await center.removePendingRequests(withIdentifiers: ["r\(added.removeFirst())"])
    }
    // The change is applied at the next step: a fix.
    _ = try await center.receive(LocationFix(device: "d\(k % 10)", date: fixT, latitude: 40.3, longitude: -73.7))
    costs[kind]!.append(us(ContinuousClock.now - start))
}
print("| change (+ the next fix), \(n) requests | p50 us | p99 us | max us |")
print("|---|---:|---:|---:|")
for kind in kinds {
    let xs = costs[kind]!
    print("| \(kind) | \(Int(percentile(xs, 0.5))) | \(Int(percentile(xs, 0.99))) | \(Int(xs.max()!)) |")
}
var fixOnly: [Double] = []
for k in 0..<200 {
    fixT = fixT.addingTimeInterval(1)
    clock.advance(to: fixT)
    let start = ContinuousClock.now
    _ = try await center.receive(LocationFix(device: "d\(k % 10)", date: fixT, latitude: 40.3, longitude: -73.7))
    fixOnly.append(us(ContinuousClock.now - start))
}
print("| a fix with no change | \(Int(percentile(fixOnly, 0.5))) | \(Int(percentile(fixOnly, 0.99))) | \(Int(fixOnly.max()!)) |")

let burst = ContinuousClock.now
for k in 0..<1000 { try await center.add(request(n + 1000 + k)) }
_ = await center.deliverDue()
print("burst of 1,000 adds then one step: \(String(format: "%.1f", us(ContinuousClock.now - burst) / 1000)) us per add")

// Many fires: center (values, history, feeds) vs the batch evaluator (FiredEvent only).
let fires = (0..<1000).map { i in NotificationRequest(identifier: "f\(i)", content: NotificationContent(title: "f"),
                                                     trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)), addedAt: t0) }
var cfg = CenterConfiguration()
cfg.catchUp = .everyFire
let c2clock = ManualClock(t0)
let c2 = TriggerCenter(configuration: cfg, clock: c2clock)
for r in fires { try await c2.add(r) }
_ = await c2.deliverDue()
var delivered = 0
let cs = ContinuousClock.now
for m in 1...1440 {
    c2clock.advance(to: t0.addingTimeInterval(Double(m) * 60))
    delivered += await c2.deliverDue().count
}
let centerTime = us(ContinuousClock.now - cs)
let batch = StreamEvaluator(requests: fires, options: StreamOptions(now: t0))
var events: [FiredEvent] = []
var batchFires = 0
let bs = ContinuousClock.now
for m in 0...1440 {
    events.removeAll(keepingCapacity: true)
    try? batch.process(.clock(Int64(1_795_770_000 + m * 60) * 1000), into: &events)
    batchFires += events.count
}
let batchTime = us(ContinuousClock.now - bs)
print("many fires: center \(delivered) deliveries in \(Int(centerTime / 1000)) ms, batch evaluator \(batchFires) fires in \(Int(batchTime / 1000)) ms: center/batch = \(String(format: "%.2f", centerTime / batchTime))x")
