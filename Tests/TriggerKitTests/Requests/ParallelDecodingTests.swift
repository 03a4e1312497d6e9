import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A large requests file is decoded on every core: the same requests, locations, diagnostics
/// (in the same order) and record count as decoding one record after the other.
@Suite struct ParallelDecodingTests {
    /// Valid requests of every trigger kind, replacements of earlier identifiers, warnings,
    /// refusals (bad JSON, bad fields, bad regions), comments and blank lines.
    static func records(_ n: Int) -> [String] {
        var g = SeededGenerator(s: 9)
        var out: [String] = []
        for i in 0..<n {
            let id = g.int(10) == 0 ? "dup-\(g.int(50))" : "r\(i)"
            switch g.int(9) {
            case 0: out.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": \#(60 + g.int(600)), "repeats": true}}"#)
            case 1: out.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "calendar", "dateMatching": {"hour": \#(g.int(24)), "minute": \#(g.int(60))}, "repeats": true}}"#)
            case 2: out.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"identifier": "q", "center": {"latitude": 40, "longitude": -74}, "radius": 100, "notifyOnEntry": false, "notifyOnExit": false}}}"#)
            case 3: out.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 10, "repeats": true}}"#)
            case 4: out.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"center": {"latitude": 91, "longitude": 0}, "radius": 10}}}"#)
            case 5: out.append(#"{"identifier": "\#(id)", "content": {"title": "\#(i)", "#)
            case 6: out.append(g.int(2) == 0 ? "# a comment \(i)" : "   ")
            default:
                let lat = 40 + g.unit() * 0.5, lon = -74 + g.unit() * 0.5
                out.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"center": {"latitude": \#(lat), "longitude": \#(lon)}, "radius": \#(50 + g.int(2000))}}}"#)
            }
        }
        return out
    }

    static func expectSame(_ a: RequestSet, _ b: RequestSet) {
        #expect(a.requests == b.requests)
        #expect(a.locations == b.locations)
        #expect(a.diagnostics == b.diagnostics)
        #expect(a.recordCount == b.recordCount)
    }

    /// The file parsed one record at a time and on every core; checks they agree.
    static func parsedBothWays(_ text: String) -> RequestSet {
        let options = ValidationOptions(now: Date(timeIntervalSince1970: 1_795_770_000))
        var t = text
        return t.withUTF8 { bytes in
            let one = RequestsFile.parse(bytes, file: "f", options: options, parallel: false)
            let all = RequestsFile.parse(bytes, file: "f", options: options, parallel: true)
            expectSame(all, one)
            return one
        }
    }

    @Test func ndjsonDecodesTheSameOnEveryCore() {
        let one = Self.parsedBothWays(Self.records(9_000).joined(separator: "\n"))
        // The file exercises what the parallel path must keep in order.
        #expect(one.requests.count > 4_000)
        #expect(one.diagnostics.filter { $0.severity == .error }.count > 1_000)
        #expect(one.diagnostics.contains { $0.message.hasPrefix("replaces the request") })
        #expect(one.diagnostics.contains { $0.severity == .warning && !$0.message.hasPrefix("replaces") })
    }

    /// The caller's set-up (`started`) runs once, on the calling thread, before the first
    /// verdict is consumed: on one thread and on every core.
    @Test(arguments: [false, true]) func setUpRunsOnceBeforeTheFirstVerdict(parallel: Bool) {
        let count = 3 * RequestsFile.parallelThreshold
        var events: [Int] = []  // -1: started; else the record consumed
        RequestsFile.decodeAll(count: count, options: ValidationOptions(), parallel: parallel, { _ in .syntax("x") },
                               started: { events.append(-1) }) { i, _ in events.append(i) }
        #expect(events == [-1] + Array(0..<count))
    }

    @Test func aJSONArrayDecodesTheSameOnEveryCore() {
        let items = Self.records(6_000).filter { $0.hasPrefix("{") && $0.hasSuffix("}") }
        let one = Self.parsedBothWays("[" + items.joined(separator: ",\n") + "]")
        #expect(one.requests.count > 2_500)
    }
}
