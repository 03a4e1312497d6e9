import Foundation

/// Time zone names as requests (and the command line) may give them.
///
/// `TimeZone(identifier:)` alone is not a validator: it takes `"Asia/Kolkata\0"` (any name
/// with a NUL after a real one) and answers a zone of that name whose offset is always 0, so a
/// trigger meant for Kolkata fired at UTC times. A name is first checked to be one of the
/// characters zone names are made of: ASCII letters, digits and `/ _ + - : .` (IANA names,
/// `GMT+14`, `EST`), 1 to 255 bytes.
package enum ZoneNames {
    package static let maximumBytes = 255

    /// Whether `name` is made of the characters zone names are made of.
    package static func isWellFormed(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumBytes && name.utf8.allSatisfy { c in
            (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c)
                || c == 0x2F || c == 0x5F || c == 0x2B || c == 0x2D || c == 0x3A || c == 0x2E
        }
    }

    /// The zone named `name`, or nil when it is not well formed or Foundation knows no such zone.
    package static func zone(named name: String) -> TimeZone? {
        guard isWellFormed(name) else { return nil }
        return TimeZone(identifier: name)
    }
}
