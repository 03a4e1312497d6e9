import Foundation
@_spi(Engine) import TriggerKit

/// Reads a time zone the way `TZ` is written: empty = UTC; an IANA name (`Europe/Paris`); a
/// leading `:` as in `:Europe/Paris` or `:/etc/localtime`; a path to a zoneinfo file
/// (resolved through its symbolic links to the name under `zoneinfo/`, or `/etc/timezone`
/// when it is a copy); a POSIX fixed offset without daylight saving (`UTC0`, `EST5`,
/// `<+0530>-5:30`: the sign is POSIX's, west positive). POSIX rules with daylight saving
/// (`CET-1CEST,M3.5.0,M10.5.0/3`) are refused: name the IANA zone instead.
enum TimeZoneName {
    static func zone(_ raw: String) -> TimeZone? {
        var name = raw.trimmingCharacters(in: .whitespaces)
        if name.hasPrefix(":") { name.removeFirst() }
        if name.isEmpty { return TimeZone(identifier: "UTC") }
        if name.hasPrefix("/") { return zone(atPath: name) }
        // An IANA name first; then POSIX's `STDoffset` (`UTC+3` is three hours WEST, as
        // `TZ=UTC+3 date` says), before Foundation's own reading of such a name, which counts
        // east (it read `UTC+3` as UTC+03:00: a silent six-hour error, found by a helper).
        if iana.contains(name), let z = ZoneNames.zone(named: name) { return z }
        if let z = fixedOffset(name) { return z }
        return ZoneNames.zone(named: name)
    }

    /// The zone names Foundation's database lists.
    private static let iana = Set(TimeZone.knownTimeZoneIdentifiers)

    /// A zoneinfo file: named by where it lies under a `zoneinfo/` directory, or, for a copy
    /// of the local zone (the same bytes as `/etc/localtime`), by `/etc/timezone` (Debian keeps
    /// the name there). Anything else (no such file, `/etc/passwd`, a directory) is no zone:
    /// it used to be read as the local zone's name.
    private static func zone(atPath path: String) -> TimeZone? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        // The name under `zoneinfo/` is the zone (Foundation knows it without the file).
        if let r = resolved.range(of: "/zoneinfo/") {
            return ZoneNames.zone(named: String(resolved[r.upperBound...]))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        guard let bytes = FileManager.default.contents(atPath: resolved), bytes.starts(with: Array("TZif".utf8)),
              bytes == FileManager.default.contents(atPath: "/etc/localtime"),
              let text = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8) else { return nil }
        return ZoneNames.zone(named: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `STDoffset` only: a name of 3+ letters (or `<...>`), then [+-]hh[:mm[:ss]].
    private static func fixedOffset(_ s: String) -> TimeZone? {
        var rest = Substring(s)
        if rest.hasPrefix("<") {
            guard let close = rest.firstIndex(of: ">") else { return nil }
            rest = rest[rest.index(after: close)...]
        } else {
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard letters.count >= 3 else { return nil }
            rest = rest.dropFirst(letters.count)
        }
        var sign = 1
        if rest.first == "+" || rest.first == "-" {
            sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(parts[0]), h <= 24 else { return nil }
        let m = parts.count > 1 ? Int(parts[1]) ?? 60 : 0, sec = parts.count > 2 ? Int(parts[2]) ?? 60 : 0
        guard m < 60, sec < 60 else { return nil }
        // POSIX offsets count west of Greenwich as positive.
        return TimeZone(secondsFromGMT: -sign * (h * 3600 + m * 60 + sec))
    }
}
