// FoundationNext: what a user would write instead of `triggerkit next`, with plain Foundation.
// No TriggerKit: it is the yardstick of the whole-process comparison (tools/calendar-mix-bench.py).
//
//   FoundationNext --requests FILE [--count N] [--time-zone TZ] [--stats]
//
// Reads a requests file (NDJSON: blank lines and lines starting with '#' skipped; or a JSON
// array), and per calendar request prints `{"identifier":...,"next":[dates]}` as
// `triggerkit next` does: up to N successive dates of
// `Calendar.nextDate(after:matching:matchingPolicy: .nextTimePreservingSmallerComponents,
// repeatedTimePolicy: .first, direction: .forward)` in a Gregorian calendar whose zone is the
// trigger's (floating: --time-zone, default UTC), starting after addedAt, then after each
// previous date, stopping at nil or at a date not later than its reference. A non-repeating
// trigger has at most one date. weekdayOrdinal outside 1...5 gives an empty list (Foundation
// answers nil for negatives and never answers >= 6). Other trigger kinds print an empty list.
// --stats prints on stderr the time spent inside nextDate and in the whole run.
import Foundation

@MainActor func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FoundationNext: \(message)\n".utf8))
    exit(2)
}

// MARK: arguments

var requestsPath: String?
var count = 1
var floatingZoneName = "UTC"
var stats = false
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--requests":
        guard let v = args.popFirst() else { fail("--requests needs a value") }
        requestsPath = v
    case "--count":
        guard let v = args.popFirst().flatMap({ Int($0) }), v >= 0 else { fail("--count needs a number >= 0") }
        count = v
    case "--time-zone":
        guard let v = args.popFirst() else { fail("--time-zone needs a value") }
        floatingZoneName = v
    case "--stats": stats = true
    case "-h", "--help":
        print("usage: FoundationNext --requests FILE [--count N] [--time-zone TZ] [--stats]")
        exit(0)
    default: fail("unknown argument \(a)")
    }
}
guard let requestsPath else { fail("--requests FILE is required") }
guard let floatingZone = TimeZone(identifier: floatingZoneName) else { fail("unknown time zone \(floatingZoneName)") }

let runStart = ContinuousClock.now
let input: Data
if requestsPath == "-" {
    input = FileHandle.standardInput.readDataToEndOfFile()
} else {
    guard let d = FileManager.default.contents(atPath: requestsPath) else { fail("cannot read \(requestsPath)") }
    input = d
}

// MARK: requests

/// The JSON objects of the file, with their line number (NDJSON) or index (array).
@MainActor func requestObjects(_ data: Data) -> [(Int, Any)] {
    let firstByte = data.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
    if firstByte == UInt8(ascii: "[") {
        guard let array = try? JSONSerialization.jsonObject(with: data) as? [Any] else { fail("not a JSON array") }
        return Array(array.enumerated())
    }
    var out: [(Int, Any)] = []
    var lineNumber = 0
    for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
        lineNumber += 1
        let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") || trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            continue
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed)) else {
            FileHandle.standardError.write(Data("error: \(requestsPath):\(lineNumber): not JSON\n".utf8))
            continue
        }
        out.append((lineNumber, object))
    }
    return out
}

let isoPlain: ISO8601DateFormatter = {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f
}()
let isoFractional: ISO8601DateFormatter = {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return f
}()

@MainActor func parseDate(_ value: Any?) -> Date? {
    if let n = value as? NSNumber { return Date(timeIntervalSince1970: n.doubleValue) }
    guard let s = value as? String else { return nil }
    return isoPlain.date(from: s) ?? isoFractional.date(from: s)
}

@MainActor func integer(_ value: Any?) -> Int? {
    guard let n = value as? NSNumber else { return nil }
    let d = n.doubleValue
    guard d.rounded() == d, abs(d) < 1e15 else { return nil }
    return Int(d)
}

/// `dateMatching` as DateComponents (without the zone: the calendar carries it); nil when a
/// value is not an integer.
@MainActor func components(_ m: [String: Any]) -> DateComponents? {
    var c = DateComponents()
    for (key, value) in m {
        switch key {
        case "timeZone", "calendar": continue
        default: break
        }
        guard let v = integer(value) else { return nil }
        switch key {
        case "era": c.era = v
        case "year": c.year = v
        case "month": c.month = v
        case "day": c.day = v
        case "hour": c.hour = v
        case "minute": c.minute = v
        case "second": c.second = v
        case "nanosecond": c.nanosecond = v
        case "weekday": c.weekday = v
        case "weekdayOrdinal": c.weekdayOrdinal = v
        case "weekOfMonth": c.weekOfMonth = v
        case "weekOfYear": c.weekOfYear = v
        case "yearForWeekOfYear": c.yearForWeekOfYear = v
        case "dayOfYear": c.dayOfYear = v
        default: return nil
        }
    }
    return c
}

