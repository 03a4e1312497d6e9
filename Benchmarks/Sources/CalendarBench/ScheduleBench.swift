import Foundation
@_spi(Engine) import TriggerKit
import BenchSupport

/// FireSchedule at scale: generated time-based requests in the mix of tools/gen-requests.py
/// restricted to time-based triggers (65 % calendar in six pattern kinds, 33 % time interval,
/// 2 % immediate), thirteen zones or floating, added over one day.
enum ScheduleBench {
    static let zones: [TimeZone?] = ["America/New_York", "Europe/London", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney",
                                     "America/Los_Angeles", "Asia/Kolkata", "America/Sao_Paulo", "UTC", "Pacific/Chatham",
                                     "America/St_Johns", "Africa/Casablanca"].map { TimeZone(identifier: $0) } + [nil]

    static func requests(count: Int, start: Int64) -> (requests: [NotificationRequest], mix: [String: Int], kinds: [String]) {
        var g = SplitMix64(seed: 42)
        func r(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(g.next() % UInt64(range.count)) }
        func unit() -> Double { Double(g.next() >> 11) / Double(1 << 53) }
        var mix: [String: Int] = [:]
        let content = NotificationContent(title: "t")
        var out: [NotificationRequest] = []
        var kindOf: [String] = []
        out.reserveCapacity(count)
        let kinds = ["daily hour+minute", "weekly weekday+hour+minute", "monthly day(1-31)+hour+minute", "yearly month+day+hour+minute",
                     "nth weekday (weekdayOrdinal 1-4)", "weekOfYear+weekday+hour+minute"]
        for i in 0..<count {
            let x = unit()
            let trigger: NotificationTrigger
            if x < 0.65 {
                let k = r(0...5)
                var c = DateComponents(hour: r(0...23), minute: r(0...59))
                switch k {
                case 1: c.weekday = r(1...7)
                case 2: c.day = r(1...31)
                case 3: c.month = r(1...12); c.day = r(1...28)
                case 4: c.weekday = r(1...7); c.weekdayOrdinal = r(1...4)
                case 5: c.weekOfYear = r(1...52); c.weekday = r(1...7)
                default: break
                }
                c.timeZone = zones[r(0...(zones.count - 1))]
                trigger = .calendar(CalendarTrigger(dateMatching: c, repeats: unit() < 0.8))
                mix[kinds[k], default: 0] += 1
                kindOf.append(kinds[k])
            } else if x < 0.98 {
                let interval = [60, 300, 900, 3600, 86400, 30.5][r(0...5)]
                trigger = .timeInterval(TimeIntervalTrigger(timeInterval: interval, repeats: interval >= 60 && unit() < 0.5))
                mix["time interval", default: 0] += 1
                kindOf.append("time interval")
            } else {
                trigger = .immediate
                mix["immediate", default: 0] += 1
                kindOf.append("immediate")
            }
            let added = Timestamp.date(millis: start - Int64(r(0...86_399)) * 1000)
            out.append(NotificationRequest(identifier: "req-\(i)", content: content, trigger: trigger, addedAt: added))
        }
        return (out, mix, kindOf)
    }

    /// Build cost per trigger kind: a FireSchedule over up to `n` triggers of one kind.
    static func perKind(_ reqs: [NotificationRequest], _ kindOf: [String], n: Int, start: Int64, passes: Int) {
        let utc = TimeZone(identifier: "UTC") ?? .current
        print("\n| kind (FireSchedule over \(grouped(n)) of them) | build ns per trigger | share of the 1M build |")
        print("|---|---:|---:|")
        var byKind: [String: [NotificationRequest]] = [:]
        for (i, k) in kindOf.enumerated() where byKind[k, default: []].count < n { byKind[k, default: []].append(reqs[i]) }
        var rows: [(String, Double, Double)] = []
        var total = 0.0
        for (k, subset) in byKind {
            var times: [Double] = []
            for _ in 0..<passes {
                let t0 = nowNanos()
                let s = FireSchedule(requests: subset, defaultAddedAt: start, floatingTimeZone: utc)
                times.append(Double(nowNanos() - t0) / Double(subset.count))
                if s.pendingCount < 0 { print("") }
            }
            let share = median(times) * Double(kindOf.count { $0 == k })
            total += share
            rows.append((k, median(times), share))
        }
        for (k, ns, share) in rows.sorted(by: { $0.2 > $1.2 }) {
            print("| \(k) | \(f(ns)) | \(f(share / total * 100, 1)) % |")
        }
    }

