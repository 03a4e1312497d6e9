import Foundation

/// How a ``TriggerCenter`` evaluates, and the bounds of what it keeps.
public struct CenterConfiguration: Sendable, Hashable {
    /// Hysteresis for circles, metres: entering needs distance <= radius - margin, leaving
    /// distance > radius + margin.
    public var margin: Double = 0
    /// Seconds a crossing must persist (every fix of the device agreeing) before it fires.
    public var dwell: TimeInterval = 0
    /// Fixes whose horizontal accuracy is worse than this (metres) tell nothing about regions.
    public var maxAccuracy: Double?
    /// Whether a device's first fix inside a region fires an entry.
    public var initialFire = false
    /// The zone floating calendar triggers follow.
    public var floatingTimeZone = TimeZone(identifier: "UTC") ?? .current
    /// Settings of devices that were never given any.
    public var defaultSettings = NotificationSettings.authorized
    /// What one clock step does with several due fires of one request: one coalesced
    /// delivery carrying the count (the default, as a phone that was off shows one
    /// notification), or every fire.
    public var catchUp = CatchUpPolicy.coalesced
    /// With ``CatchUpPolicy/everyFire``: fires older than this many seconds before the
    /// clock when they are caught up (after a pause of the service, a clock step) are
    /// coalesced into one delivery per request; younger ones come one by one. Bounds the work
    /// of one step. A coalesced delivery counts at most 100,000 fires of a calendar trigger
    /// (1,000 of those Foundation answers in the Gregorian calendar, at about 0.1 ms each; 64
    /// in other calendars, each Foundation's to find at up to 100 ms or more, and none more
    /// than 20 years after the first): past that, its count is that number.
    public var catchUpWindow: TimeInterval = 3600
    /// Delivered notifications kept per device (the oldest is dropped past it).
    public var deliveredLimitPerDevice = 100
    /// Undelivered values each ``TriggerCenter/deliveries(bufferLimit:)`` feed holds before it
    /// drops new ones (and counts them).
    public var deliveryBufferLimit = 4096
    /// A fix dated more than this many seconds after the clock is refused
    /// (``FixError/fromTheFuture(date:clock:)``). One dated less far ahead is taken as dated
    /// at the clock (see ``TriggerCenter/receive(_:)``): a device clock that runs ahead moves
    /// no time, so it fires no time trigger early.
    public var maxFixLead: TimeInterval = 300
    /// Devices the center keeps state for (its last fix, regions inside, settings; a few
    /// hundred bytes each, and its delivered history): each device a fix or a settings change
    /// named, whose own location request was added, or whose own time-based request fired. The
    /// center never forgets a device. Once it keeps this many, a fix or a settings change
    /// naming another device is refused (``FixError/tooManyDevices(limit:)``, a
    /// ``SettingsError``), so a stream of made-up device ids cannot grow it without end;
    /// devices it keeps go on as before. A request naming a device it does not know is
    /// refused then too (``RequestErrorCode/tooManyDevices``): its device is kept only once
    /// the request fires (a location request's at once), so the devices kept are at most this
    /// many plus the requests held naming new ones (``maxRequests``). (Requests were not
    /// checked: one-shots for ever new devices grew the devices and their histories without
    /// bound.) A center restored from a snapshot with more devices keeps them all.
    public var maxDevices = 1_000_000
    /// Requests the center holds at once (pending ones, see
    /// ``TriggerCenter/request(withIdentifier:)``; about half a kilobyte each for a circle or a
    /// time trigger, more for a polygon's vertices). Once it holds this many, adding a request
    /// under a new identifier, or a snooze that would add one, is refused
    /// (``RequestErrorCode/tooManyRequests``); replacing a held request, removing, and
    /// everything else go on. A center restored from a snapshot with more requests keeps them
    /// all.
    public var maxRequests = 10_000_000

    /// The defaults above (checked by ``validate()`` when a center is made).
    public init() {}
}
