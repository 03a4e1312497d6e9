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
/// a syntax error, `null`, a repeated or unknown member, a calendar trigger, fence rules,
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
            return d.p.i == bytes.count ? r : nil
        } catch {
            return nil
        }
    }

    // MARK: The request's members

    private mutating func request() throws(Decline) -> NotificationRequest {
        var identifier: String?, content: NotificationContent?, device: String?
        var addedAt: Date?, expiresAt: Date?, trigger: TriggerParts?
        var seen = Seen()
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            switch key {
            case "identifier": try seen.once(0); identifier = try string()
            case "content": try seen.once(1); content = try self.content()
            case "device": try seen.once(2); device = try string()
            case "addedAt": try seen.once(3); addedAt = try date()
            case "expiresAt": try seen.once(4); expiresAt = try date()
            case "trigger": try seen.once(5); trigger = try self.trigger()
            default: throw Decline()
            }
        }
        guard let identifier, let content else { throw Decline() }
        let t = try trigger.map { parts throws(Decline) in try parts.trigger(requestIdentifier: identifier) } ?? .immediate
        return NotificationRequest(identifier: identifier, content: content, trigger: t, device: device,
                                   addedAt: addedAt, expiresAt: expiresAt)
    }

    private mutating func content() throws(Decline) -> NotificationContent {
        var c = NotificationContent()
        var seen = Seen()
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            switch key {
            case "title": try seen.once(0); c.title = try string()
            case "subtitle": try seen.once(1); c.subtitle = try string()
            case "body": try seen.once(2); c.body = try string()
            case "sound": try seen.once(3); c.sound = try string()
            case "categoryIdentifier": try seen.once(4); c.categoryIdentifier = try string()
            case "threadIdentifier": try seen.once(5); c.threadIdentifier = try string()
            case "badge":
                try seen.once(6)
                // The general path's integer rule (`JSONFields.integer`).
                let n = try number()
                guard n == n.rounded(), abs(n) < 9.0e15 else { throw Decline() }
                c.badge = Int(n)
            default: throw Decline()
            }
        }
        return c
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
        var type: String?
        var repeats = false
        var interval: Double?
        var region: RegionParts?

        func trigger(requestIdentifier: String) throws(Decline) -> NotificationTrigger {
            switch type {
            case "timeInterval":
                guard let interval, region == nil else { throw Decline() }
                return .timeInterval(TimeIntervalTrigger(timeInterval: interval, repeats: repeats))
            case "location":
                guard let region, interval == nil else { throw Decline() }
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

        func region(defaultIdentifier: String) throws(Decline) -> Region {
            // A region that never fires gets a warning on the general path.
            guard onEntry || onExit else { throw Decline() }
            let id = identifier ?? defaultIdentifier
            switch (center, radius, rings) {
            case (let c?, let r?, nil):
                return .circular(CircularRegion(identifier: id, center: c, radius: r, notifyOnEntry: onEntry, notifyOnExit: onExit))
            case (nil, nil, let rings?):
                return .polygon(PolygonRegion(identifier: id, polygons: [rings], isMultiPolygon: false,
                                              notifyOnEntry: onEntry, notifyOnExit: onExit))
            default:
                throw Decline()
            }
        }
    }

    private mutating func trigger() throws(Decline) -> TriggerParts {
        var t = TriggerParts()
        var seen = Seen()
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            switch key {
            case "type": try seen.once(0); t.type = try string()
            case "repeats": try seen.once(1); t.repeats = try bool()
            case "timeInterval": try seen.once(2); t.interval = try number()
            case "region": try seen.once(3); t.region = try region()
            default: throw Decline()  // fence rules, calendar's dateMatching, unknown members
            }
        }
        return t
    }

    private mutating func region() throws(Decline) -> RegionParts {
        var r = RegionParts()
        var seen = Seen()
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            switch key {
            case "identifier": try seen.once(0); r.identifier = try string()
            case "notifyOnEntry": try seen.once(1); r.onEntry = try bool()
            case "notifyOnExit": try seen.once(2); r.onExit = try bool()
            case "center": try seen.once(3); r.center = try center()
            case "radius": try seen.once(4); r.radius = try number()
            case "geometry": try seen.once(5); r.rings = try polygonGeometry()
            default: throw Decline()
            }
        }
        return r
    }

    private mutating func center() throws(Decline) -> Coordinate {
        var lat: Double?, lon: Double?
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            switch key {
            case "latitude" where lat == nil: lat = try number()
            case "longitude" where lon == nil: lon = try number()
            default: throw Decline()
            }
        }
        guard let lat, let lon else { throw Decline() }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// A GeoJSON `Polygon`'s rings (`type` may come after `coordinates`).
    private mutating func polygonGeometry() throws(Decline) -> [[Coordinate]] {
        var type: String?, rings: [[Coordinate]]?
        try openObject()
        var first = true
        while let key = try nextMember(&first) {
            switch key {
            case "type" where type == nil: type = try string()
            case "coordinates" where rings == nil: rings = try ringList()
            default: throw Decline()
            }
        }
        guard type == "Polygon", let rings else { throw Decline() }
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
            rings.append(ring)
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

    /// After `{` or a member's value: the next member's name with its `:` read (the value
    /// comes next), or nil once the closing `}` is read.
    private mutating func nextMember(_ first: inout Bool) throws(Decline) -> String? {
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
        let key = try string()
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

    /// Members seen in one object: a repeat declines (the general path keeps the last).
    private struct Seen {
        var bits: UInt16 = 0
        mutating func once(_ k: Int) throws(Decline) {
            guard bits & (1 << k) == 0 else { throw Decline() }
            bits |= 1 << k
        }
    }
}
