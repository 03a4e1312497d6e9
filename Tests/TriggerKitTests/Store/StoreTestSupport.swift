import Foundation
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

/// A fresh path in a temporary directory, removed (with its WAL files) by `cleanup()`.
struct TempStorePath {
    let directory: URL
    let path: String

    init(_ name: String = "state.db") {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tk-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent(name).path
    }

    func cleanup() { try? FileManager.default.removeItem(at: directory) }
}

/// Requests with every kind of state the store keeps: repeating and one-shot circles (shared
/// and device-scoped), repeating and one-shot time intervals, a calendar trigger.
let storeTestRequests = [
    circleRequest("a"),
    circleRequest("b", radius: 300, repeats: false),
    circleRequest("c", radius: 200, exit: false, repeats: false, device: "d1"),
    circleRequest("e", radius: 50, entry: false, device: "d2"),
    #"{"identifier": "tick", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 90, "repeats": true}}"#,
    #"{"identifier": "once", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 400}}"#,
    #"{"identifier": "half", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"minute": 30, "second": 0, "timeZone": "UTC"}, "repeats": true}}"#,
    #"{"identifier": "now", "content": {"title": "x"}}"#,
].joined(separator: "\n")

func makeEvaluator(_ requests: String = storeTestRequests, options: StreamOptions = .init()) -> StreamEvaluator {
    let set = RequestsFile.parse(requests, file: "test", options: ValidationOptions(now: options.now))
    precondition(set.errorCount == 0, "test requests must be valid: \(set.diagnostics)")
    return StreamEvaluator(requests: set.requests, options: options)
}

/// A seeded stream: three devices wandering across the circles, a few clock-only,
/// stale, invalid, blank and malformed lines, and settings changes.
func storeTestStream(count: Int, seed: UInt64) -> [String] {
    var rng = SeededGenerator(seed: seed)
    var lines: [String] = []
    var second = 0
    for _ in 0..<count {
        second += Int.random(in: 1...20, using: &rng)
        let roll = Int.random(in: 0..<100, using: &rng)
        let device = ["d1", "d2", "d3"][Int.random(in: 0..<3, using: &rng)]
        switch roll {
        case 0: lines.append("")
        case 1: lines.append("{not json")
        case 2: lines.append("{\"t\": \"\(at(second))\"}")
        case 3: lines.append(fix(device, second - 200, north: 0))  // stale
        case 4: lines.append(fix(device, second, north: 0, acc: -1))  // invalid
        case 5, 6:  // authorization changes: suppressed and quiet fires must survive restarts
            let status = ["denied", "provisional", "authorized"][Int.random(in: 0..<3, using: &rng)]
            lines.append("{\"device\": \"\(device)\", \"t\": \"\(at(second))\", \"settings\": {\"authorizationStatus\": \"\(status)\"}}")
        default: lines.append(fix(device, second, north: Double.random(in: -400...400, using: &rng)))
        }
    }
    return lines
}

/// Runs lines through a plain evaluator: output lines per input line, and the evaluator.
func referenceOutput(_ lines: [String], options: StreamOptions = .init()) -> (perLine: [[String]], evaluator: StreamEvaluator) {
    let evaluator = makeEvaluator(options: options)
    var perLine: [[String]] = []
    var events: [FiredEvent] = []
    for line in lines {
        var w = JSONWriter()
        if !line.allSatisfy({ $0 == " " }) {
            do throws(StreamLineError) {
                let parsed = try StreamLineParser.parse(line)
                events.removeAll()
                try evaluator.process(parsed, into: &events)
                for e in events { evaluator.write(e, format: .json, to: &w) }
            } catch {
                evaluator.recordMalformedLine()
            }
        }
        perLine.append(w.text.split(separator: "\n").map(String.init))
    }
    return (perLine, evaluator)
}

/// Feeds lines through a durable run the way `triggerkit run --state` does (commit when
/// a batch is due, not at the end: the caller decides). Returns the output lines per input
/// line.
func feedDurable(_ run: DurableRun, _ lines: ArraySlice<String>) throws -> [[String]] {
    var perLine: [[String]] = []
    var events: [FiredEvent] = []
    for line in lines {
        var w = JSONWriter()
        if line.allSatisfy({ $0 == " " }) {
            run.skipLine()
        } else {
            do throws(StreamLineError) {
                let parsed = try StreamLineParser.parse(line)
                events.removeAll()
                try run.process(parsed, into: &events)
                for e in events { run.evaluator.write(e, format: .json, to: &w) }
            } catch {
                run.evaluator.recordMalformedLine()
                run.skipLine()
            }
        }
        perLine.append(w.text.split(separator: "\n").map(String.init))
        if run.isBatchDue { try run.commit() }
    }
    return perLine
}
