import Foundation

/// Time zone names as requests (and the command line) may give them.
///
/// `TimeZone(identifier:)` alone is not a validator:
/// - it takes `"Asia/Kolkata\0"` (any name with a NUL after a real one) and answers a zone of
///   that name whose offset is always 0, so a trigger meant for Kolkata fired at UTC times. A
///   name is first checked to be one of the characters zone names are made of: ASCII letters,
///   digits and `/ _ + - : .` (IANA names, `GMT+14`, `EST`), 1 to 255 bytes;
/// - it takes ICU's legacy three-letter IDs (``legacyIDs``), which are not IANA names and
///   mostly name another zone than the abbreviation a user means: `BST` is Asia/Dhaka (UTC+6),
///   not British Summer Time; `AST` Alaska, not Atlantic; `NST` New Zealand, not Newfoundland;
///   `IST` India, not Ireland or Israel. A trigger given one fired hours off, silently. They are
///   refused in new input, by name, as are the names the IANA database dropped (``droppedNames``,
///   `SystemV/`). The rule is the same on every machine: it asks no zone files. What earlier
///   versions stored with one still reads back (``storedZone(named:)``).
package enum ZoneNames {
    package static let maximumBytes = 255

    /// ICU's legacy zone IDs (Java's three-letter IDs) that are not IANA names. `EST`, `MST`,
    /// `HST` are left out: the IANA database has them (fixed offsets, as ICU reads them).
    package static let legacyIDs: Set<String> = [
        "ACT", "AET", "AGT", "ART", "AST", "BET", "BST", "CAT", "CNT", "CST", "CTT", "EAT", "ECT",
        "IET", "IST", "JST", "MIT", "NET", "NST", "PLT", "PNT", "PRT", "PST", "SST", "VST",
    ]

    /// Whether `name` is made of the characters zone names are made of.
    package static func isWellFormed(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumBytes && name.utf8.allSatisfy { c in
            (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c)
                || c == 0x2F || c == 0x5F || c == 0x2B || c == 0x2D || c == 0x3A || c == 0x2E
        }
    }

    /// Names the IANA database dropped that Foundation still takes: `US/Pacific-New` (2020b,
    /// with the `SystemV/` names) and `Canada/East-Saskatchewan` (2017c).
    package static let droppedNames: Set<String> = ["US/Pacific-New", "Canada/East-Saskatchewan"]

    /// Whether `name` is one Foundation takes but the IANA database does not have (see the
    /// type's notes).
    package static func isLegacy(_ name: String) -> Bool {
        legacyIDs.contains(name) || droppedNames.contains(name) || name.hasPrefix("SystemV/")
    }

    /// The zone named `name`, or nil when it is not well formed, is a legacy ID (``isLegacy(_:)``),
    /// or Foundation knows no such zone. New input is read with it (every validator asks it).
    package static func zone(named name: String) -> TimeZone? {
        guard isWellFormed(name), !isLegacy(name) else { return nil }
        return TimeZone(identifier: name)
    }

    /// The zone named `name` as the JSON reader takes it: legacy IDs too, so that what earlier
    /// versions accepted and stored (a snapshot, a state file, a journal) still reads back,
    /// with the zone it always had; the validator refuses them in new input
    /// (``RequestValidation/checkValue(_:)``).
    package static func storedZone(named name: String) -> TimeZone? {
        guard isWellFormed(name) else { return nil }
        return TimeZone(identifier: name)
    }

    /// Why `name` is no zone when it is a legacy ID (``isLegacy(_:)``), else nil: what
    /// Foundation would have read and the zone its abbreviation usually names, e.g. `"BST" is
    /// not an IANA time zone name (Foundation reads it as ICU's legacy ID for UTC+06:00); for
    /// the abbreviation BST give its zone, e.g. "Europe/London"`.
    package static func legacyRefusal(_ name: String) -> String? {
        guard isWellFormed(name), isLegacy(name) else { return nil }
        var text = "\"\(name)\" is not an IANA time zone name"
        if let legacy = TimeZone(identifier: name) {
            // Its standard offset today (1970's was not always today's: Alaska's).
            let now = Date()
            let minutes = (legacy.secondsFromGMT(for: now) - Int(legacy.daylightSavingTimeOffset(for: now))) / 60
            let offset = "UTC\(minutes < 0 ? "-" : "+")\(twoDigits(abs(minutes) / 60)):\(twoDigits(abs(minutes) % 60))"
            text += " (Foundation reads it as ICU's legacy ID for \(offset))"
        }
        if let meant = TimeZone.abbreviationDictionary[name] {
            text += "; for the abbreviation \(name) give its zone, e.g. \"\(meant)\""
        }
        return text
    }

    /// The message for a `timeZone` field a request gives and ``zone(named:)`` refuses, naming
    /// the field (`trigger.dateMatching.timeZone`).
    package static func refusal(_ name: String, field: String) -> String {
        if let legacy = legacyRefusal(name) { return "\(legacy) in \"\(field)\"" }
        return "unknown time zone \"\(name)\" in \"\(field)\" (expected an IANA name such as \"Europe/Paris\")"
    }

    /// Why ``zone(named:)`` refuses `name`, for an option or a setting: the legacy ID's story,
    /// else `unknown time zone` and the name (quoted with `quote`).
    package static func why(_ name: String, quote: String = "\"") -> String {
        legacyRefusal(name) ?? "unknown time zone \(quote)\(name)\(quote)"
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
