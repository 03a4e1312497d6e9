import Foundation
import TriggerKit
import BenchSupport

/// FireSchedule at scale: generated time-based requests in the mix of tools/gen-requests.py
/// restricted to time-based triggers (65 % calendar in six pattern kinds, 33 % time interval,
/// 2 % immediate), thirteen zones or floating, added over one day.
enum ScheduleBench {
    static let zones: [TimeZone?] = ["America/New_York", "Europe/London", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney",
                                     "America/Los_Angeles", "Asia/Kolkata", "America/Sao_Paulo", "UTC", "Pacific/Chatham",
                                     "America/St_Johns", "Africa/Casablanca"].map { TimeZone(identifier: $0) } + [nil]

    static func requests(count: Int, start: Int64) -> (requests: [NotificationRequest], mix: [String: Int]) {
        var g = SplitMix64(seed: 42)
        func r(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(g.next() % UInt64(range.count)) }
        func unit() -> Double { Double(g.next() >> 11) / Double(1 << 53) }
        var mix: [String: Int] = [:]
        let content = NotificationContent(title: "t")
        var out: [NotificationRequest] = []
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
            } else if x < 0.98 {
                let interval = [60, 300, 900, 3600, 86400, 30.5][r(0...5)]
                trigger = .timeInterval(TimeIntervalTrigger(timeInterval: interval, repeats: interval >= 60 && unit() < 0.5))
                mix["time interval", default: 0] += 1
            } else {
                trigger = .immediate
                mix["immediate", default: 0] += 1
            }
            let added = Timestamp.date(millis: start - Int64(r(0...86_399)) * 1000)
            out.append(NotificationRequest(identifier: "req-\(i)", content: content, trigger: trigger, addedAt: added))
        }
        return (out, mix)
    }

    static func run(count: Int, passes: Int, sink: inout Int64) {
        let start = Timestamp.parseMillis("2026-11-21T09:00:00Z") ?? 0
        let utc = TimeZone(identifier: "UTC") ?? .current
        let (reqs, mix) = requests(count: count, start: start)
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
        // popDue over the first simulated hour after the start (copy of the schedule per pass).
        var pops: [Double] = []
        var popped = 0
        for _ in 0..<passes {
            var copy = s
            var out: [ScheduledFire] = []
            out.reserveCapacity(1 << 20)
            let t0 = nowNanos()
            var t = start
            while t < start + 3_600_000 { t += 1000; copy.popDue(until: t, into: &out) }
            pops.append(Double(nowNanos() - t0) / Double(Swift.max(out.count, 1)))
            popped = out.count
            sink &+= Int64(out.count)
        }
        s = FireSchedule(requests: [], defaultAddedAt: start, floatingTimeZone: utc)
        print("| measure | value | goal |")
        print("|---|---:|---|")
        print("| build FireSchedule (1M triggers, incl. one next-date search each) | \(f(median(builds))) ms (passes: \(builds.map { f($0) }.joined(separator: ", "))) | < 2,000 ms |")
        print("| soonest(64) merged view | \(f(median(top) / 1000, 1)) us | < 1,000 us |")
        print("| popDue over the first hour (1 s steps), per fire | \(f(median(pops))) ns (\(grouped(popped)) fires) | |")
        print("| MemoryLayout<FireSchedule.Entry>.stride + <ScheduledFire>.stride (FireSchedule.bytesPerTrigger) | \(FireSchedule.bytesPerTrigger) B | |")
        print("| MemoryLayout<TimeRule>.stride / <CalendarSchedule>.stride / <ScheduledFire>.stride | \(MemoryLayout<TimeRule>.stride) / \(MemoryLayout<CalendarSchedule>.stride) / \(MemoryLayout<ScheduledFire>.stride) B | |")
        print("| RSS growth while building (first pass), per trigger | \(f(Double(rssDelta) / Double(count))) B (\(rssDelta / 1_000_000) MB) | |")
    }
}
