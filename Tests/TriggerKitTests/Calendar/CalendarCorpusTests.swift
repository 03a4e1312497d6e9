import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

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
        for f in failures.prefix(100) { print(f) }
        #expect(failures.isEmpty, "\(failures.count) corpus chains differ")
    }

    /// Suspect chains (Foundation skipped a real occurrence): each date TriggerKit returns truly
    /// matches every set component in the zone, and is never later than Foundation's.
    @Test func suspectChainsGiveRealOccurrences() {
        for c in CorpusCase.all where c.suspect {
            let s = CalendarSchedule(c.trigger, floatingTimeZone: c.zone)
            var cal = Calendar(identifier: .gregorian)
            cal.timeZone = c.zone
            var ref = c.after
            for e in c.expected {
                guard let got = s.nextFire(afterMillis: ref) else { Issue.record("case \(c.number): nil"); break }
                let d = cal.dateComponents([.month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .hour, .minute], from: Timestamp.date(millis: got))
                let want = c.components
                ref = got
                // Foundation's March 1st after a February match is its non-suspect habit, kept.
                if d.month == 3, d.day == 1 { continue }
                #expect(want.weekday == nil || want.weekday == d.weekday, "case \(c.number) \(Timestamp.string(millis: got))")
                #expect(want.weekdayOrdinal == nil || want.weekdayOrdinal == d.weekdayOrdinal, "case \(c.number) \(Timestamp.string(millis: got))")
                #expect(want.weekOfMonth == nil || want.weekOfMonth == d.weekOfMonth, "case \(c.number) \(Timestamp.string(millis: got))")
                #expect(want.hour == nil || want.hour == d.hour, "case \(c.number)")
                #expect(want.minute == nil || want.minute == d.minute, "case \(c.number)")
                #expect(got <= e, "case \(c.number): later than Foundation's \(Timestamp.string(millis: e))")
            }
        }
    }
}
