import Foundation

/// A delivered notification: a request whose trigger fired, and how the device presents it.
/// Apple's `UNNotification`, plus the device and the crossing of location fires.
public struct DeliveredNotification: Sendable, Hashable, Codable {
    /// The request that fired (as it was when it fired).
    public var request: NotificationRequest
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
    public var eventId: String

    public init(request: NotificationRequest, date: Date, trigger: TriggerKind, crossing: Crossing? = nil,
                device: String? = nil, region: String? = nil, presentation: Presentation, fireCount: Int = 1, eventId: String) {
        self.request = request
        self.date = date
        self.trigger = trigger
        self.crossing = crossing
        self.device = device
        self.region = region
        self.presentation = presentation
        self.fireCount = fireCount
        self.eventId = eventId
    }
}

/// A GPS fix given to a ``TriggerCenter``: CoreLocation's `CLLocation` in short.
public struct LocationFix: Sendable, Hashable, Codable {
    /// The device that measured it.
    public var device: String
    /// When it was measured.
    public var date: Date
    /// Degrees, WGS84.
    public var latitude: Double
    public var longitude: Double
    /// Metres (CoreLocation's `horizontalAccuracy`); negative marks an invalid fix, which is
    /// counted and ignored; `nil` when unknown.
    public var horizontalAccuracy: Double?

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
    /// Latitude, longitude, accuracy or date not finite or out of range, or a device id that
    /// is too long.
    case invalid(String)
    /// Dated further after the center's clock than ``CenterConfiguration/maxFixLead``.
    case fromTheFuture(date: Date, clock: Date)
    /// The center was shut down.
    case shutDown

    public var description: String {
        switch self {
        case .invalid(let why): "invalid fix: \(why)"
        case .fromTheFuture(let d, let c): "fix dated \(d) is ahead of the clock (\(c)) by more than the allowed lead"
        case .shutDown: "the center is shut down"
        }
    }
}

/// One upcoming fire of a time-based trigger.
public struct UpcomingFire: Sendable, Hashable, Codable {
    public var identifier: String
    /// The device the request is scoped to, if any.
    public var device: String?
    public var date: Date
}

/// Counters of a center since it was created (or restored).
public struct CenterStatistics: Sendable, Hashable, Codable {
    /// Fires delivered (a coalesced delivery counts once).
    public var delivered = 0
    /// Fires not delivered because the device has not authorized notifications.
    public var suppressed = 0
    /// Fixes received and accepted.
    public var fixes = 0
    /// Fixes older than the device's latest one (ignored).
    public var staleFixes = 0
    /// Fixes refused (invalid or from the future).
    public var rejectedFixes = 0
    /// Deliveries dropped from the history because a device's list was full.
    public var historyDropped = 0
    /// Deliveries a feed could not queue because its consumer was too far behind.
    public var feedDropped = 0
    /// Requests pending now.
    public var pendingRequests = 0

    public init() {}
}
