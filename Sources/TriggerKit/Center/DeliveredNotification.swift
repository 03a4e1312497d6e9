import Foundation

/// A delivered notification: a request whose trigger fired, and how the device presents it.
/// Apple's `UNNotification`, plus the device and the crossing of location fires.
///
/// Cheap to copy: the request is shared (not copied) between the deliveries of one request,
/// and the event id is kept as its 128 bits until read as text.
public struct DeliveredNotification: Sendable, Hashable, Codable {
    /// The request that fired (as it was when it fired).
    public var request: NotificationRequest {
        get { shared.value }
        set { shared = SharedRequest(newValue) }
    }
    /// When it fired.
    public var date: Date
    /// The kind of trigger that fired.
    public var trigger: TriggerKind
    /// Enter or exit, for location fires.
    public var crossing: Crossing?
    /// The device it was delivered to; `nil` for a time trigger of a request shared by
    /// every device.
    public var device: String?
    /// The region's identifier, for location fires.
    public var region: String?
    /// What the device shows (the content intersected with the device's settings).
    public var presentation: Presentation
    /// How many fires this delivery stands for: more than 1 when the catch-up policy
    /// coalesced fires that became due in one step (see ``CatchUpPolicy``).
    public var fireCount: Int
    /// The contract's `eventId`: derived only from the fire, so the same fire always has
    /// the same id (use it to deduplicate after a restart).
    public var eventId: String {
        get { id.text }
        set { id = .text(newValue) }
    }

    /// The request, one box shared by the deliveries of one request (immutable).
    var shared: SharedRequest
    /// The id as computed (its bits) or as given (text).
    var id: EventIDText

    /// A delivery as the center makes one (for tests of code that consumes deliveries).
    /// `eventId` is normally ``eventId``'s derivation from the identifier, device, event and date.
    public init(request: NotificationRequest, date: Date, trigger: TriggerKind, crossing: Crossing? = nil,
                device: String? = nil, region: String? = nil, presentation: Presentation, fireCount: Int = 1, eventId: String) {
        self.init(shared: SharedRequest(request), date: date, trigger: trigger, crossing: crossing, device: device,
                  region: region, presentation: presentation, fireCount: fireCount, id: .text(eventId))
    }

    init(shared: SharedRequest, date: Date, trigger: TriggerKind, crossing: Crossing?, device: String?, region: String?,
         presentation: Presentation, fireCount: Int, id: EventIDText) {
        self.shared = shared
        self.date = date
        self.trigger = trigger
        self.crossing = crossing
        self.device = device
        self.region = region
        self.presentation = presentation
        self.fireCount = fireCount
        self.id = id
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.date == b.date && a.trigger == b.trigger && a.crossing == b.crossing && a.device == b.device
            && a.region == b.region && a.presentation == b.presentation && a.fireCount == b.fireCount
            && a.id == b.id && (a.shared === b.shared || a.shared.value == b.shared.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(request)
        hasher.combine(date)
        hasher.combine(trigger)
        hasher.combine(crossing)
        hasher.combine(device)
        hasher.combine(region)
        hasher.combine(presentation)
        hasher.combine(fireCount)
        hasher.combine(eventId)
    }

    private enum CodingKeys: String, CodingKey {
        case request, date, trigger, crossing, device, region, presentation, fireCount, eventId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(request: try c.decode(NotificationRequest.self, forKey: .request),
                  date: try c.decode(Date.self, forKey: .date),
                  trigger: try c.decode(TriggerKind.self, forKey: .trigger),
                  crossing: try c.decodeIfPresent(Crossing.self, forKey: .crossing),
                  device: try c.decodeIfPresent(String.self, forKey: .device),
                  region: try c.decodeIfPresent(String.self, forKey: .region),
                  presentation: try c.decode(Presentation.self, forKey: .presentation),
                  fireCount: try c.decode(Int.self, forKey: .fireCount),
                  eventId: try c.decode(String.self, forKey: .eventId))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(request, forKey: .request)
        try c.encode(date, forKey: .date)
        try c.encode(trigger, forKey: .trigger)
        try c.encodeIfPresent(crossing, forKey: .crossing)
        try c.encodeIfPresent(device, forKey: .device)
        try c.encodeIfPresent(region, forKey: .region)
        try c.encode(presentation, forKey: .presentation)
        try c.encode(fireCount, forKey: .fireCount)
        try c.encode(eventId, forKey: .eventId)
    }
}

/// One request shared by all its deliveries (immutable).
final class SharedRequest: Sendable {
    let value: NotificationRequest
    init(_ value: NotificationRequest) { self.value = value }
}

/// An event id as the engine computes it (128 bits, formatted on demand) or as given.
enum EventIDText: Sendable, Hashable {
    case bits(UInt128)
    case text(String)

    var text: String {
        switch self {
        case .text(let s): return s
        case .bits(let h):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buf in
                EventID.writeHex(h, to: buf.baseAddress.unsafelyUnwrapped)
                return String(decoding: buf, as: UTF8.self)
            }
        }
    }

    /// Whether this id's text sorts before `other`'s, without formatting computed ids: their
    /// texts (32 lowercase hex digits, most significant first) sort as their bits do.
    func sorts(before other: EventIDText) -> Bool {
        if case .bits(let x) = self, case .bits(let y) = other { return x < y }
        return text < other.text
    }

