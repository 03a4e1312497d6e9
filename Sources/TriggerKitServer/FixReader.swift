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
