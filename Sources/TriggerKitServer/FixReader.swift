import Foundation
@_spi(Engine) import TriggerKit

/// Reads one line of a fix batch with the engine's stream-line reader (the same as
/// `triggerkit run`'s input): `{"device": "d1", "t": "2026-11-21T09:00:00Z", "lat": 40.7,
/// "lon": -73.9, "acc": 8.5}`; a line with `t` only moves a stream-mode clock.
enum FixReader {
    enum Line: Sendable {
        case fix(LocationFix)
        case clock(Date)
    }

    static func parse(_ line: ArraySlice<UInt8>) throws(APIError) -> Line {
        let parsed: Result<StreamLine, StreamLineError> = line.withUnsafeBufferPointer { b in
            do throws(StreamLineError) {
                return .success(try StreamLineParser.parse(b))
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case .failure(let e): throw APIError(.badRequest, "invalidLine", e.description)
        case .success(.fix(let f)):
            return .fix(LocationFix(device: f.device, date: Timestamp.date(millis: f.t), latitude: f.latitude,
                                    longitude: f.longitude, horizontalAccuracy: f.accuracy))
        case .success(.clock(let t)): return .clock(Timestamp.date(millis: t))
        case .success(.settings):
            throw APIError(.badRequest, "invalidLine", "settings lines go to PUT /v1/devices/{device}/settings")
        case .success(.control):
            throw APIError(.badRequest, "invalidLine", "control lines go to the requests, categories and responses routes")
        }
    }
}

/// The body of `POST /v1/fixes` read: the lines that parse, as inputs in order of `t`
/// (stable: equal times keep their order) with their line numbers, and the lines refused as
/// written: the first ``listedPerBatch`` kept (by line), the others only counted.
///
/// Memory: the inputs, plus 16 bytes per line parsed for its order, plus at most
/// ``listedPerBatch`` errors. (Every refused line was kept as a JSON object and every line as
/// a slice before the answer was cut to 1,000: an 8 MiB body of bad lines, the default
/// `maxBodyBytes`, peaked at 2 GB; a helper's find.)
struct FixBatch {
    /// A line refused, as the answer lists it.
    struct Refusal {
        var line: Int
        var code: String
        var message: String

        var json: JSONValue {
            .object(["line": .number(Double(line)), "code": .string(code), "message": .string(message)])
        }
    }

    var inputs: [TenantInput] = []
    /// The 1-based line number of each input.
    var lines: [Int] = []
    /// The first ``listedPerBatch`` lines refused as written, by line.
    var errors: [Refusal] = []
    /// How many lines were refused as written.
    var errorCount = 0

    /// Read on `thread`, the tenant's (checked in debug builds: a batch of 8 MiB takes a
    /// while, which must not be the cooperative pool's).
    init(_ body: [UInt8], on thread: TenantThread) {
        assert(thread.isCurrent, "a fix batch read off its tenant's thread")
        var lineNo = 0
        var fixes: [(t: Date, index: Int, input: TenantInput, line: Int)] = []
        var start = body.startIndex
        // Line by line, each a slice of the body (shared, not copied); the last line is the
        // text after the last newline, empty when the body ends with one.
        while start <= body.endIndex {
            let end = body[start...].firstIndex(of: 0x0A) ?? body.endIndex
            defer { start = end + 1 }
            lineNo += 1
            var slice = body[start..<end]
            if slice.last == 0x0D { slice = slice.dropLast() }
            // A BOM opening the body is skipped, as `run` skips one opening its input.
            if lineNo == 1, slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
            if slice.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do throws(APIError) {
                // The reader checks the UTF-8 of what it keeps (the device id); the journal keeps
                // the line verbatim, so the whole line must be valid.
                guard slice.allSatisfy({ $0 < 0x80 }) || String(validating: slice, as: UTF8.self) != nil else {
                    throw APIError(.badRequest, "invalidLine", "not valid UTF-8")
                }
                switch try FixReader.parse(slice) {
                case .fix(let f): fixes.append((f.date, fixes.count, .fix(f, line: slice), lineNo))
                case .clock(let d): fixes.append((d, fixes.count, .clock(d), lineNo))
                }
            } catch {
                errorCount += 1
                if errors.count < listedPerBatch { errors.append(Refusal(line: lineNo, code: error.code, message: error.message)) }
            }
        }
        fixes.sort { $0.t != $1.t ? $0.t < $1.t : $0.index < $1.index }
        inputs.reserveCapacity(fixes.count)
        lines.reserveCapacity(fixes.count)
        for f in fixes {
            inputs.append(f.input)
            lines.append(f.line)
        }
    }
}
