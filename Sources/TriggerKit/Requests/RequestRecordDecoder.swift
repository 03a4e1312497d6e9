import Foundation

// Large requests files are mostly the same few shapes: a circle or a polygon, an interval, a
// plain content. Building a `JSONValue` tree for each (a dictionary per object, a String per
// key, then freeing them all) was most of loading a million-request file. This decoder reads
// those shapes straight from the record's bytes into a `NotificationRequest`, and declines
// everything else; the caller then takes the general path (`NotificationRequest(decoding:)`),
// which gives every error and warning. It judges no values: the one validator does that for
// both paths.

/// Decodes the common shapes of a request record without a JSON tree.
///
/// Accepts exactly: a request object with `identifier`, `content`, optional `device`,
/// `addedAt`, `expiresAt` and `trigger`; content with string `title`, `subtitle`, `body`,
/// `sound`, `categoryIdentifier`, `threadIdentifier` and an integer `badge`; a `timeInterval`
/// trigger, or a `location` trigger (with `repeats`) whose region is a circle (`center`,
/// `radius`) or a GeoJSON `Polygon` of `[longitude, latitude]` positions, with optional
/// `identifier`, `notifyOnEntry`, `notifyOnExit`. Declines (returns `nil`) on anything else:
/// a syntax error, `null`, a repeated or unknown member, a member name or a `type` written
/// with an escape (`"dev\u0069ce"`), a calendar trigger, fence rules,
/// `userInfo`, a `MultiPolygon`, a position with an altitude, a region that would never fire,
/// or a shape the general path refuses. So whenever it decodes a request, the general path
/// decodes the same request with no warning (`RecordDecoderTests` checks this on random
/// records, both ways of every decline).
struct RequestRecordDecoder {
    private var p: JSONParser

    /// Why a record was declined; the general path will say what, if anything, is wrong.
    struct Decline: Error {}

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { p = JSONParser(bytes: bytes) }

