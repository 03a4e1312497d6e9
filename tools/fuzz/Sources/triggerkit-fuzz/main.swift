import Foundation

// triggerkit-fuzz: random and extreme input at the TriggerKit library's entry points, for a
// bounded budget. A supervisor runs the cases in worker processes (this executable with
// --worker) so that a trap kills only a worker: the supervisor records the case it was on,
// and a worker silent for --watchdog seconds is killed and its case recorded as a hang.
// Exit status 0 only with 0 traps, 0 hangs and 0 untyped errors.
//
//   triggerkit-fuzz [--seed S] [--cases N] [--seconds T] [--watchdog W] [--geo]
//
// --geo: every case is a geometry stream (regions and fixes close together, degenerate and
// extreme shapes, fence rules) instead of the library-wide mix.

func option(_ name: String, _ fallback: String) -> String {
    let a = CommandLine.arguments
    if let i = a.firstIndex(of: name), i + 1 < a.count { return a[i + 1] }
    return fallback
}

let seed = UInt64(option("--seed", "1")) ?? 1
let geo = CommandLine.arguments.contains("--geo")
if CommandLine.arguments.contains("--worker") {
    let from = Int(option("--from", "0")) ?? 0
    let count = Int(option("--count", "1000")) ?? 1000
    var worker = Worker(seed: seed)
    worker.geo = geo
    for i in from..<(from + count) {
        FileHandle.standardError.write(Data("case \(i)\n".utf8))
        await worker.run(case: i)
    }
    let json = try JSONSerialization.data(withJSONObject: worker.counts, options: [.sortedKeys])
    FileHandle.standardOutput.write(json + Data("\n".utf8))
    exit(0)
}

let cases = Int(option("--cases", "200000")) ?? 200_000
let seconds = Double(option("--seconds", "60")) ?? 60
let watchdog = Double(option("--watchdog", "30")) ?? 30
/// Cases slower than this are listed (bounded, but worth an issue); not failures.
let slowLimit = Double(option("--slow", "2")) ?? 2
var slow: [(index: Int, seconds: Double)] = []
let batch = 2_000
let deadline = Date().addingTimeInterval(seconds)
var totals: [String: Int] = [:]
var failures: [(index: Int, kind: String, what: String)] = []
var next = 0
var ran = 0

/// Runs one worker over [from, from + count); returns the index after the last finished case.
@MainActor func runWorker(from: Int, count: Int) -> Int {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    p.arguments = ["--worker", "--seed", "\(seed)", "--from", "\(from)", "--count", "\(count)"] + (geo ? ["--geo"] : [])
    let progress = Pipe(), out = Pipe()
    p.standardError = progress
    p.standardOutput = out
    do { try p.run() } catch { fatalError("cannot start a worker: \(error)") }
    let state = LockedState()
    let reader = Thread {
        let h = progress.fileHandleForReading
        var buffer = Data()
        while true {
            let d = h.availableData
            if d.isEmpty { break }
            buffer += d
            while let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer = Data(buffer[(nl + 1)...])
                if line.hasPrefix("case "), let i = Int(line.dropFirst(5)) { state.set(i) } else { state.note(line) }
            }
        }
    }
    reader.start()
    var hung = false
    while p.isRunning {
        usleep(50_000)
        if Date().timeIntervalSince(state.lastProgress) > watchdog { hung = true; p.terminate(); kill(p.processIdentifier, SIGKILL) }
    }
    p.waitUntilExit()
    reader.cancel()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    slow += state.slowCases.map { (index: $0.0, seconds: $0.1) }
    let current = state.current ?? from
    if hung {
        failures.append((current, Worker.kind(of: current, geo: geo), "hang (no progress for \(watchdog) s)"))
        return current + 1
    }
    if p.terminationReason == .uncaughtSignal || p.terminationStatus != 0 {
        failures.append((current, Worker.kind(of: current, geo: geo), "trap: signal/status \(p.terminationStatus) \(state.lastNote.prefix(160))"))
        return current + 1
    }
    if let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Int] {
        for (k, v) in obj { totals[k, default: 0] += v }
    }
    return from + count
}

final class LockedState: @unchecked Sendable {
    private let lock = NSLock()
    private var _current: Int?
    private var _last = Date()
    private var _note = ""
    var current: Int? { lock.withLock { _current } }
    var lastProgress: Date { lock.withLock { _last } }
    var lastNote: String { lock.withLock { _note } }
    private(set) var slowCases: [(Int, Double)] = []
    func set(_ i: Int) {
        lock.withLock {
            let now = Date()
            if let c = _current, now.timeIntervalSince(_last) > slowLimit { slowCases.append((c, now.timeIntervalSince(_last))) }
            _current = i
            _last = now
        }
    }
    func note(_ s: String) { lock.withLock { if s.contains("Fatal") || s.contains("failure") || s.contains("at /") { _note += s + " " } } }
}

while next < cases && Date() < deadline {
    let count = min(batch, cases - next)
    let after = runWorker(from: next, count: count)
    ran += after - next
    next = after
}

let untyped = totals.filter { $0.key.hasPrefix("untyped") }.values.reduce(0, +)
let traps = failures.filter { $0.what.hasPrefix("trap") }.count
let hangs = failures.filter { $0.what.hasPrefix("hang") }.count
print("triggerkit-fuzz seed \(seed)\(geo ? " (geometry streams)" : ""): \(ran) cases in \(Int(seconds - max(0, deadline.timeIntervalSinceNow))) s")
print("| outcome | count |")
print("|---|---:|")
for (k, v) in totals.sorted(by: { $0.key < $1.key }) { print("| \(k) | \(v) |") }
print("| traps | \(traps) |")
print("| hangs | \(hangs) |")
print("| slow cases (> \(slowLimit) s, finished) | \(slow.count) |")
for c in slow.prefix(10) { print("slow case \(c.index) (\(Worker.kind(of: c.index, geo: geo))): \(String(format: "%.1f", c.seconds)) s") }
for f in failures { print("FAIL case \(f.index) (\(f.kind)): \(f.what)   reproduce: --seed \(seed)\(geo ? " --geo" : "") --worker --from \(f.index) --count 1") }
exit(traps == 0 && hangs == 0 && untyped == 0 ? 0 : 1)
