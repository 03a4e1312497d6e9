import Foundation

/// A running digest of input lines, so a resumed run can prove its input begins with what
/// the saved state consumed: 64-bit FNV-1a over every line's bytes followed by a newline,
/// plus the byte and line counts. Cheap enough to run on every line of `run --state`
/// (about a nanosecond a byte); it detects a different or reordered input, not an attack.
public struct InputDigest: Sendable, Hashable, CustomStringConvertible {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    /// Bytes seen, newlines included.
    public private(set) var bytes = 0
    /// Lines seen.
    public private(set) var lines = 0

    public init() {}

    /// Adds one line (without its newline).
    public mutating func add(_ line: UnsafeBufferPointer<UInt8>) {
        var h = hash
        for b in line { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        h = (h ^ 0x0A) &* 0x0000_0100_0000_01B3
        hash = h
        bytes += line.count + 1
        lines += 1
    }

    /// `lines:bytes:hash`, as stored.
    public var description: String {
        "\(lines):\(bytes):" + String(hash, radix: 16)
    }
}

extension StreamOptions {
    /// The options that change results, as `key=value` pairs in a fixed order: what a
    /// resumed run must be given again. Add a field here when ``StreamOptions`` gains one.
    public var resultKeys: [String] {
        func n(_ d: Double?) -> String { d.map { "\($0)" } ?? "none" }
        let settingsKeys = deviceSettings.keys.sorted { ExactKey($0) < ExactKey($1) }
            .map { "\($0):\(deviceSettings[$0].map(\.packed) ?? 0)" }.joined(separator: ",")
        return [
            "margin=\(margin)", "dwell=\(dwell)", "max-accuracy=\(n(maxAccuracy))",
            "initial=\(initialFire ? "fire" : "ignore")", "time-zone=\(floatingTimeZone.identifier)",
            "now=\(now.map { Timestamp.string(millis: Timestamp.millis($0)) } ?? "none")",
            "settings=\(settingsKeys);*:\(defaultSettings.packed)",
            "max-clock-jump=\(n(maxClockJump))", "catch-up=\(catchUp.rawValue)",
        ]
    }

    /// ``resultKeys`` joined, as stored.
    var resultFingerprint: String { resultKeys.joined(separator: "\u{1F}") }

    /// The keys of `saved` that differ from these options ("margin: 0.0 then, 5.0 now").
    func differences(from saved: String) -> [String] {
        let old = saved.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        let new = resultKeys
        var out: [String] = []
        for k in new.indices {
            let key = new[k].prefix { $0 != "=" }
            let was = old.first { $0.hasPrefix(key + "=") }
            if was != new[k] {
                out.append("\(key): \(was.map { String($0.dropFirst(key.count + 1)) } ?? "unset") then, \(new[k].dropFirst(key.count + 1)) now")
            }
        }
        return out
    }
}
