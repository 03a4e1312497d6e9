import Foundation
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// Runs a stream through the library the way `triggerkit run` does and returns the output
/// lines, so tests read like the contract's examples.
struct StreamHarness {
    let evaluator: StreamEvaluator
    var errors: [String] = []

    init(requests: String, options: StreamOptions = .init()) {
        let set = RequestsFile.parse(requests, file: "test", options: ValidationOptions(now: options.now, deferTimeChecks: options.now == nil))
        precondition(set.errorCount == 0, "test requests must be valid: \(set.diagnostics)")
        evaluator = StreamEvaluator(requests: set.requests, options: options)
    }

    /// Feeds NDJSON lines; returns the output lines (`format` json or ids).
    mutating func feed(_ lines: [String], format: EventFormat = .json) -> [String] {
        var w = JSONWriter()
        var events: [FiredEvent] = []
        for (n, line) in lines.enumerated() {
            do throws(StreamLineError) {
                let parsed = try StreamLineParser.parse(line)
                events.removeAll()
                try evaluator.process(parsed, into: &events)
                for e in events { evaluator.write(e, format: format, to: &w) }
            } catch {
                evaluator.recordMalformedLine()
                errors.append("line \(n + 1): \(error.reason)")
            }
        }
        return w.text.split(separator: "\n").map(String.init)
    }

    /// Output reduced to "identifier event device date" for readable expectations.
    mutating func feedBrief(_ lines: [String]) -> [String] {
        feed(lines).map { line in
            guard case .object(let o)? = try? JSONValue.parse(line) else { return line }
            let parts = [o["identifier"], o["event"] ?? o["trigger"], o["device"], o["date"]].compactMap { $0?.stringValue }
            return parts.joined(separator: " ")
        }
    }
}

/// Fix lines around a circle centred at (40, -74): `metresNorth` away from the centre.
func fix(_ device: String, _ second: Int, north metres: Double, acc: Double? = nil) -> String {
    // One degree of latitude at 40 N is 111,034 m on WGS84 (meridional arc); test points stay
    // at least 5 m from every boundary, far beyond the error of this conversion.
    let lat = 40.0 + metres / 111_034.0
    let t = Timestamp.string(millis: 1_795_770_000_000 + Int64(second) * 1000)
    var s = "{\"device\": \"\(device)\", \"t\": \"\(t)\", \"lat\": \(lat), \"lon\": -74.0"
    if let acc { s += ", \"acc\": \(acc)" }
    return s + "}"
}

/// A location request around (40, -74); `rules` are JSON members added to its trigger (fence
/// rules such as `"dwell": {"inside": 300}`).
func circleRequest(_ id: String, radius: Double = 100, entry: Bool = true, exit: Bool = true, repeats: Bool = true,
                   device: String? = nil, addedAt: String? = nil, expiresAt: String? = nil, rules: String? = nil) -> String {
    var s = "{\"identifier\": \"\(id)\", \"content\": {\"title\": \"\(id)\"}, "
    if let device { s += "\"device\": \"\(device)\", " }
    if let addedAt { s += "\"addedAt\": \"\(addedAt)\", " }
    if let expiresAt { s += "\"expiresAt\": \"\(expiresAt)\", " }
    s += "\"trigger\": {\"type\": \"location\", \"repeats\": \(repeats), " + (rules.map { $0 + ", " } ?? "")
    s += "\"region\": {\"identifier\": \"r-\(id)\", "
    s += "\"center\": {\"latitude\": 40.0, \"longitude\": -74.0}, \"radius\": \(radius), \"notifyOnEntry\": \(entry), \"notifyOnExit\": \(exit)}}}"
    return s
}

/// Date string of second `s` of the test stream.
func at(_ s: Int) -> String { Timestamp.string(millis: 1_795_770_000_000 + Int64(s) * 1000) }

/// Lines evaluated as `run`'s main thread evaluates them after its reading thread: scanned,
/// with a lookahead's answer when there is one (its hits, and the moves of fences with
/// rules), the events written as JSON and each refused line recorded as `run` reports it.
struct LineEvaluation {
    let evaluator: StreamEvaluator
    var writer = JSONWriter()
    var errors: [String] = []
    private var events: [FiredEvent] = []
    private var scanner = LineScanner()

    init(_ evaluator: StreamEvaluator) { self.evaluator = evaluator }

    /// Line `k` (0-based) of the stream.
    mutating func evaluate(line k: Int, _ b: UnsafeBufferPointer<UInt8>, geometry g: FixGeometry?, hits: [RegionHit],
                           moves: [FenceMove] = []) {
        events.removeAll()
        do throws(StreamLineError) {
            let scan = scanner.scan(b)
            if let g {
                try hits.withUnsafeBufferPointer { h throws(StreamLineError) in
                    try moves.withUnsafeBufferPointer { m throws(StreamLineError) in
                        try evaluator.process(lineBytes: b, scanned: scan, geometry: g, hits: h, moves: m, into: &events)
                    }
                }
            } else {
                try evaluator.process(lineBytes: b, scanned: scan, into: &events)
            }
            for e in events { evaluator.write(e, format: .json, to: &writer) }
        } catch {
            evaluator.recordMalformedLine()
            errors.append("line \(k + 1): \(error.reason)")
        }
    }
}
