import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// A running digest of input lines, so a resumed run can prove its input begins with what
/// the saved state consumed: a 64-bit multiply-xorshift hash over each line's bytes taken
/// eight at a time (a byte-at-a-time FNV cost 14% of a `run --state`), chained line by line,
/// plus the byte and line counts. It detects a different or reordered input (a collision of
/// two inputs with the same counts has probability about 2^-64); it is not meant to resist
/// an attacker.
@_spi(Engine) public struct InputDigest: Sendable, Hashable, CustomStringConvertible {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    /// Bytes seen, newlines included.
    public private(set) var bytes = 0
    /// Lines seen.
    public private(set) var lines = 0

    public init() {}

    /// Adds one line (without its newline).
    public mutating func add(_ line: UnsafeBufferPointer<UInt8>) {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = (hash ^ UInt64(truncatingIfNeeded: line.count)) &* k
        @inline(__always) func mix(_ w: UInt64) {
            h = (h ^ w) &* k
            h ^= h >> 29
        }
        if let base = line.baseAddress {
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= line.count {
                mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < line.count {
                tail |= UInt64(line[i]) << shift
                shift += 8
                i += 1
            }
            mix(tail ^ 0x0A00_0000_0000_0000)
        } else {
            mix(0x0A00_0000_0000_0000)
        }
        hash = h ^ (h >> 32)
        bytes += line.count + 1
        lines += 1
    }

    /// `lines:bytes:hash`, as stored.
    public var description: String {
        "\(lines):\(bytes):" + String(hash, radix: 16)
    }
}

@_spi(Engine) extension StreamOptions {
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
                // Said as the command line says it (the stored values are the engine's).
                if key == "settings" {
                    out.append("settings: the --settings file or its devices' settings differ")
                    continue
                }
                func shown(_ v: Substring) -> String {
                    key == "catch-up" ? (v == "everyFire" ? "every" : v == "coalesced" ? "coalesce" : String(v)) : String(v)
                }
                out.append("\(key): \(was.map { shown($0.dropFirst(key.count + 1)) } ?? "unset") then, \(shown(new[k].dropFirst(key.count + 1))) now")
            }
        }
        return out
    }
}
