import Foundation
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// `run`'s control lines (`add`, `remove`, `respond`, `categories`) are applied in place by
/// ``StreamSession`` (the live center's engine); before, every change rebuilt the evaluator
/// over the new request list, which made a stream of adds quadratic. Whatever the stream, the
/// output (event bytes, in order) and the messages must be those of rebuilding after every
/// change, which ``Rebuilding`` keeps as the reference.
@Suite("Stream session: control lines applied in place equal rebuilding")
struct StreamSessionEquivalenceTests {
    /// The reference: the session as `run` had it, migrating the evaluator at every change.
    struct Rebuilding {
        var requests: [NotificationRequest]
        var categories: [ExactKey: NotificationCategory] = [:]
        let validation: ValidationOptions

        mutating func apply(_ control: ControlLine, at t: Int64, line: Int, evaluator: inout StreamEvaluator) -> [String] {
            switch control {
            case .add(let request, let readerWarnings):
                // (The admission and its messages are the session's own: what is compared is
                // how the change is applied.)
                let (admitted, messages) = StreamSession.admit(request, readerWarnings: readerWarnings, at: t, line: line,
                                                               options: validation, evaluator: evaluator, categories: categories)
                guard let r = admitted else { return messages }
                let name = DiagnosticText.clipped(r.identifier)
                var notes = messages
                let replaced = requests.contains { $0.identifier.isExactly(r.identifier) }
                if replaced { notes.append("warning: line \(line): \(name): replaces the request with the same identifier") }
                requests.removeAll { $0.identifier.isExactly(r.identifier) }
                requests.append(r)
                evaluator = evaluator.migrated(to: requests, fresh: replaced ? [r.identifier] : [])
                return notes
            case .refusedAdd(let identifier, let error):
                return [StreamSession.refusal(line: line, identifier: identifier, error)]
            case .remove(let ids):
                let gone = Set(ids.map(ExactKey.init))
                let before = requests.count
                requests.removeAll { gone.contains(ExactKey($0.identifier)) }
                guard requests.count < before else { return [] }
                evaluator = evaluator.migrated(to: requests)
                return []
            case .categories(let list):
                categories = Dictionary(list.map { (ExactKey($0.identifier), $0) }, uniquingKeysWith: { $1 })
                return []
            case .respond(let response):
                let request = requests.first { $0.identifier.isExactly(response.requestIdentifier) }
                var (change, notes) = StreamSession.change(answering: response, to: request, at: t, line: line, categories: categories)
                if let change { notes += apply(change, at: t, line: line, evaluator: &evaluator) }
                return notes
            }
        }
    }