    /// The request the record's bytes (one JSON text) encode, or `nil` to take the general path.
    ///
    /// - Complexity: O(n) in the record's length, one pass, no allocation but the request's own.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> NotificationRequest? {
        var d = RequestRecordDecoder(bytes)
        do throws(Decline) {
            let r = try d.request()
            d.p.skipWhitespace()
            guard d.p.i == bytes.count else { return nil }
            return r
        } catch {
            return nil
        }
    }

    // MARK: The request's members

    private mutating func request() throws(Decline) -> NotificationRequest {
        var identifier: String?, content: NotificationContent?, device: String?
        var addedAt: Date?, expiresAt: Date?, trigger: TriggerParts?
        try members { d, key throws(Decline) -> Int in
            switch key {
            case "identifier": identifier = try d.string(); return 0
            case "content": content = try d.content(); return 1
            case "device": device = try d.string(); return 2
            case "addedAt": addedAt = try d.date(); return 3
            case "expiresAt": expiresAt = try d.date(); return 4
            case "trigger": trigger = try d.trigger(); return 5
            default: throw Decline()
            }
        }
        // Each part is moved out of its optional (`take()`), not copied and then released:
        // retain and release pairs of every string were a tenth of loading a large file.
        guard let identifier = identifier.take(), let content = content.take() else { throw Decline() }
        var t = NotificationTrigger.immediate
        if let parts = trigger.take() { t = try parts.trigger(requestIdentifier: identifier) }
        return NotificationRequest(identifier: identifier, content: content, trigger: t, device: device.take(),
                                   addedAt: addedAt, expiresAt: expiresAt)
    }

    private mutating func content() throws(Decline) -> NotificationContent {
        var c = NotificationContent()
        try members { d, key throws(Decline) -> Int in
            switch key {
            case "title": c.title = try d.string(); return 0
            case "subtitle": c.subtitle = try d.string(); return 1
            case "body": c.body = try d.string(); return 2
            case "sound": c.sound = try d.string(); return 3
            case "categoryIdentifier": c.categoryIdentifier = try d.string(); return 4
            case "threadIdentifier": c.threadIdentifier = try d.string(); return 5
            case "badge":
                // The general path's integer rule (`JSONFields.integer`).
                let n = try d.number()
                guard n == n.rounded(), abs(n) < 9.0e15 else { throw Decline() }
                c.badge = Int(n)
                return 6
            default: throw Decline()
            }
        }
        return consume c
    }

    /// A contract date: an ISO 8601 string or seconds since 1970, as `JSONFields.dateMillis`.
    private mutating func date() throws(Decline) -> Date {
        let ms: Int64?
        if p.i < p.bytes.count, p.bytes[p.i] == UInt8(ascii: "\"") {
            ms = Timestamp.parseMillis(try string())
        } else {
            ms = JSONFields.dateMillis(.number(try number()))
        }
        guard let ms else { throw Decline() }
        return Timestamp.date(millis: ms)
    }

    // MARK: Triggers and regions

    /// A trigger's members, in whatever order they came; judged once all are read.
    private struct TriggerParts {
        var type: Name?
        var repeats = false
        var interval: Double?
        var region: RegionParts?

        consuming func trigger(requestIdentifier: String) throws(Decline) -> NotificationTrigger {
            switch type {
            case "timeInterval"?:
                guard let interval, region == nil else { throw Decline() }
                return .timeInterval(TimeIntervalTrigger(timeInterval: interval, repeats: repeats))
            case "location"?:
                guard let region = region.take(), interval == nil else { throw Decline() }
                return .location(LocationTrigger(region: try region.region(defaultIdentifier: requestIdentifier), repeats: repeats))
            default:
                throw Decline()
            }
        }
    }

    private struct RegionParts {
        var identifier: String?
        var onEntry = true
        var onExit = true
        var center: Coordinate?
        var radius: Double?
        var rings: [[Coordinate]]?

        consuming func region(defaultIdentifier: String) throws(Decline) -> Region {
            // A region that never fires gets a warning on the general path.
            guard onEntry || onExit else { throw Decline() }
            let id = identifier.take() ?? defaultIdentifier
            switch (center, radius, rings.take()) {
            case (let c?, let r?, nil):
                return .circular(CircularRegion(identifier: id, center: c, radius: r, notifyOnEntry: onEntry, notifyOnExit: onExit))
            case (nil, nil, let rings?):
                // One read across the antimeridian gets a warning on the general path.
                guard PlanarPolygons.longitudes(of: rings).map({ !$0.shifted }) ?? true else { throw Decline() }
                return .polygon(PolygonRegion(identifier: id, polygons: [rings], isMultiPolygon: false,
                                              notifyOnEntry: onEntry, notifyOnExit: onExit))
            default:
                throw Decline()
            }
        }
    }

    private mutating func trigger() throws(Decline) -> TriggerParts {
        var t = TriggerParts()
        try members { d, key throws(Decline) -> Int in
            switch key {
            case "type": t.type = try d.name(); return 0
            case "repeats": t.repeats = try d.bool(); return 1
            case "timeInterval": t.interval = try d.number(); return 2
            case "region": t.region = try d.region(); return 3
            default: throw Decline()  // fence rules, calendar's dateMatching, unknown members
            }
        }
        return consume t
    }

    private mutating func region() throws(Decline) -> RegionParts {
        var r = RegionParts()
        try members { d, key throws(Decline) -> Int in
            switch key {
            case "identifier": r.identifier = try d.string(); return 0
            case "notifyOnEntry": r.onEntry = try d.bool(); return 1
            case "notifyOnExit": r.onExit = try d.bool(); return 2
            case "center": r.center = try d.center(); return 3
            case "radius": r.radius = try d.number(); return 4
            case "geometry": r.rings = try d.polygonGeometry(); return 5
            default: throw Decline()
            }
        }
        return consume r
    }

    private mutating func center() throws(Decline) -> Coordinate {
        var lat: Double?, lon: Double?
        try members { d, key throws(Decline) -> Int in
            switch key {
            case "latitude": lat = try d.number(); return 0
            case "longitude": lon = try d.number(); return 1
            default: throw Decline()
            }
        }
        guard let lat, let lon else { throw Decline() }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// A GeoJSON `Polygon`'s rings (`type` may come after `coordinates`).
    private mutating func polygonGeometry() throws(Decline) -> [[Coordinate]] {
        var type: Name?, rings: [[Coordinate]]?
        try members { d, key throws(Decline) -> Int in
            switch key {
            case "type": type = try d.name(); return 0
            case "coordinates": rings = try d.ringList(); return 1
            default: throw Decline()
            }
        }
        guard let type, "Polygon" ~= type, let rings = rings.take() else { throw Decline() }
        return rings
    }

    /// `[[[lon, lat], ...], ...]`: positions of exactly two numbers.
    private mutating func ringList() throws(Decline) -> [[Coordinate]] {
        var rings: [[Coordinate]] = []
        try openArray()
        var first = true
        while try nextItem(&first) {
            var ring: [Coordinate] = []
            try openArray()
            var firstPosition = true
            while try nextItem(&firstPosition) {
                try openArray()
                let lon = try number()
                try expect(UInt8(ascii: ","))
                p.skipWhitespace()
                let lat = try number()
                try expect(UInt8(ascii: "]"))
                ring.append(Coordinate(latitude: lat, longitude: lon))
            }
            rings.append(consume ring)
        }
        return rings
    }

    // MARK: JSON tokens (the general parser's own scanners, so strings and numbers read alike)

    private mutating func openObject() throws(Decline) { try expect(UInt8(ascii: "{")) }
    private mutating func openArray() throws(Decline) { try expect(UInt8(ascii: "[")) }

    private mutating func expect(_ b: UInt8) throws(Decline) {
        p.skipWhitespace()
        guard p.i < p.bytes.count, p.bytes[p.i] == b else { throw Decline() }
        p.i += 1
    }

    /// Reads one object: `read` gets each member's name with the decoder at its value, reads
    /// the value and returns the member's number among the object's known ones; a member seen
    /// twice declines (the general path keeps the last).
    private mutating func members(_ read: (inout RequestRecordDecoder, Name) throws(Decline) -> Int) throws(Decline) {
        var seen: UInt16 = 0
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            let member = try read(&self, key)
            let bit: UInt16 = 1 << member
            guard seen & bit == 0 else { throw Decline() }
            seen |= bit
        }
    }

    /// After `{` or a member's value: the next member's name with its `:` read (the value
    /// comes next), or nil once the closing `}` is read.
    private mutating func nextMember(_ first: inout Bool) throws(Decline) -> Name? {
        p.skipWhitespace()
        guard p.i < p.bytes.count else { throw Decline() }
        let b = p.bytes[p.i]
        if b == UInt8(ascii: "}") { p.i += 1; return nil }
        if first {
            first = false
        } else {
            guard b == UInt8(ascii: ",") else { throw Decline() }
            p.i += 1
            p.skipWhitespace()
        }
        let key = try name()
        try expect(UInt8(ascii: ":"))
        p.skipWhitespace()
        return key
    }

    /// After `[` or an item: whether another item follows (positioned at it), false once the
    /// closing `]` is read.
    private mutating func nextItem(_ first: inout Bool) throws(Decline) -> Bool {
        p.skipWhitespace()
        guard p.i < p.bytes.count else { throw Decline() }
        let b = p.bytes[p.i]
        if b == UInt8(ascii: "]") { p.i += 1; return false }
        if first {
            first = false
        } else {
            guard b == UInt8(ascii: ",") else { throw Decline() }
            p.i += 1
            p.skipWhitespace()
        }
        return true
    }

    /// A string's bytes as they are in the record, for names matched against known ones: a
    /// string with an escape declines (the general path reads it). Made a `String` and
    /// compared case by case, the dozen names of a record took a quarter of its decoding.
    private mutating func name() throws(Decline) -> Name {
        guard p.i < p.bytes.count, p.bytes[p.i] == UInt8(ascii: "\"") else { throw Decline() }
        let start = p.i + 1
        var i = start
        while i < p.bytes.count {
            let b = p.bytes[i]
            if b == UInt8(ascii: "\"") {
                p.i = i + 1
                return Name(bytes: UnsafeBufferPointer(rebasing: p.bytes[start..<i]))
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { throw Decline() }
            i += 1
        }
        throw Decline()
    }

    private mutating func string() throws(Decline) -> String {
        guard p.i < p.bytes.count, p.bytes[p.i] == UInt8(ascii: "\"") else { throw Decline() }
        do throws(JSONSyntaxError) { return try p.parseString() } catch { throw Decline() }
    }

    private mutating func number() throws(Decline) -> Double {
        guard p.i < p.bytes.count, p.bytes[p.i] == UInt8(ascii: "-") || p.bytes[p.i] &- 0x30 < 10 else { throw Decline() }
        do throws(JSONSyntaxError) { return try p.parseNumber() } catch { throw Decline() }
    }

    private mutating func bool() throws(Decline) -> Bool {
        guard p.i < p.bytes.count else { throw Decline() }
        let value = p.bytes[p.i] == UInt8(ascii: "t")
        do throws(JSONSyntaxError) { try p.literal(value ? "true" : "false") } catch { throw Decline() }
        return value
    }
}

/// A member name (or a word such as a trigger's `type`) as its bytes in the record, matched
/// against string literals in `switch` without making a `String`.
private struct Name {
    let bytes: UnsafeBufferPointer<UInt8>

    static func ~= (pattern: StaticString, name: Name) -> Bool {
        let n = pattern.utf8CodeUnitCount
        guard n == name.bytes.count else { return false }
        return n == 0 || memcmp(pattern.utf8Start, name.bytes.baseAddress!, n) == 0
    }
}