// One calendar per zone and calendar kind, made once, as a caller holding them would.
var calendars: [String: Calendar] = [:]
@MainActor func calendar(zone: TimeZone, iso: Bool) -> Calendar {
    let key = (iso ? "iso8601/" : "gregorian/") + zone.identifier
    if let c = calendars[key] { return c }
    var c = Calendar(identifier: iso ? .iso8601 : .gregorian)
    c.timeZone = zone
    calendars[key] = c
    return c
}

// MARK: output

var out = Data()
out.reserveCapacity(1 << 20)
@MainActor func flushIfLarge() {
    if out.count >= 1 << 20 {
        FileHandle.standardOutput.write(out)
        out.removeAll(keepingCapacity: true)
    }
}

@MainActor func appendJSONString(_ s: String) {
    var t = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": t += "\\\""
        case "\\": t += "\\\\"
        case "\n": t += "\\n"
        case "\r": t += "\\r"
        case "\t": t += "\\t"
        case _ where u.value < 0x20: t += String(format: "\\u%04x", u.value)
        default: t.unicodeScalars.append(u)
        }
    }
    t += "\""
    out.append(contentsOf: t.utf8)
}

/// The contract's form: UTC, `Z`, milliseconds only when non-zero.
@MainActor func appendDate(_ d: Date) {
    let ms = (d.timeIntervalSince1970 * 1000).rounded()
    let whole = ms.truncatingRemainder(dividingBy: 1000) == 0
    let rounded = Date(timeIntervalSince1970: ms / 1000)
    out.append(UInt8(ascii: "\""))
    out.append(contentsOf: (whole ? isoPlain : isoFractional).string(from: rounded).utf8)
    out.append(UInt8(ascii: "\""))
}

// MARK: main loop

var requestCount = 0, dateCount = 0, calls = 0
var nextDateTime = Duration.zero
for (position, object) in requestObjects(input) {
    guard let r = object as? [String: Any], let identifier = r["identifier"] as? String else {
        FileHandle.standardError.write(Data("error: \(requestsPath):\(position): no identifier\n".utf8))
        continue
    }
    requestCount += 1
    var dates: [Date] = []
    if let trigger = r["trigger"] as? [String: Any], trigger["type"] as? String == "calendar",
       let matching = trigger["dateMatching"] as? [String: Any], let comps = components(matching),
       let added = parseDate(r["addedAt"]) ?? Optional(Date()) {
        let zone = (matching["timeZone"] as? String).flatMap(TimeZone.init(identifier:)) ?? floatingZone
        let iso = (matching["calendar"] as? String) == "iso8601"
            || ((matching["calendar"] as? [String: Any])?["identifier"] as? String) == "iso8601"
        let cal = calendar(zone: zone, iso: iso)
        let repeats = trigger["repeats"] as? Bool ?? false
        let wanted = repeats ? count : min(count, 1)
        if let o = comps.weekdayOrdinal, !(1...5).contains(o) {
            // Foundation: nil for negatives, no answer for >= 6.
        } else {
            var ref = added
            while dates.count < wanted {
                calls += 1
                let next: Date?
                if stats {
                    let t0 = ContinuousClock.now
                    next = cal.nextDate(after: ref, matching: comps, matchingPolicy: .nextTimePreservingSmallerComponents,
                                        repeatedTimePolicy: .first, direction: .forward)
                    nextDateTime += ContinuousClock.now - t0
                } else {
                    next = cal.nextDate(after: ref, matching: comps, matchingPolicy: .nextTimePreservingSmallerComponents,
                                        repeatedTimePolicy: .first, direction: .forward)
                }
                guard let d = next, d > ref else { break }
                dates.append(d)
                ref = d
            }
        }
    }
    dateCount += dates.count
    out.append(contentsOf: "{\"identifier\":".utf8)
    appendJSONString(identifier)
    out.append(contentsOf: ",\"next\":[".utf8)
    for (k, d) in dates.enumerated() {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        appendDate(d)
    }
    out.append(contentsOf: "]}\n".utf8)
    flushIfLarge()
}
FileHandle.standardOutput.write(out)

if stats {
    func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
    let total = seconds(ContinuousClock.now - runStart)
    let inNext = seconds(nextDateTime)
    let perDate = dateCount > 0 ? inNext / Double(dateCount) * 1e6 : 0
    FileHandle.standardError.write(Data(String(
        format: "stats: requests %d, dates %d, nextDate calls %d, in nextDate %.3f s (%.2f us/date), whole run after start-up %.3f s\n",
        requestCount, dateCount, calls, inNext, perDate, total).utf8))
}
