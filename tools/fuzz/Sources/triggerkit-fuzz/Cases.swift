import Foundation
@_spi(Engine) import TriggerKit

/// SplitMix64, seeded per case: a case is re-derived from (seed, index) alone.
struct CaseRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64, index: Int) { state = seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How one call ended.
enum Outcome: Hashable {
    case accepted
    case rejected(String)  // the typed error's code or type
    case untyped(String)   // an error that is not one of the library's typed errors: a defect
}

/// Extreme and ordinary values to draw from.
enum Pool {
    static let doubles: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 0, -0.0, 1e-9, .leastNonzeroMagnitude,
                                    .greatestFiniteMagnitude, 59.999, 60, 61.5, 3600, 1e16, -60, 3_155_760_000, 3_155_760_001,
                                    -90, 90, -180, 180, 40.7484, -73.9857, 89.9999999, 1_000_000, 1_000_000.0001, 150]
    static let ints: [Int] = [.min, .max, Int(Int32.min), Int(Int32.max), -1, 0, 1, 2, 5, 6, 7, 12, 13, 29, 31, 53, 236, 2500, 9999, 10_000, 999_999_999]
    static let dates: [Date?] = [nil, .distantPast, .distantFuture, Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: 1e16),
                                 Date(timeIntervalSince1970: -1e16), Date(timeIntervalSince1970: 253_402_300_799.999),
                                 Date(timeIntervalSince1970: -62_135_596_800), Date(timeIntervalSince1970: 1_795_770_000)]
    static let strings: [String] = ["", "a", "caf\u{E9}", "cafe\u{301}", "a\u{1F}b", "\n\0\\\"", String(repeating: "x", count: 1025),
                                    String(repeating: "\u{E9}", count: 600), "\u{FFFD}", "office"]
    static let zones = ["UTC", "America/Havana", "Pacific/Chatham", "Antarctica/Troll", "Australia/Lord_Howe", "Asia/Kathmandu",
                        "Europe/Dublin", "Africa/Casablanca", "America/Santiago", "America/Asuncion"]
    static let calendars: [Calendar.Identifier] = [.gregorian, .iso8601, .hebrew, .japanese, .islamic, .chinese, .buddhist, .persian]
}

extension RandomNumberGenerator {
    mutating func pick<T>(_ a: [T]) -> T { a[Int(next() % UInt64(a.count))] }
    mutating func chance(_ n: UInt64) -> Bool { next() % n == 0 }
}

/// Random and extreme values of the library's types.
enum Make {
    static func components<R: RandomNumberGenerator>(_ r: inout R) -> DateComponents {
        var c = DateComponents()
        let setters: [(inout DateComponents, Int) -> Void] = [
            { $0.era = $1 }, { $0.year = $1 }, { $0.month = $1 }, { $0.day = $1 }, { $0.hour = $1 }, { $0.minute = $1 },
            { $0.second = $1 }, { $0.nanosecond = $1 }, { $0.weekday = $1 }, { $0.weekdayOrdinal = $1 },
            { $0.weekOfMonth = $1 }, { $0.weekOfYear = $1 }, { $0.yearForWeekOfYear = $1 }, { $0.dayOfYear = $1 },
        ]
        for s in setters where r.chance(4) {
            s(&c, r.chance(2) ? r.pick(Pool.ints) : Int(r.next() % 40))
        }
        if r.chance(2) { c.timeZone = TimeZone(identifier: r.pick(Pool.zones)) }
        if r.chance(4) { c.calendar = Calendar(identifier: r.pick(Pool.calendars)) }
        return c
    }

    static func region<R: RandomNumberGenerator>(_ r: inout R) -> Region {
        if r.chance(2) {
            return .circular(CircularRegion(identifier: r.pick(Pool.strings), center: Coordinate(latitude: r.pick(Pool.doubles), longitude: r.pick(Pool.doubles)),
                                            radius: r.pick(Pool.doubles), notifyOnEntry: r.chance(2), notifyOnExit: r.chance(2)))
        }
        let n = Int(r.next() % 7)
        var ring = (0..<n).map { _ in Coordinate(latitude: r.chance(3) ? r.pick(Pool.doubles) : Double(r.next() % 180) - 90,
                                                 longitude: r.chance(3) ? r.pick(Pool.doubles) : Double(r.next() % 360) - 180) }
        if let f = ring.first, r.chance(2) == false { ring.append(f) }
        return .polygon(PolygonRegion(identifier: "p", polygons: [[ring]], isMultiPolygon: r.chance(2)))
    }

