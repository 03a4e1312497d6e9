import Foundation
@_spi(Engine) import TriggerKit
import BenchSupport

// Calendar benchmarks, all in one run (ratios are only compared within a run):
//  1. next-date cost on the public corpus: TriggerKit's compiled CalendarSchedule against
//     Foundation's Calendar.nextDate with Apple's policy, same reference dates;
//  2. no-date cases (compile + answer);
//  3. FireSchedule over 1,000,000 generated triggers: build, soonest(64), popDue, memory.
// Every figure is the median of 3 passes.

var sink: Int64 = 0
let passes = 3

/// Repetitions so that one measurement lasts about `budgetNs`.
func calibrated(_ budgetNs: Double, max maxReps: Int, _ body: () -> Void) -> Int {
    let t0 = nowNanos()
    body()
    let one = Double(nowNanos() - t0)
    return Swift.max(1, Swift.min(maxReps, Int(budgetNs / Swift.max(one, 1))))
}

// MARK: 1. corpus

let cases = CorpusCase.load().filter { !$0.expected.isEmpty }
guard !cases.isEmpty else { print("corpus not found (../Fixtures/calendar-corpus/public.jsonl)"); exit(1) }
let schedules = cases.map { CalendarSchedule($0.trigger, floatingTimeZone: $0.zone) }
// Foundation calendars prepared outside the timed loop, as a caller holding them would.
let prepared: [(Calendar, DateComponents, Date)] = cases.map { c in
    var cal = CalendarNames.calendar(.gregorian)
    cal.timeZone = c.zone
    return (cal, c.components, Timestamp.date(millis: c.after))
}
let agreeing = cases.indices.filter { schedules[$0].nextFire(afterMillis: cases[$0].after) == cases[$0].expected.first }.count

func kindGroup(_ k: String) -> String {
    if k.hasPrefix("dst:") { return k.hasSuffix(":gap") ? "dst gap (all patterns)" : "dst repeated hour (all patterns)" }
    if k.contains(":impossible") || k.contains(":feb29") { return "missing day (31 June, 29 Feb)" }
    return k
}

var nativeRuns = [[Double]](repeating: [], count: cases.count)
var foundationRuns = [[Double]](repeating: [], count: cases.count)
for _ in 0..<passes {
    for (i, s) in schedules.enumerated() {
        let ref = cases[i].after
        let nReps = calibrated(100_000, max: 2000) { sink &+= s.nextFire(afterMillis: ref) ?? 0 }
        let t0 = nowNanos()
        for r in 0..<nReps { sink &+= s.nextFire(afterMillis: ref &+ Int64(r & 1)) ?? 0 }
        nativeRuns[i].append(Double(nowNanos() - t0) / Double(nReps))
        let (cal, comps, date) = prepared[i]
        func foundation() {
            let d = cal.nextDate(after: date, matching: comps, matchingPolicy: .nextTimePreservingSmallerComponents,
                                 repeatedTimePolicy: .first, direction: .forward)
            sink &+= Int64(d?.timeIntervalSince1970 ?? 0)
        }
        let fReps = calibrated(300_000, max: 20, foundation)
        let t1 = nowNanos()
        for _ in 0..<fReps { foundation() }
        foundationRuns[i].append(Double(nowNanos() - t1) / Double(fReps))
    }
}
let nativeNs = nativeRuns.map(median), foundationNs = foundationRuns.map(median)
func speedup(_ idx: [Int]) -> Double { geometricMean(idx.map { foundationNs[$0] / Swift.max(nativeNs[$0], 0.5) }) }

