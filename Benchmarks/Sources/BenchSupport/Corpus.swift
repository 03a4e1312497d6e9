import Foundation
@_spi(Engine) import TriggerKit

/// One case of the main package's calendar corpus (`Fixtures/calendar-corpus/public.jsonl`).
public struct CorpusCase: Sendable {
    public var number: Int
    public var zone: TimeZone
    public var components: DateComponents
    public var after: Int64
    public var expected: [Int64]
    public var kind: String
    public var suspect: Bool

    public var trigger: CalendarTrigger {
        var c = components
        c.timeZone = zone
        return CalendarTrigger(dateMatching: c, repeats: true)
    }

    /// Loads the main package's corpus (`../Fixtures/calendar-corpus/public.jsonl` seen from
    /// `Benchmarks/`), located from this source file so any working directory works.
    public static func load() -> [CorpusCase] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/calendar-corpus/public.jsonl")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let v = try? JSONValue.parse(String(line)), let o = v.objectValue,
                  let n = o["case"]?.numberValue, let tz = o["timeZone"]?.stringValue, let zone = TimeZone(identifier: tz),
                  let comps = o["components"]?.objectValue, let a = o["after"]?.stringValue, let after = Timestamp.parseMillis(a),
                  let chain = o["nextPreservingSmaller"]?.arrayValue
            else { return nil }
            var c = DateComponents()
            for f in DateMatchingField.allCases {
                if let x = comps[f.rawValue]?.numberValue { f.set(Int(x), in: &c) }
            }
            return CorpusCase(number: Int(n), zone: zone, components: c, after: after,
                              expected: chain.compactMap { $0.stringValue.flatMap(Timestamp.parseMillis) },
                              kind: o["kind"]?.stringValue ?? "", suspect: o["suspect"]?.boolValue ?? false)
        }
    }
}

/// CPU time of the calling thread, nanoseconds. The benchmarks time with this rather than
/// the wall clock: the machine's two cores are shared with other builds, and time spent
/// descheduled would otherwise count as work (cache effects of neighbours still do).
@inline(__always)
public func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
