import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
import BenchSupport

// The `run` pipeline in-process, on files made by tools/gen-geo.py (median of 3 passes):
//   StreamBench parse FIXES             reader + StreamLineParser only (ns per line)
//   StreamBench read FIXES              the same through StreamLineParser.Reader (keeps the
//                                       previous line's day number; still a String per fix)
//   StreamBench pipeline REQUESTS FIXES reader + parser + StreamEvaluator + JSON writer to /dev/null
//   StreamBench evaluate REQUESTS FIXES the same without writing events
//   StreamBench memory REQUESTS FIXES   resident memory after loading, building, and running (plus peak)
//   StreamBench query REQUESTS FIXES    fixes parsed up front into arrays; RegionIndex.query only
// Output: one line `key=value ...` per mode, read by tools/bench.py.

let args = CommandLine.arguments
guard args.count >= 3 else {
    print("usage: StreamBench parse FIXES | pipeline REQUESTS FIXES | query REQUESTS FIXES")
    exit(2)
}
let passes = 3
var sink = 0

func loadRequests(_ path: String) -> [NotificationRequest] {
    do { return try RequestsFile.load(path: path).requests } catch { fatalError("\(error)") }
}

switch args[1] {
case "parse", "read":
    var times: [Double] = []
    var lines = 0
    let stateful = args[1] == "read"
    for _ in 0..<passes {
        var reader = StreamLineParser.Reader()
        let t0 = nowNanos()
        lines = ChunkedLines.forEach(path: args[2]) { b in
            let l = stateful ? try? reader.parse(b) : try? StreamLineParser.parse(b)
            if let l { sink &+= Int(truncatingIfNeeded: l.time) }
        }
        times.append(Double(nowNanos() - t0) / Double(lines))
    }
    print("mode=\(args[1]) lines=\(lines) ns_per_line=\(f(median(times), 1)) passes=\(times.map { f($0, 1) }.joined(separator: ","))")

case "pipeline" where args.count >= 4, "evaluate" where args.count >= 4:
    let writes = args[1] == "pipeline"
    let requests = loadRequests(args[2])
    var times: [Double] = [], setups: [Double] = []
    var lines = 0, fires = 0
    let devnull = open("/dev/null", O_WRONLY)
    for _ in 0..<passes {
        let s0 = nowNanos()
        let evaluator = StreamEvaluator(requests: requests, options: StreamOptions())
        setups.append(Double(nowNanos() - s0) / 1e6)
        var events: [FiredEvent] = []
        var w = JSONWriter()
        let t0 = nowNanos()
        lines = ChunkedLines.forEach(path: args[3]) { b in
            // As `triggerkit run` does: parse and evaluate in one step, straight from the bytes.
            events.removeAll(keepingCapacity: true)
            do throws(StreamLineError) { try evaluator.process(lineBytes: b, into: &events) } catch { evaluator.recordMalformedLine(); return }
            if writes { for e in events { evaluator.write(e, format: .json, to: &w) } } else { sink &+= events.count }
            if w.bytes.count > 1 << 16 {
                _ = w.bytes.withUnsafeBytes { write(devnull, $0.baseAddress, $0.count) }
                w.bytes.removeAll(keepingCapacity: true)
            }
        }
        _ = w.bytes.withUnsafeBytes { write(devnull, $0.baseAddress, $0.count) }
        times.append(Double(nowNanos() - t0) / Double(lines))
        fires = evaluator.stats.fires
    }
    print("mode=\(args[1]) lines=\(lines) fires=\(fires) ns_per_line=\(f(median(times), 1)) setup_ms=\(f(median(setups), 1)) passes=\(times.map { f($0, 1) }.joined(separator: ","))")

case "query" where args.count >= 4:
    let regions = loadRequests(args[2]).compactMap { r -> Region? in
        if case .location(let t) = r.trigger { return t.region } else { return nil }
    }
    var lat: [Double] = [], lon: [Double] = []
    _ = ChunkedLines.forEach(path: args[3]) { b in
        if case .fix(let x)? = try? StreamLineParser.parse(b) { lat.append(x.latitude); lon.append(x.longitude) }
    }
    let b0 = nowNanos()
    let index = RegionIndex(regions: regions, maximumMargin: 0)
    let buildMs = Double(nowNanos() - b0) / 1e6
    var hits: [RegionHit] = []
    hits.reserveCapacity(64)
    var times: [Double] = []
    var total = 0
    for _ in 0..<passes {
        total = 0
        let t0 = nowNanos()
        for i in lat.indices {
            index.query(latitude: lat[i], longitude: lon[i], margin: 0, into: &hits)
            for h in hits where h.contains { total &+= 1 }
        }
        times.append(Double(nowNanos() - t0) / Double(lat.count))
    }
    print("mode=query regions=\(regions.count) fixes=\(lat.count) hits=\(total) ns_per_fix=\(f(median(times), 1)) build_ms=\(f(buildMs, 1)) passes=\(times.map { f($0, 1) }.joined(separator: ","))")

case "memory" where args.count >= 4:
    // Resident memory at each stage of a run, then the peak (VmHWM) of the whole process.
    let base = residentBytes()
    var requests: [NotificationRequest]? = loadRequests(args[2])
    let loaded = residentBytes()
    let evaluator = StreamEvaluator(requests: requests ?? [], options: StreamOptions())
    let built = residentBytes()
    requests = nil
    var events: [FiredEvent] = []
    var devices = Set<String>()
    let lines = ChunkedLines.forEach(path: args[3]) { b in
        guard let l = try? StreamLineParser.parse(b) else { return }
        if case .fix(let x) = l, devices.count < 20_000 { devices.insert(x.device) }
        events.removeAll(keepingCapacity: true)
        try? evaluator.process(l, into: &events)  // a refused line (clock jump) changes nothing
    }
    let ran = residentBytes()
    print("mode=memory lines=\(lines) devices=\(devices.count) base_mb=\(base / 1_000_000) requests_mb=\((loaded - base) / 1_000_000) "
          + "evaluator_mb=\((built - loaded) / 1_000_000) after_fixes_mb=\(ran / 1_000_000) stream_growth_mb=\((ran - built) / 1_000_000) "
          + "rss_mb=\(ran / 1_000_000) peak_mb=\(peakResidentBytes() / 1_000_000) fires=\(evaluator.stats.fires)")

default:
    print("unknown mode \(args[1])")
    exit(2)
}
if sink == 42 { print("") }
