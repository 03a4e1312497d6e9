import Foundation
import TriggerKit
import BenchSupport

// Next-date cost on the public corpus mix: TriggerKit's compiled CalendarSchedule against
// Foundation's Calendar.nextDate with Apple's policy, the same reference dates, same run.

let cases = CorpusCase.load().filter { !$0.expected.isEmpty }
guard !cases.isEmpty else { print("corpus not found"); exit(1) }
let schedules = cases.map { CalendarSchedule($0.trigger, floatingTimeZone: $0.zone) }
// Foundation calendars prepared outside the timed loop, as a caller holding them would.
let prepared: [(Calendar, DateComponents, Date)] = cases.map { c in
    var cal = CalendarNames.calendar(.gregorian)
    cal.timeZone = c.zone
    return (cal, c.components, Timestamp.date(millis: c.after))
}

func kindGroup(_ k: String) -> String {
    if k.hasPrefix("dst:") { return k.hasSuffix(":gap") ? "dst gap" : "dst repeat" }
    if k.contains(":impossible") || k.contains(":feb29") { return "missing day" }
    return k
}

var nativeNs = [Double](repeating: 0, count: cases.count)
var foundationNs = [Double](repeating: 0, count: cases.count)
var sink: Int64 = 0
let nativeReps = 2000, foundationReps = 20
for (i, s) in schedules.enumerated() {
    let ref = cases[i].after
    for _ in 0..<50 { sink &+= s.nextFire(afterMillis: ref) ?? 0 }
    let t0 = nowNanos()
    for r in 0..<nativeReps { sink &+= s.nextFire(afterMillis: ref &+ Int64(r & 1)) ?? 0 }
    nativeNs[i] = Double(nowNanos() - t0) / Double(nativeReps)
    let (cal, comps, date) = prepared[i]
    let t1 = nowNanos()
    for _ in 0..<foundationReps {
        let d = cal.nextDate(after: date, matching: comps, matchingPolicy: .nextTimePreservingSmallerComponents,
                             repeatedTimePolicy: .first, direction: .forward)
        sink &+= Int64(d?.timeIntervalSince1970 ?? 0)
    }
    foundationNs[i] = Double(nowNanos() - t1) / Double(foundationReps)
}

var groups: [String: [Int]] = [:]
for (i, c) in cases.enumerated() { groups[kindGroup(c.kind), default: []].append(i) }
func geo(_ xs: [Double]) -> Double { exp(xs.map { log($0) }.reduce(0, +) / Double(xs.count)) }
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
func num(_ x: Double) -> String { String(format: "%10.0f", x) }
print("| kind | cases | TriggerKit ns (median) | Foundation ns (median) | speedup (geo mean) |")
print("|---|---:|---:|---:|---:|")
func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
for (g, idx) in groups.sorted(by: { $0.value.count > $1.value.count }) {
    let n = idx.map { nativeNs[$0] }, f = idx.map { foundationNs[$0] }
    let ratio = geo(idx.map { foundationNs[$0] / max(nativeNs[$0], 0.5) })
    print("| \(g) | \(idx.count) | \(num(median(n))) | \(num(median(f))) | \(String(format: "%.0fx", ratio)) |")
}
let all = Array(0..<cases.count)
print("| **all** | \(cases.count) | \(num(median(nativeNs))) | \(num(median(foundationNs))) | **\(String(format: "%.0fx", geo(all.map { foundationNs[$0] / max(nativeNs[$0], 0.5) })))** |")

// No-date answers: components that can never match (Foundation would search or hang).
let ny = TimeZone(identifier: "America/New_York")!
let impossible: [DateComponents] = [
    DateComponents(hour: 24), DateComponents(weekday: 3, weekdayOrdinal: 6), DateComponents(weekOfYear: 53, yearForWeekOfYear: 2021),
    DateComponents(year: 2001, month: 3), DateComponents(month: 2, weekOfMonth: 7), DateComponents(weekday: 8),
]
let ref = Timestamp.parseMillis("2026-11-21T06:00:00Z")!
print("\n| no-date case | compile + answer ns | answer ns |")
print("|---|---:|---:|")
for var c in impossible {
    c.timeZone = ny
    let trig = CalendarTrigger(dateMatching: c, repeats: true)
    let reps = 20000
    let t0 = nowNanos()
    for _ in 0..<reps { sink &+= CalendarSchedule(trig, floatingTimeZone: ny).nextFire(afterMillis: ref) ?? 1 }
    let compile = Double(nowNanos() - t0) / Double(reps)
    let s = CalendarSchedule(trig, floatingTimeZone: ny)
    let t1 = nowNanos()
    for _ in 0..<reps { sink &+= s.nextFire(afterMillis: ref) ?? 1 }
    let answer = Double(nowNanos() - t1) / Double(reps)
    var d = c; d.timeZone = nil
    print("| \(CalendarFeasibility.describe(d)) | \(num(compile)) | \(num(answer)) |")
}
print("\nMemoryLayout<CalendarSchedule>.size = \(MemoryLayout<CalendarSchedule>.size) bytes (sink \(sink & 1))")
