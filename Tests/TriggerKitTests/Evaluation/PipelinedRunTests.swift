import Foundation
import Testing
@_spi(Engine) @_spi(StreamFastPath) @testable import TriggerKit

/// `run` reads and parses on a second thread by default: its output and its error lines must
/// be byte-identical to `--single-thread`, whatever the chunking (a file read in 1 MB chunks,
/// a pipe written in small pieces, a line longer than a chunk).
@Suite("run: the reader thread changes nothing")
struct PipelinedRunTests {
    static let requests = """
    {"identifier": "every-min", "content": {"title": "tick"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}
    {"identifier": "poly", "content": {"title": "p"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "poly", "geometry": {"type": "Polygon", "coordinates": [[[-74.004, 39.997], [-73.999, 39.997], [-73.999, 40.001], [-74.004, 40.001], [-74.004, 39.997]]]}}}}
    """

    /// Circles around (40, -74), then a stream of moving devices with clock lines, malformed
    /// lines, blank and CRLF lines, an add control line, one line of 2.5 MB and a last line
    /// without a newline. With `rules`, every region is a fence with rules (dwell, accuracy,
    /// crossings: their moves are decided on the reader thread) and there are no plain ones.
    static func files(_ dir: URL, rules: Bool = false) throws -> (requests: String, input: String) {
        var g = SeededGenerator(s: 31)
        var req = rules ? Self.requests.split(separator: "\n")[0] + "\n" : Self.requests + "\n"
        for i in 0..<60 {
            let lat = 40 + (g.unit() - 0.5) * 0.02, lon = -74 + (g.unit() - 0.5) * 0.025
            let rule = !rules ? "" : [#""dwell": {"inside": 20}, "#, #""dwell": {"outside": 30}, "crossings": true, "#,
                                      #""accuracy": {"maximum": 4}, "crossings": true, "#][i % 3]
            req += #"{"identifier": "c\#(i)", "content": {"title": "c"}, "trigger": {"type": "location", "repeats": true, \#(rule)"region": {"identifier": "r\#(i)", "center": {"latitude": \#(lat), "longitude": \#(lon)}, "radius": \#(30 + 600 * g.unit())}}}"# + "\n"
        }
        var pos = (0..<20).map { _ in (lat: 40 + (g.unit() - 0.5) * 0.02, lon: -74 + (g.unit() - 0.5) * 0.025) }
        var lines: [String] = []
        let start = 1_795_770_000.0
        for s in 0..<1_500 {
            let t = Date(timeIntervalSince1970: start + Double(s)).formatted(.iso8601)
            if s % 97 == 0 { lines.append(#"{"t": "\#(t)"}"#) }
            if s % 211 == 0 { lines.append(#"{"device": "d1", "t": "\#(t)", "lat": "north"}"#) }
            if s % 173 == 0 { lines.append("   ") }
            if s == 700 {
                lines.append(#"{"t": "\#(t)", "add": {"identifier": "late", "content": {"title": "l"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "late", "center": {"latitude": 40.0, "longitude": -74.0}, "radius": 900}}}}"#)
                lines.append(#"{"device": "d2", "t": "\#(t)", "lat": 40, "lon": -74, "note": ""# + String(repeating: "x", count: 2_500_000) + #""}"#)
            }
            for d in 0..<20 {
                pos[d].lat += (g.unit() - 0.5) * 0.0004
                pos[d].lon += (g.unit() - 0.5) * 0.0005
                let line = #"{"device": "d\#(d)", "t": "\#(t)", "lat": \#(pos[d].lat), "lon": \#(pos[d].lon), "acc": \#(3 + (s + d) % 3)}"#
                lines.append(s % 59 == 0 ? line + "\r" : line)
            }
        }
        let requests = dir.appendingPathComponent("requests.ndjson").path
        let input = dir.appendingPathComponent("stream.ndjson").path
        try req.write(toFile: requests, atomically: true, encoding: .utf8)
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        return (requests, input)
    }

    /// Whether two outputs are the same bytes. (Not `#expect(a == b)` on the `Data`: a failed
    /// one made Swift Testing diff the two 800 KB outputs, which ran for over 15 minutes.)
    static func same(_ a: Data, _ b: Data) -> Bool { a == b }

    /// Runs the binary with stdin from `input` (a file, or written into a pipe in pieces of
    /// 1 byte to 64 KB); stdout and stderr go to files.
    static func run(_ args: [String], input: String, pieces: Bool, in dir: URL) throws -> (out: Data, err: Data, status: Int32) {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let tag = UUID().uuidString
        let outPath = dir.appendingPathComponent("out-\(tag)"), errPath = dir.appendingPathComponent("err-\(tag)")
        FileManager.default.createFile(atPath: outPath.path, contents: nil)
        FileManager.default.createFile(atPath: errPath.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.standardOutput = try FileHandle(forWritingTo: outPath)
        p.standardError = try FileHandle(forWritingTo: errPath)
        if pieces {
            let pipe = Pipe()
            p.standardInput = pipe
            try p.run()
            let data = try Data(contentsOf: URL(fileURLWithPath: input))
            var g = SeededGenerator(s: 5)
            var at = 0
            while at < data.count {
                let n = min(data.count - at, 1 + Int(g.unit() * g.unit() * 65_536))
                pipe.fileHandleForWriting.write(data[at..<(at + n)])
                at += n
            }
            try pipe.fileHandleForWriting.close()
        } else {
            p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
            try p.run()
        }
        p.waitUntilExit()
        return (try Data(contentsOf: outPath), try Data(contentsOf: errPath), p.terminationStatus)
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func sameBytesAsOneThread(pieces: Bool, rules: Bool) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-pipelined-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (requests, input) = try Self.files(dir, rules: rules)
        let args = ["run", "--requests", requests, "--margin", "5"]
        let one = try Self.run(args + ["--single-thread"], input: input, pieces: false, in: dir)
        let two = try Self.run(args, input: input, pieces: pieces, in: dir)
        #expect(one.status == 0 && two.status == 0)
        // Enough happened for the comparison to mean something.
        let events = one.out.split(separator: 0x0A).count
        let errorLines = String(decoding: one.err, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("error: line") }.count
        #expect(events > 1_000, "events: \(events)")
        #expect(errorLines >= 8, "error lines: \(errorLines)")
        #expect(one.out.contains(Data(#""identifier":"late""#.utf8)), "the added request fired")
        #expect(Self.same(two.out, one.out), "stdout differs (\(two.out.count) vs \(one.out.count) bytes)")
        #expect(two.err == one.err, "stderr differs: \(String(decoding: two.err, as: UTF8.self).suffix(300)) vs \(String(decoding: one.err, as: UTF8.self).suffix(300))")
    }

    /// `--max-devices`: past the bound a fix naming a new device is an error line and changes
    /// nothing, on either thread: the output is the unbounded run's on the input without those
    /// devices' lines (each device's state was kept without end before).
    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func aDeviceBoundRefusesNewDevicesAsIfTheirLinesWereNotThere(singleThread: Bool, rules: Bool) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-max-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (requests, input) = try Self.files(dir, rules: rules)
        // d0...d19 first move in that order: a bound of 12 keeps d0...d11.
        let refused = (12..<20).map { Data(#"{"device": "d\#($0)","#.utf8) }
        let lines = try Data(contentsOf: URL(fileURLWithPath: input)).split(separator: 0x0A, omittingEmptySubsequences: false)
        let kept = lines.filter { line in !refused.contains { line.starts(with: $0) } }
        let without = dir.appendingPathComponent("without.ndjson").path
        try Data(kept.joined(separator: [0x0A])).write(to: URL(fileURLWithPath: without))
        let args = ["run", "--requests", requests, "--margin", "5"] + (singleThread ? ["--single-thread"] : [])
        let bounded = try Self.run(args + ["--max-devices", "12"], input: input, pieces: !singleThread, in: dir)
        let reference = try Self.run(args, input: without, pieces: false, in: dir)
        #expect(bounded.status == 0 && reference.status == 0)
        #expect(reference.out.split(separator: 0x0A).count > 500)
        #expect(Self.same(bounded.out, reference.out), "stdout differs (\(bounded.out.count) vs \(reference.out.count) bytes)")
        let refusals = String(decoding: bounded.err, as: UTF8.self).split(separator: "\n")
            .filter { $0.contains("is new and 12 devices are kept, the limit (--max-devices)") }
        #expect(refusals.count == lines.count - kept.count, "\(refusals.count) refusals for \(lines.count - kept.count) lines")
    }

    /// A device first named by a time fire (a device-scoped interval) counts towards
    /// `--max-devices`, and a resumed run keeps it as the uninterrupted run does: it was not
    /// saved, so a resumed run took the device the uninterrupted one refused (found by a helper).
    @Test(arguments: [false, true])
    func aResumedRunKeepsTheDevicesATimeFireNamed(singleThread: Bool) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-fired-device-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let requests = dir.appendingPathComponent("requests.ndjson").path
        try """
        {"identifier": "tea", "device": "r", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 60}}
        {"identifier": "office", "content": {"title": "o"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "office", "center": {"latitude": 48.8585, "longitude": 2.2946}, "radius": 200}}}

        """.write(toFile: requests, atomically: true, encoding: .utf8)
        let lines = [#"{"t": "2026-11-23T08:00:00Z"}"#, #"{"t": "2026-11-23T08:02:00Z"}"#,
                     #"{"device": "b", "t": "2026-11-23T08:03:00Z", "lat": 48.8585, "lon": 2.2946, "acc": 8}"#,
                     #"{"device": "b", "t": "2026-11-23T08:04:00Z", "lat": 48.0, "lon": 2.2946, "acc": 8}"#]
        let input = dir.appendingPathComponent("in.ndjson").path, part = dir.appendingPathComponent("part.ndjson").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        try (lines.prefix(2).joined(separator: "\n") + "\n").write(toFile: part, atomically: true, encoding: .utf8)
        let state = dir.appendingPathComponent("state.db").path
        let args = ["run", "--requests", requests, "--max-devices", "1", "--initial", "fire"] + (singleThread ? ["--single-thread"] : [])
        let whole = try Self.run(args, input: input, pieces: false, in: dir)
        let first = try Self.run(args + ["--state", state], input: part, pieces: false, in: dir)
        let rest = try Self.run(args + ["--state", state], input: input, pieces: false, in: dir)
        #expect(whole.status == 0 && first.status == 0 && rest.status == 0)
        #expect(String(decoding: whole.out, as: UTF8.self).contains(#""identifier":"tea""#))
        #expect(String(decoding: whole.err, as: UTF8.self).contains("errors 2"), "\(String(decoding: whole.err, as: UTF8.self))")
        #expect(Self.same(first.out + rest.out, whole.out), "\(String(decoding: rest.out, as: UTF8.self))")
        #expect(String(decoding: rest.err, as: UTF8.self).components(separatedBy: "1 device is kept, the limit (--max-devices)").count == 3,
                "\(String(decoding: rest.err, as: UTF8.self))")
    }

    /// With `--state` the reader thread (and its geometry decided ahead) is used too: a run
    /// stopped after part of the input and resumed on the whole of it writes, and logs as
    /// delivered, exactly what one thread writes without a stop.
    @Test(arguments: [(1, false), (4_321, false), (9_000, false), (4_321, true), (13_001, true)])
    func withStateAResumedRunMatchesOneThread(stop: Int, rules: Bool) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-pipelined-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (requests, input) = try Self.files(dir, rules: rules)
        // Split as bytes: some lines end in CR, and a String would take CR LF as one character.
        let lines = try Data(contentsOf: URL(fileURLWithPath: input)).split(separator: 0x0A, omittingEmptySubsequences: false)
        let part = dir.appendingPathComponent("part.ndjson").path
        try Data(lines[..<stop].joined(separator: [0x0A]) + [0x0A]).write(to: URL(fileURLWithPath: part))
        let args = ["run", "--requests", requests, "--margin", "5"]
        let oneState = dir.appendingPathComponent("one.db").path, twoState = dir.appendingPathComponent("two.db").path
        let one = try Self.run(args + ["--single-thread", "--state", oneState], input: input, pieces: false, in: dir)
        let first = try Self.run(args + ["--state", twoState], input: part, pieces: false, in: dir)
        let rest = try Self.run(args + ["--state", twoState], input: input, pieces: true, in: dir)
        #expect(one.status == 0 && first.status == 0 && rest.status == 0, "\(String(decoding: rest.err, as: UTF8.self).suffix(300))")
        #expect(String(decoding: rest.err, as: UTF8.self).contains("skipping \(stop) line"))
        #expect(one.out.split(separator: 0x0A).count > 1_000)
        #expect(Self.same(first.out + rest.out, one.out), "stdout differs (\((first.out + rest.out).count) vs \(one.out.count) bytes)")
        let deliveredOne = try Self.run(["delivered", "--state", oneState], input: part, pieces: false, in: dir)
        let deliveredTwo = try Self.run(["delivered", "--state", twoState], input: part, pieces: false, in: dir)
        #expect(Self.same(deliveredTwo.out, deliveredOne.out) && Self.same(deliveredOne.out, one.out))
    }

    /// A producer that stopped mid-line: the input ends inside a fix line. That line is
    /// reported and not recorded, so the run resumed with the whole input (the line now
    /// complete) writes what one uninterrupted run writes; recorded, the state was refused
    /// ("its first N lines differ"). Run on the cut input twice first: nothing changes.
    @Test(arguments: [false, true])
    func aRunCutMidLineResumesWithTheWholeLine(singleThread: Bool) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-cut-line-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (requests, input) = try Self.files(dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        let stop = 9_000
        // Everything before line `stop + 1`, and the first 20 bytes of it.
        let prefix = lines[..<stop].reduce(0) { $0 + $1.count + 1 } + 20
        let part = dir.appendingPathComponent("part.ndjson").path
        try Data(bytes.prefix(prefix)).write(to: URL(fileURLWithPath: part))
        let args = ["run", "--requests", requests, "--margin", "5"] + (singleThread ? ["--single-thread"] : [])
        let state = dir.appendingPathComponent("cut.db").path
        // (With a state of its own: add lines are not applied with --state.)
        let one = try Self.run(args + ["--state", dir.appendingPathComponent("one.db").path], input: input, pieces: false, in: dir)
        let first = try Self.run(args + ["--state", state], input: part, pieces: false, in: dir)
        let again = try Self.run(args + ["--state", state], input: part, pieces: false, in: dir)
        let rest = try Self.run(args + ["--state", state], input: input, pieces: false, in: dir)
        #expect(one.status == 0 && first.status == 0 && again.status == 0 && rest.status == 0,
                "\(String(decoding: rest.err, as: UTF8.self).suffix(300))")
        #expect(String(decoding: first.err, as: UTF8.self).contains("note: line \(stop + 1): the input ended inside this line"))
        #expect(again.out.isEmpty)
        #expect(String(decoding: rest.err, as: UTF8.self).contains("skipping \(stop) lines"))
        #expect(Self.same(first.out + rest.out, one.out), "stdout differs (\((first.out + rest.out).count) vs \(one.out.count) bytes)")
        let delivered = try Self.run(["delivered", "--state", state], input: part, pieces: false, in: dir)
        #expect(Self.same(delivered.out, one.out))
    }

    /// The same when the input ends inside an indented line's leading blanks (the cut line
    /// reads as blank), and when it ends after a complete line without a newline (recorded:
    /// a resume with nothing more writes nothing).
    @Test func aRunCutInsideBlanksOrAfterACompleteLineResumes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-cut-blank-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (requests, input) = try Self.files(dir)
        let lines = try Data(contentsOf: URL(fileURLWithPath: input)).split(separator: 0x0A, omittingEmptySubsequences: false)
        // Line 5,001 indented by three blanks; the whole input and a part cut after two of them.
        var whole = Data(lines[..<5_000].joined(separator: [0x0A]) + [0x0A])
        let part = dir.appendingPathComponent("part.ndjson").path, indented = dir.appendingPathComponent("indented.ndjson").path
        try (whole + Data("  ".utf8)).write(to: URL(fileURLWithPath: part))
        whole += Data("   ".utf8) + Data(lines[5_000...].joined(separator: [0x0A]))
        try whole.write(to: URL(fileURLWithPath: indented))
        let args = ["run", "--requests", requests, "--margin", "5"]
        let one = try Self.run(args + ["--state", dir.appendingPathComponent("one.db").path], input: indented, pieces: false, in: dir)
        let state = dir.appendingPathComponent("cut.db").path
        let first = try Self.run(args + ["--state", state], input: part, pieces: false, in: dir)
        let rest = try Self.run(args + ["--state", state], input: indented, pieces: false, in: dir)
        #expect(one.status == 0 && first.status == 0 && rest.status == 0, "\(String(decoding: rest.err, as: UTF8.self).suffix(300))")
        #expect(String(decoding: rest.err, as: UTF8.self).contains("skipping 5000 lines"))
        #expect(Self.same(first.out + rest.out, one.out), "stdout differs (\((first.out + rest.out).count) vs \(one.out.count) bytes)")
        // The whole input ends without a newline after a complete line: recorded; again, nothing.
        #expect(whole.last != 0x0A)
        let again = try Self.run(args + ["--state", state], input: indented, pieces: false, in: dir)
        #expect(again.status == 0 && again.out.isEmpty)
        #expect(!String(decoding: again.err, as: UTF8.self).contains("note:"))
    }

    /// A live pipe: each line's events are written while the input stays open (the reader
    /// reads ahead only when input is ready, so a pending chunk never waits on an idle pipe).
    @Test func eventsWhileThePipeStaysOpen() throws {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let requests = dir.appendingPathComponent("requests.ndjson").path
        try #"{"identifier": "home", "content": {"title": "h"}, "trigger": {"type": "location", "repeats": true, "region": {"identifier": "home", "center": {"latitude": 40, "longitude": -74}, "radius": 300}}}"#
            .write(toFile: requests, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", "--requests", requests, "--initial", "fire"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let seen = Received()
        output.fileHandleForReading.readabilityHandler = { h in seen.append(h.availableData) }
        // Inside, then outside, then inside again: one event each, every one awaited before
        // the next line is written.
        for (k, (lat, event)) in [(40.0, "enter"), (40.02, "exit"), (40.0, "enter")].enumerated() {
            let line = #"{"device": "d1", "t": "2026-11-21T09:00:0\#(k)Z", "lat": \#(lat), "lon": -74}"# + "\n"
            input.fileHandleForWriting.write(Data(line.utf8))
            let deadline = Date().addingTimeInterval(20)
            while seen.lines.count < k + 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            let lines = seen.lines
            try #require(lines.count == k + 1, "event \(k + 1) not written while the input is open: \(lines)")
            #expect(lines[k].contains(#""event":"\#(event)""#), "\(lines[k])")
        }
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(p.terminationStatus == 0)
    }
}

/// Bytes read from a pipe by its handler thread, as complete lines.
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()
    func append(_ d: Data) { lock.lock(); bytes.append(d); lock.unlock() }
    var lines: [String] {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// The evaluator's device bound on each kind of line that names a device, by both of its
/// readers (the parsed line and the line's bytes): refused before anything changes, the
/// clock included; a device it keeps, a clock line and a skipped fix (negative accuracy, which
/// keeps no state) still go through.
@Suite("run: the device bound on every line")
struct DeviceBoundLineTests {
    static let t0 = "2026-11-21T09:00:00Z"

    static func evaluator() -> StreamEvaluator {
        var options = StreamOptions()
        options.maxDevices = 2
        return makeEvaluator(#"{"identifier": "tick", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#,
                             options: options)
    }

    @Test(arguments: [false, true])
    func newDevicesAreRefusedPastTheBound(bytes: Bool) throws {
        let e = Self.evaluator()
        var events: [FiredEvent] = []
        func feed(_ line: String) throws(StreamLineError) {
            if bytes {
                let b = Array(line.utf8)
                try b.withUnsafeBufferPointer { (b) throws(StreamLineError) in try e.process(lineBytes: b, into: &events) }
            } else {
                try e.process(StreamLineParser.parse(line), into: &events)
            }
        }
        try feed(#"{"device": "a", "t": "2026-11-21T09:00:00Z", "lat": 40, "lon": -74}"#)
        try feed(#"{"device": "b", "t": "2026-11-21T09:00:10Z", "settings": {"authorizationStatus": "denied"}}"#)
        for line in [#"{"device": "c", "t": "2026-11-21T09:05:00Z", "lat": 40, "lon": -74}"#,
                     #"{"device": "c", "t": "2026-11-21T09:05:00Z", "settings": {"authorizationStatus": "denied"}}"#] {
            let error = #expect(throws: StreamLineError.self) { try feed(line) }
            #expect(error?.reason.contains("is new and 2 devices are kept, the limit (--max-devices)") == true, "\(line)")
        }
        // Nothing applied: the clock did not move to 09:05 (the minute ticks stay due).
        #expect(events.isEmpty)
        #expect(e.deviceNames == ["a", "b"])
        try feed(#"{"device": "c", "t": "2026-11-21T09:01:00Z", "lat": 40, "lon": -74, "acc": -1}"#)
        try feed(#"{"device": "b", "t": "2026-11-21T09:02:00Z", "lat": 40, "lon": -74}"#)
        try feed(#"{"t": "2026-11-21T09:03:00Z"}"#)
        #expect(events.count == 3)
        #expect(e.deviceNames == ["a", "b"])
    }
}