    static func == (a: Self, b: Self) -> Bool {
        if case .bits(let x) = a, case .bits(let y) = b { return x == y }
        return a.text == b.text
    }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// A GPS fix given to a ``TriggerCenter``: CoreLocation's `CLLocation` in short.
public struct LocationFix: Sendable, Hashable, Codable {
    /// The device that measured it.
    public var device: String
    /// When it was measured.
    public var date: Date
    /// Degrees, WGS84.
    public var latitude: Double
    /// Degrees east, in [-180, 180].
    public var longitude: Double
    /// Metres (CoreLocation's `horizontalAccuracy`); a finite negative value marks an invalid
    /// fix, which is counted and ignored; `nil` when unknown. NaN and infinities are refused
    /// (``FixError/invalid(field:reason:)``).
    public var horizontalAccuracy: Double?

    /// A fix of `device` at `date`; `horizontalAccuracy` in metres (nil: unknown).
    public init(device: String, date: Date, latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil) {
        self.device = device
        self.date = date
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
    }
}

/// Why a center refused a fix. Nothing changed in the center.
public enum FixError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field of the fix breaks a rule: latitude or longitude not finite or out of range, an
    /// accuracy that is not finite, a date outside years 1-9999, or a device id longer than
    /// ``RequestLimits/maximumIdentifierBytes``. `reason` follows the field's name in a
    /// sentence (`must be in [-90, 90], not 91`). A stream line or `POST /v1/fixes` body is
    /// held to the same rules, in the same words.
    case invalid(field: Field, reason: String)
    /// The center's clock reads a date outside years 1-9999 (or not a number): no fix can be
    /// placed in time until it reads a supported date. The reading is given in seconds since
    /// 1970, not as a `Date`: Foundation's `Date.description` traps on a NaN date, and an error
    /// must be printable whatever its value.
    case unsupportedClock(secondsSince1970: TimeInterval)
    /// Dated further after the center's clock than ``CenterConfiguration/maxFixLead``.
    case fromTheFuture(date: Date, clock: Date)
    /// The center was shut down.
    case shutDown
    /// The fix names a device the center does not know while it keeps state for `limit`
    /// devices already (``CenterConfiguration/maxDevices``). Fixes of known devices are taken.
    case tooManyDevices(limit: Int)

    /// A field of ``LocationFix``; its raw value is the property's name.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// ``LocationFix/device``.
        case device
        /// ``LocationFix/date``.
        case date
        /// ``LocationFix/latitude``.
        case latitude
        /// ``LocationFix/longitude``.
        case longitude
        /// ``LocationFix/horizontalAccuracy``.
        case horizontalAccuracy
    }

    public var description: String {
        switch self {
        case .invalid(let field, let reason): "invalid fix: \(field.rawValue) \(reason)"
        case .unsupportedClock(let s):
            "the center's clock reads \(FixRules.show(s)) s since 1970, outside the supported dates (years 1-9999)"
        // (Dates as the contract writes them: `Date`'s own description of year 9999 is
        // "<description unavailable>".)
        case .fromTheFuture(let d, let c):
            "fix dated \(Timestamp.string(millis: Timestamp.millis(d))) is ahead of the clock (\(Timestamp.string(millis: Timestamp.millis(c)))) by more than the allowed lead"
        case .shutDown: "the center is shut down"
        case .tooManyDevices(let limit): "invalid fix: device is new and the center keeps state for \(limit) device\(limit == 1 ? "" : "s"), its limit (maxDevices)"
        }
    }
}

/// One upcoming fire of a time-based trigger.
public struct UpcomingFire: Sendable, Hashable, Codable {
    /// The request's identifier.
    public var identifier: String
    /// The device the request is scoped to, if any.
    public var device: String?
    /// When it fires.
    public var date: Date
}

/// Counters of a center since it was created; a restored center goes on from its snapshot's.
public struct CenterStatistics: Sendable, Hashable, Codable {
    /// Fires delivered (a coalesced delivery counts once).
    public var delivered = 0
    /// Fires not delivered because the device has not authorized notifications.
    public var suppressed = 0
    /// Fixes received and accepted.
    public var fixes = 0
    /// Fixes older than the device's latest one (ignored).
    public var staleFixes = 0
    /// Fixes refused (invalid, from the future, past the device limit; through `serve`, also
    /// a batch's malformed lines and fixes past the tenant's limits or clock-jump bound).
    public var rejectedFixes = 0
    /// Deliveries dropped from the history because a device's list was full.
    public var historyDropped = 0
    /// Deliveries a feed could not queue because its consumer was too far behind.
    public var feedDropped = 0
    /// Requests pending now.
    public var pendingRequests = 0

    /// All counters at 0.
    public init() {}
}

@_spi(Engine) extension DeliveredNotification {
    /// Appends the delivery as one line of `triggerkit run`'s JSON output (same keys and
    /// order, `"coalesced"` when it stands for several fires), ending with a newline.
    public func write(to w: inout JSONWriter) {
        var line = JSONWriter()
        DeliveredEvent(eventId: eventId, identifier: request.identifier, date: Timestamp.millis(date), trigger: trigger,
                       event: crossing, device: device, region: region, presentation: presentation).write(to: &line)
        // `,"eventId":` is the last key: "coalesced" goes just before it, as `run` writes it.
        guard fireCount > 1, let cut = Self.eventIdKeyStart(line.bytes) else {
            w.bytes.append(contentsOf: line.bytes)
            return
        }
        w.bytes.append(contentsOf: line.bytes[..<cut])
        w.raw(",\"coalesced\":")
        w.number(Double(fireCount))
        w.bytes.append(contentsOf: line.bytes[cut...])
    }

    private static func eventIdKeyStart(_ b: [UInt8]) -> Int? {
        let key = Array(",\"eventId\":".utf8)
        guard b.count >= key.count else { return nil }
        var i = b.count - key.count
        while i >= 0 {
            if b[i..<(i + key.count)].elementsEqual(key) { return i }
            i -= 1
        }
        return nil
    }
}
