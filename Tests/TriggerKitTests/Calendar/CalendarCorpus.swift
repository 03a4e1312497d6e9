import Foundation
@_spi(Engine) @testable import TriggerKit

/// One case of `Fixtures/calendar-corpus/public.jsonl` (see its FORMAT.md).
struct CorpusCase: Sendable {
    var number: Int
    var zone: TimeZone
    var components: DateComponents
    var after: Int64
    var expected: [Int64]
    var kind: String
    var suspect: Bool

    var trigger: CalendarTrigger {
        var c = components
        c.timeZone = zone
        return CalendarTrigger(dateMatching: c, repeats: true)
    }

    static let all: [CorpusCase] = {
        guard let text = try? Fixture.text("calendar-corpus/public.jsonl") else { return [] }
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
    }()
}