    /// A request as a JSON object: intervals, calendars (some with an expiry, which rebuilds),
    /// circles and squares near the devices, some device-scoped, some with a category.
    static func requestJSON(_ id: String, _ rng: inout SeededGenerator) -> String {
        let lat = 40 + Double.random(in: 0..<0.01, using: &rng), lon = -74 + Double.random(in: 0..<0.01, using: &rng)
        let trigger: String
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: trigger = #"{"type":"timeInterval","timeInterval":\#([60, 90, 120, 600].randomElement(using: &rng)!),"repeats":true}"#
        case 1: trigger = #"{"type":"timeInterval","timeInterval":\#(Int.random(in: 1..<900, using: &rng)),"repeats":false}"#
        case 2: trigger = #"{"type":"calendar","dateMatching":{"second":\#([0, 30].randomElement(using: &rng)!),"timeZone":"UTC"},"repeats":\#(Bool.random(using: &rng))}"#
        case 3:
            let h = 0.0007
            let ring = [(lon - h, lat - h), (lon + h, lat - h), (lon + h, lat + h), (lon - h, lat + h), (lon - h, lat - h)]
                .map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
            trigger = #"{"type":"location","region":{"identifier":"p\#(id)","geometry":{"type":"Polygon","coordinates":[[\#(ring)]]},"notifyOnExit":\#(Bool.random(using: &rng))},"repeats":\#(Bool.random(using: &rng))}"#
        case 4: trigger = #"{"type":"calendar","dateMatching":{"minute":\#(Int.random(in: 0..<60, using: &rng))},"repeats":true}"#
        case 5:
            // A fence with rules (rebuilt at every change, in place or not): crossings between
            // sparse fixes, dwell, an accuracy limit.
            let rules = [#""crossings":true"#, #""dwell":{"inside":20}"#, #""accuracy":{"maximum":8}"#,
                         #""crossings":true,"dwell":{"outside":30}"#].randomElement(using: &rng)!
            trigger = #"{"type":"location","region":{"identifier":"f\#(id)","center":{"latitude":\#(lat),"longitude":\#(lon)},"radius":\#([80, 150, 400].randomElement(using: &rng)!),"notifyOnExit":true},"repeats":\#(Bool.random(using: &rng)),\#(rules)}"#
        default:
            trigger = #"{"type":"location","region":{"identifier":"z\#(id)","center":{"latitude":\#(lat),"longitude":\#(lon)},"radius":\#([80, 150, 400].randomElement(using: &rng)!),"notifyOnExit":\#(Bool.random(using: &rng))},"repeats":\#(Bool.random(using: &rng))}"#
        }
        var extra = ""
        if Int.random(in: 0..<3, using: &rng) == 0 { extra += #","device":"d\#(Int.random(in: 0..<6, using: &rng))""# }
        if Int.random(in: 0..<20, using: &rng) == 0 { extra += #","expiresAt":"2026-11-25T00:00:00Z""# }
        let category = Int.random(in: 0..<3, using: &rng) == 0 ? #","categoryIdentifier":"c\#(Int.random(in: 1...2, using: &rng))""# : ""
        return #"{"identifier":"\#(id)","content":{"title":"\#(id)"\#(category)},"trigger":\#(trigger)\#(extra)}"#
    }

    /// A stream of fixes of six devices wandering over the regions, with adds (many
    /// replacing), removes, responses (cancel removes, others do nothing) and categories.
    static func stream(seed: UInt64, lines: Int, identifiers: Int) -> [String] {
        var rng = SeededGenerator(seed: seed)
        var t = 1_795_770_000.0
        var position = (0..<6).map { _ in (40 + Double.random(in: 0..<0.01, using: &rng), -74 + Double.random(in: 0..<0.01, using: &rng)) }
        var out = [#"{"t":\#(t),"categories":[{"identifier":"c1","actions":[{"identifier":"cancel","title":"Cancel","options":["destructive"]}]},{"identifier":"c2","actions":[]}]}"#]
        for _ in 0..<lines {
            t += [0, 0.2, 1, 1, 3, 15].randomElement(using: &rng)!
            let x = Double.random(in: 0..<1, using: &rng)
            let id = "r\(Int.random(in: 0..<identifiers, using: &rng))"
            if x < 0.15 {
                out.append(#"{"t":\#(t),"add":\#(requestJSON(id, &rng))}"#)
            } else if x < 0.2 {
                out.append(#"{"t":\#(t),"remove":["\#(id)","r\#(Int.random(in: 0..<identifiers, using: &rng))"]}"#)
            } else if x < 0.22 {
                let action = ["cancel", "open", "com.apple.UNNotificationDismissActionIdentifier"].randomElement(using: &rng)!
                out.append(#"{"t":\#(t),"respond":{"identifier":"\#(id)","device":"d\#(Int.random(in: 0..<6, using: &rng))","action":"\#(action)"}}"#)
            } else {
                let d = Int.random(in: 0..<6, using: &rng)
                // Mostly small steps, sometimes a jump across the area (crossings between them).
                let step = Int.random(in: 0..<10, using: &rng) == 0 ? 0.006 : 0.0015
                position[d].0 = min(40.01, max(40, position[d].0 + Double.random(in: -step...step, using: &rng)))
                position[d].1 = min(-73.99, max(-74, position[d].1 + Double.random(in: -step...step, using: &rng)))
                out.append(#"{"device":"d\#(d)","t":\#(t),"lat":\#(position[d].0),"lon":\#(position[d].1),"acc":\#([5, 5, 5, 20].randomElement(using: &rng)!)}"#)
            }
        }
        return out
    }

    /// Runs `lines` as `run` does (process, write the events, then apply a control line)
    /// through `apply`; returns the output bytes and the messages, the summary line last.
    static func run(_ lines: [String], evaluator start: StreamEvaluator,
                    apply: (ControlLine, Int64, Int, inout StreamEvaluator) -> [String]) -> (output: [UInt8], messages: [String]) {
        var evaluator = start
        var writer = JSONWriter(), messages: [String] = [], events: [FiredEvent] = []
        for (k, line) in lines.enumerated() {
            events.removeAll()
            let e = evaluator, bytes = [UInt8](line.utf8)
            do throws(StreamLineError) {
                try bytes.withUnsafeBufferPointer { b throws(StreamLineError) in try e.process(lineBytes: b, into: &events) }
            } catch {
                e.recordMalformedLine()
                messages.append("error: line \(k + 1): \(error.reason)")
                continue
            }
            for e in events { evaluator.write(e, format: .json, to: &writer) }
            if evaluator.hasPendingControl, let control = evaluator.takeControl() {
                messages += apply(control, evaluator.streamTime ?? 0, k + 1, &evaluator)
            }
        }
        // The summary too: its `ignored-accuracy` counted the fences the grid's cells held,
        // so a fence removed in place (the old grid) and a rebuild counted differently.
        return (writer.bytes, messages + ["summary: \(evaluator.stats.description)"])
    }

    /// `stream` run from `file` (a requests file's lines) with the session and with the
    /// reference; the messages must agree. Returns both outputs, as lines.
    static func both(file: String, stream: [String], options: StreamOptions, _ note: String)
        -> (expected: (output: [UInt8], messages: [String]), actual: (output: [UInt8], messages: [String])) {
        var validation = ValidationOptions(deferTimeChecks: true)
        validation.margin = options.margin
        let set = RequestsFile.parse(file, options: validation)
        var sessionValidation = ValidationOptions()
        sessionValidation.margin = options.margin
        var reference = Rebuilding(requests: set.requests, validation: sessionValidation)
        let expected = run(stream, evaluator: StreamEvaluator(requests: set.requests, options: options, polygonsValidated: true)) {
            reference.apply($0, at: $1, line: $2, evaluator: &$3)
        }
        var session = StreamSession(validation: sessionValidation)
        let actual = run(stream, evaluator: StreamEvaluator(requests: set.requests, options: options, polygonsValidated: true)) {
            session.apply($0, at: $1, line: $2, evaluator: &$3)
        }
        #expect(firstDifference(actual.messages, expected.messages) == nil, "\(note)")
        return (expected, actual)
    }

    static func compare(seed: UInt64, lines: Int, identifiers: Int, initial: Int, options: StreamOptions) {
        var rng = SeededGenerator(seed: seed &* 7919)
        let file = (0..<initial).map { requestJSON("r\($0)", &rng) }.joined(separator: "\n")
        let (expected, actual) = both(file: file, stream: stream(seed: seed, lines: lines, identifiers: identifiers), options: options,
                                      "seed \(seed)")
        // The streams do what they are for: events, replacements and refusals among them.
        #expect(expected.output.count > 10_000)
        #expect(expected.messages.contains { $0.hasSuffix("replaces the request with the same identifier") })
        let lines = { (b: [UInt8]) in String(decoding: b, as: UTF8.self).split(separator: "\n").map(String.init) }
        #expect(firstDifference(lines(actual.output), lines(expected.output)) == nil, "seed \(seed)")
    }

    /// The first line where two lists differ (its index, and each side's line), nil if none.
    static func firstDifference(_ a: [String], _ b: [String]) -> String? {
        guard let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? (a.count == b.count ? nil : min(a.count, b.count))
        else { return nil }
        return "line \(i) of \(a.count) / \(b.count): \(i < a.count ? a[i] : "(none)") / \(i < b.count ? b[i] : "(none)")"
    }

    /// A fence with rules replaced by one, at the instant of the device's fix, when it is the
    /// only fence (from the requests file, or added in the stream): its crossing between that
    /// fix and the next (enter, exit) is not lost. The
    /// engine removed the old fence in place before rebuilding, so the rebuild found no live
    /// fence and forgot the devices' fixes (found by a helper).
    @Test func aFenceWithRulesReplacedByOneKeepsItsCrossings() {
        func fence(_ latitude: Double) -> String {
            #"{"identifier":"x","content":{"title":"X"},"trigger":{"type":"location","repeats":true,"crossings":true,"region":{"center":{"latitude":\#(latitude),"longitude":-73.974},"radius":100}}}"#
        }
        let stream = [#"{"device":"d2","t":"2026-11-23T10:00:00Z","lat":40.746,"lon":-73.974}"#,
                      #"{"t":"2026-11-23T10:00:00Z","add":\#(fence(40.748))}"#,
                      #"{"device":"d2","t":"2026-11-23T10:10:00Z","lat":40.751,"lon":-73.974}"#]
        for file in [fence(40.70), ""] {
            let (expected, actual) = Self.both(file: file, stream: file.isEmpty ? [stream[1].replacingOccurrences(of: "40.748", with: "40.70").replacingOccurrences(of: "10:00:00", with: "09:59:00")] + stream : stream,
                                          options: StreamOptions(), "file \(file.isEmpty ? "empty" : "with x")")
            let lines = String(decoding: actual.output, as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 2 && lines[0].contains("\"enter\"") && lines[1].contains("\"exit\""), "\(lines)")
            #expect(String(decoding: actual.output, as: UTF8.self) == String(decoding: expected.output, as: UTF8.self))
        }
    }

    /// From an empty request set: more than a compaction's worth of adds (appends past an
    /// eighth, removed entries past half), so the engine's rebuilds happen among the changes.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func fromNothing(seed: UInt64) {
        Self.compare(seed: seed, lines: 4000, identifiers: 40 * Int(seed), initial: 0, options: StreamOptions())
    }

    /// From a requests file (the engine adopts the evaluator `run` built), with the options
    /// that change what a fix decides: an initial fire, dwell with a margin (fences with
    /// rules, which rebuild), an accuracy limit, coalesced catch-up.
    @Test(arguments: [5, 6, 7, 8] as [UInt64])
    func fromARequestsFile(seed: UInt64) {
        var options = StreamOptions()
        switch seed % 4 {
        case 0: options.initialFire = true
        case 1: options.dwell = 20; options.margin = 30
        case 2: options.maxAccuracy = 3
        default: options.catchUp = .coalesced
        }
        Self.compare(seed: seed, lines: 4000, identifiers: 30 * Int(seed), initial: 25 * Int(seed), options: options)
    }
}
