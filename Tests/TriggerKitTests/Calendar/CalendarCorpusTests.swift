import Foundation
import Testing
@testable import TriggerKit

@Suite struct CalendarCorpusTests {
    @Test func corpusLoads() {
        #expect(CorpusCase.all.count == 3000)
    }

    /// Every non-suspect chain equals Foundation's, element by element (each element searched
    /// from the previous expected one, so one difference is reported once).
    @Test func nonSuspectChainsEqualFoundation() {
        var failures: [String] = []
        for c in CorpusCase.all where !c.suspect {
            let s = CalendarSchedule(c.trigger, floatingTimeZone: c.zone)
            var ref = c.after
            for (i, e) in c.expected.enumerated() {
                let got = s.nextFire(afterMillis: ref)
                if got != e {
                    failures.append("case \(c.number) \(c.kind) \(c.zone.identifier) \(c.components.dateMatchingJSON) after \(Timestamp.string(millis: ref)) [\(i)]: got \(got.map { Timestamp.string(millis: $0) } ?? "nil"), expected \(Timestamp.string(millis: e))")
                    break
                }
                ref = e
            }
            if c.expected.count < 8, failures.last?.hasPrefix("case \(c.number) ") != true {
                if let got = s.nextFire(afterMillis: ref) {
                    failures.append("case \(c.number) \(c.kind) \(c.zone.identifier) \(c.components.dateMatchingJSON) after \(Timestamp.string(millis: ref)): got \(Timestamp.string(millis: got)), expected no date")
                }
            }
        }
        for f in failures.prefix(60) { print(f) }
        #expect(failures.isEmpty, "\(failures.count) corpus chains differ")
    }
}