    static func request<R: RandomNumberGenerator>(_ r: inout R, index: Int) -> NotificationRequest {
        let trigger: NotificationTrigger
        switch r.next() % 4 {
        case 0: trigger = .timeInterval(TimeIntervalTrigger(timeInterval: r.pick(Pool.doubles), repeats: r.chance(2)))
        case 1: trigger = .calendar(CalendarTrigger(dateMatching: components(&r), repeats: r.chance(2)))
        case 2: trigger = .location(LocationTrigger(region: region(&r), repeats: r.chance(2)))
        default: trigger = .immediate
        }
        let content = r.chance(5) ? NotificationContent() : NotificationContent(title: r.chance(2) ? "t" : nil, body: "b",
                                                                                badge: r.chance(3) ? r.pick(Pool.ints) : nil)
        let id = r.chance(3) ? r.pick(Pool.strings) : "r\(index % 50)"
        return NotificationRequest(identifier: id, content: content, trigger: trigger,
                                   device: r.chance(3) ? r.pick(Pool.strings) : nil, addedAt: r.pick(Pool.dates))
    }

    /// A stream line: mostly plausible, some mutated, some random bytes.
    static func line<R: RandomNumberGenerator>(_ r: inout R) -> [UInt8] {
        if r.chance(6) { return (0..<Int(r.next() % 60)).map { _ in UInt8(truncatingIfNeeded: r.next()) } }
        let t: String = r.chance(3) ? "\(r.pick(Pool.doubles))" : "\"\(r.chance(2) ? "2026-11-27T09:00:0\(r.next() % 10)Z" : "9999-12-31T23:59:59.999Z")\""
        var s = "{\"device\": \"\(r.chance(4) ? "caf\u{E9}" : "d\(r.next() % 3)")\", \"t\": \(t)"
        if !r.chance(4) { s += ", \"lat\": \(r.chance(3) ? r.pick(Pool.doubles) : 40.7484), \"lon\": \(r.chance(3) ? r.pick(Pool.doubles) : -73.9857)" }
        if r.chance(3) { s += ", \"acc\": \(r.pick(Pool.doubles))" }
        var bytes = Array((s + "}").utf8)
        if r.chance(5), !bytes.isEmpty { bytes[Int(r.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: r.next()) }
        return bytes
    }
}

/// Places, sizes and offsets for the geometry cases.
enum Geo {
    static let latitudes: [Double] = [0, 5e-324, -5e-324, 45, 79.99999, 80, 80.00001, 89.9999999, 90, -90, -89.99, 40.7484]
    static let longitudes: [Double] = [0, 180, -180, 179.9999999, -179.9999999, 5e-324, 100, -73.9857]
    /// Metres: subnormal to beyond a hemisphere.
    static let sizes: [Double] = [5e-324, 1e-9, 0.001, 1, 50, 2_000, 100_000, 5_000_000, 19_000_000, 1e300, .nan, -1]
    static let durations: [Double] = [0, 0.001, 1, 60, 1e9, .nan, -1]

    /// A point near `place`: on it, ulps away, metres away, or across a pole or the antimeridian.
    static func near<R: RandomNumberGenerator>(_ place: (lat: Double, lon: Double), _ r: inout R) -> (lat: Double, lon: Double) {
        var lat = place.lat, lon = place.lon
        switch r.next() % 5 {
        case 0: break
        case 1: lat = lat.nextUp; lon = lon.nextDown
        case 2:
            lat += Double(Int64(truncatingIfNeeded: r.next() % 2001) - 1000) * 1e-6
            lon += Double(Int64(truncatingIfNeeded: r.next() % 2001) - 1000) * 1e-6
        case 3:
            lat += Double(Int64(truncatingIfNeeded: r.next() % 2001) - 1000) * 1e-3
            lon += Double(Int64(truncatingIfNeeded: r.next() % 2001) - 1000) * 1e-3
        default: lon = -lon; lat = r.pick(latitudes)
        }
        return (min(90, max(-90, lat)), lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon))
    }
}