var groups: [String: [Int]] = [:]
for (i, c) in cases.enumerated() { groups[kindGroup(c.kind), default: []].append(i) }
print("## Calendar next date: TriggerKit vs Foundation (public corpus, \(cases.count) cases with a next date)\n")
print("TriggerKit's first date equals the corpus's expected one in \(agreeing)/\(cases.count) cases.")
for i in cases.indices where schedules[i].nextFire(afterMillis: cases[i].after) != cases[i].expected.first {
    let got = schedules[i].nextFire(afterMillis: cases[i].after).map { Timestamp.string(millis: $0) } ?? "none"
    print("- case \(cases[i].number) (\(cases[i].kind)\(cases[i].suspect ? ", suspect" : "")): TriggerKit \(got), corpus \(cases[i].expected.first.map { Timestamp.string(millis: $0) } ?? "none")")
}
print("Per case: median of \(passes) passes; per kind: median over its cases; speedup: geometric mean of per-case ratios.\n")
print("| kind | cases | TriggerKit ns | Foundation ns | speedup |")
print("|---|---:|---:|---:|---:|")
for (g, idx) in groups.sorted(by: { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }) {
    print("| \(g) | \(idx.count) | \(f(median(idx.map { nativeNs[$0] }))) | \(f(median(idx.map { foundationNs[$0] }))) | \(f(speedup(idx)))x |")
}
print("| **all** | \(cases.count) | \(f(median(nativeNs))) | \(f(median(foundationNs))) | **\(f(speedup(Array(cases.indices))))x** |")
let slow = cases.indices.filter { nativeNs[$0] > 2_000 }
print("\nCases where TriggerKit takes > 2 us (Foundation consulted): \(slow.count); their speedup \(slow.isEmpty ? "-" : f(speedup(slow), 1) + "x").")
print("Geometric-mean speedup without them: \(f(speedup(cases.indices.filter { nativeNs[$0] <= 2_000 })))x.")
print("Mean ns over the whole mix: TriggerKit \(f(nativeNs.reduce(0, +) / Double(cases.count))), Foundation \(f(foundationNs.reduce(0, +) / Double(cases.count))).")

// MARK: 2. no-date cases

let ny = TimeZone(identifier: "America/New_York")!
let impossible: [DateComponents] = [
    DateComponents(hour: 24), DateComponents(weekday: 3, weekdayOrdinal: 6), DateComponents(weekOfYear: 53, yearForWeekOfYear: 2021),
    DateComponents(year: 2001, month: 3), DateComponents(month: 2, weekOfMonth: 7), DateComponents(weekday: 8),
    DateComponents(minute: 60), DateComponents(month: 13), DateComponents(weekday: 2, weekdayOrdinal: 0),
]
let ref = Timestamp.parseMillis("2026-11-21T06:00:00Z") ?? 0
print("\n## No-date answers (New York, after 2026-11-21T06:00Z; goal < 10 us including compile)\n")
print("| components | next | compile + answer ns | answer ns |")
print("|---|---|---:|---:|")
for var c in impossible {
    c.timeZone = ny
    let trig = CalendarTrigger(dateMatching: c, repeats: true)
    let reps = 2000
    var compile: [Double] = [], answer: [Double] = []
    for _ in 0..<passes {
        let t0 = nowNanos()
        for _ in 0..<reps { sink &+= CalendarSchedule(trig, floatingTimeZone: ny).nextFire(afterMillis: ref) ?? 1 }
        compile.append(Double(nowNanos() - t0) / Double(reps))
        let s = CalendarSchedule(trig, floatingTimeZone: ny)
        let t1 = nowNanos()
        for _ in 0..<reps { sink &+= s.nextFire(afterMillis: ref) ?? 1 }
        answer.append(Double(nowNanos() - t1) / Double(reps))
    }
    var d = c
    d.timeZone = nil
    let next = CalendarSchedule(trig, floatingTimeZone: ny).nextFire(afterMillis: ref).map { Timestamp.string(millis: $0) } ?? "none"
    print("| \(CalendarFeasibility.describe(d)) | \(next) | \(f(median(compile))) | \(f(median(answer))) |")
}

// MARK: 3. schedule index over 1,000,000 triggers

ScheduleBench.run(count: 1_000_000, passes: passes, sink: &sink)
print("\n(sink \(sink & 1))")