    static func run(count: Int, passes: Int, sink: inout Int64) {
        let start = Timestamp.parseMillis("2026-11-21T09:00:00Z") ?? 0
        let utc = TimeZone(identifier: "UTC") ?? .current
        let (reqs, mix, kindOf) = requests(count: count, start: start)
        print("\n## Schedule index (FireSchedule) over \(grouped(count)) generated triggers\n")
        print("Mix: " + mix.sorted { $0.value > $1.value }.map { "\($0.key) \(f(Double($0.value) * 100 / Double(count), 1)) %" }.joined(separator: ", ")
              + "; calendar ones 80 % repeating, in 12 zones or floating (UTC); addedAt within the day before 2026-11-21T09:00Z.\n")
        var builds: [Double] = []
        var rssDelta = 0
        var schedule: FireSchedule? = nil
        for p in 0..<passes {
            schedule = nil
            let before = residentBytes()
            let t0 = nowNanos()
            let s = FireSchedule(requests: reqs, defaultAddedAt: start, floatingTimeZone: utc)
            builds.append(Double(nowNanos() - t0) / 1e6)
            if p == 0 { rssDelta = residentBytes() - before }
            schedule = s
        }
        guard var s = schedule else { return }
        // soonest(64): the merged view, queue untouched.
        var top: [Double] = []
        for _ in 0..<passes {
            let reps = 200
            let t0 = nowNanos()
            for _ in 0..<reps { sink &+= s.soonest(64).last?.date ?? 0 }
            top.append(Double(nowNanos() - t0) / Double(reps))
        }
        // popDue: first the catch-up from each trigger's addedAt (up to a day earlier) to the
        // start, then one simulated hour in 1 s steps (copy of the schedule per pass).
        var catchUp: [Double] = [], pops: [Double] = []
        var caught = 0, popped = 0
        for _ in 0..<passes {
            var copy = s
            var out: [ScheduledFire] = []
            out.reserveCapacity(1 << 20)
            let c0 = nowNanos()
            copy.popDue(until: start, into: &out)
            catchUp.append(Double(nowNanos() - c0) / Double(Swift.max(out.count, 1)))
            caught = out.count
            out.removeAll(keepingCapacity: true)
            let t0 = nowNanos()
            var t = start
            while t < start + 3_600_000 { t += 1000; copy.popDue(until: t, into: &out) }
            pops.append(Double(nowNanos() - t0) / Double(Swift.max(out.count, 1)))
            popped = out.count
            sink &+= Int64(out.count)
        }
        s = FireSchedule(requests: [], defaultAddedAt: start, floatingTimeZone: utc)
        defer {
            perKind(reqs, kindOf, n: 10_000, start: start, passes: passes)
            // The same build without the kinds that consult Foundation at build time.
            let native = reqs.indices.filter { !kindOf[$0].hasPrefix("nth weekday") && !kindOf[$0].hasPrefix("monthly") }.map { reqs[$0] }
            var t: [Double] = []
            for _ in 0..<passes {
                let t0 = nowNanos()
                let s = FireSchedule(requests: native, defaultAddedAt: start, floatingTimeZone: utc)
                t.append(Double(nowNanos() - t0) / 1e6)
                if s.pendingCount < 0 { print("") }
            }
            print("\nBuild over the \(grouped(native.count)) triggers left without nth-weekday and monthly ones: \(f(median(t))) ms (\(f(median(t) * 1e6 / Double(native.count))) ns per trigger).")
        }
        print("| measure | value | goal |")
        print("|---|---:|---|")
        print("| build FireSchedule (1M triggers, incl. one next-date search each) | \(f(median(builds))) ms (passes: \(builds.map { f($0) }.joined(separator: ", "))) | < 2,000 ms |")
        print("| soonest(64) merged view | \(f(median(top) / 1000, 1)) us | < 1,000 us |")
        print("| popDue catch-up from addedAt to the start, per fire | \(f(median(catchUp))) ns (\(grouped(caught)) fires) | |")
        print("| popDue over the next hour (1 s steps), per fire | \(f(median(pops))) ns (\(grouped(popped)) fires) | |")
        print("| MemoryLayout<FireSchedule.Entry>.stride + <ScheduledFire>.stride (FireSchedule.bytesPerTrigger) | \(FireSchedule.bytesPerTrigger) B | |")
        print("| MemoryLayout<TimeRule>.stride / <CalendarSchedule>.stride / <ScheduledFire>.stride | \(MemoryLayout<TimeRule>.stride) / \(MemoryLayout<CalendarSchedule>.stride) / \(MemoryLayout<ScheduledFire>.stride) B | |")
        print("| RSS growth while building (first pass, requests already in memory), per trigger | \(f(Double(rssDelta) / Double(count))) B (\(rssDelta / 1_000_000) MB) | |")
    }
}
