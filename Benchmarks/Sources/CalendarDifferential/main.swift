import Foundation
@_spi(Engine) import TriggerKit
import BenchSupport

// Differential run: N random triggers and reference dates, TriggerKit against Foundation.
// Usage: CalendarDifferential [cases=100000] [seed=1] [all-zones|hard-zones|corpus-zones] [kind,kind,...]
// Differences are classed by pattern family, which side is earlier, and whether TriggerKit's
// date shows every set component (Foundation's dateComponents in the trigger's calendar/zone).
let args = CommandLine.arguments
let count = args.count > 1 ? Int(args[1]) ?? 100_000 : 100_000
let seed = args.count > 2 ? UInt64(args[2]) ?? 1 : 1
let zoneSet = args.count > 3 ? args[3] : "corpus-zones"
let zones: [TimeZone]
switch zoneSet {
case "all-zones": zones = RandomTriggers.allZones
case "hard-zones": zones = RandomTriggers.hardZones
default: zones = RandomTriggers.zones
}
let kinds = args.count > 4 ? args[4].split(separator: ",").map(String.init) : RandomTriggers.kinds
var g = SplitMix64(seed: seed)
CalendarFallbacks.reset()
var mismatches: [String: Int] = [:]
var examples: [String: [String]] = [:]
var perKind: [String: Int] = [:]
let start = nowNanos()
for i in 0..<count {
    let (kind, trigger, after) = RandomTriggers.make(&g, kinds: kinds, zones: zones)
    perKind[kind, default: 0] += 1
    let s = CalendarSchedule(trigger, floatingTimeZone: TimeZone(identifier: "UTC")!)
    let native = s.nextFire(afterMillis: after)
    let f = CalendarEngine.foundationNextDate(trigger, after: Timestamp.date(millis: after), floatingTimeZone: TimeZone(identifier: "UTC")!)
    let foundation = f.map(Timestamp.millis)
    if native != foundation {
        let cls = RandomTriggers.differenceClass(kind: kind, trigger: trigger, after: after, native: native, foundation: foundation)
        mismatches[cls, default: 0] += 1
        if examples[cls, default: []].count < 3 {
            var d = trigger.dateComponents
            let z = d.timeZone?.identifier ?? "?"
            d.timeZone = nil
            examples[cls, default: []].append("\(z) {\(CalendarFeasibility.describe(d))} cal=\(trigger.dateComponents.calendar.map { "\($0.identifier) fw\($0.firstWeekday) md\($0.minimumDaysInFirstWeek)" } ?? "default") after \(Timestamp.string(millis: after)): TriggerKit \(native.map { Timestamp.string(millis: $0) } ?? "nil"), Foundation \(foundation.map { Timestamp.string(millis: $0) } ?? "nil")")
        }
    }
    if (i + 1) % 100_000 == 0 {
        let total = mismatches.values.reduce(0, +)
        FileHandle.standardError.write("\(i + 1) cases, \(total) differences, \((nowNanos() - start) / 1_000_000_000) s\n".data(using: .utf8)!)
    }
}
let total = mismatches.values.reduce(0, +)
print("zones: \(zoneSet) (\(zones.count)), kinds: \(kinds.count)")
print("Foundation fallbacks: \(CalendarFallbacks.total) (" + CalendarFallbacks.Reason.allCases.map { "\($0): \(CalendarFallbacks.count($0))" }.joined(separator: ", ") + ")")
print("cases: \(count), seed: \(seed), differences: \(total) (\(String(format: "%.3f", Double(total) * 100 / Double(count)))%), \((nowNanos() - start) / 1_000_000) ms")
print("| class | differences | example |")
print("|---|---:|---|")
for (cls, n) in mismatches.sorted(by: { $0.value > $1.value }) {
    print("| \(cls) | \(n) | \((examples[cls] ?? []).joined(separator: "<br>")) |")
}
