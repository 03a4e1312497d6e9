import Foundation

/// How `triggerkit run` evaluates a stream (CONTRACT section 4).
@_spi(Engine) public struct StreamOptions: Sendable {
    /// Hysteresis for circles, metres: entering needs distance <= radius - margin, exiting
    /// distance > radius + margin.
    public var margin: Double
    /// Seconds a crossing must persist before it is confirmed.
    public var dwell: Double
    /// Fixes with `acc` above this carry no information about regions.
    public var maxAccuracy: Double?
    /// Whether a device's first fix inside a region fires an entry.
    public var initialFire: Bool
    /// Zone of floating calendar triggers.
    public var floatingTimeZone: TimeZone
    /// Default `addedAt`; `nil` = the first instant of the stream.
    public var now: Date?
    /// Per-device notification settings at the start of the stream.
    public var deviceSettings: [String: NotificationSettings] = [:]
    /// Settings of devices not in ``deviceSettings`` (default: authorized, all enabled).
    public var defaultSettings: NotificationSettings = .authorized
    /// The largest step forward of stream time one line may make, seconds; a line that would
    /// move it further is refused (an error line, nothing applied). `nil`: no limit.
    /// Default 7 days (``defaultMaxClockJump``).
    public var maxClockJump: TimeInterval? = StreamOptions.defaultMaxClockJump
    /// What one step does with several due fires of one trigger. Default
    /// ``CatchUpPolicy/everyFire`` (the contract of `triggerkit run`). Whatever the policy,
    /// fires dated more than ``maxClockJump`` (7 days when there is no limit) before the
    /// stream time they are caught up at are coalesced, so a step's output is bounded.
    public var catchUp: CatchUpPolicy = .everyFire
    /// With ``CatchUpPolicy/everyFire``: how far back from the stream time fires are still
    /// delivered one by one; older ones are coalesced. `nil`: ``maxClockJump``, or 7 days
    /// when that is `nil` too.
    public var catchUpWindow: TimeInterval?
    /// Devices the evaluator keeps state for (a fix or a settings line named them, or their
    /// own requests): past this many, a fix or settings line naming another device is refused
    /// (an error line, nothing applied). Default: no bound (`run` sets `--max-devices`; a
    /// ``TriggerCenter`` checks ``CenterConfiguration/maxDevices`` itself, with typed errors).
    public var maxDevices = Int.max

    /// 7 days, in seconds.
    public static let defaultMaxClockJump: TimeInterval = 7 * 86_400

    public init(margin: Double = 0, dwell: Double = 0, maxAccuracy: Double? = nil, initialFire: Bool = false,
                floatingTimeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current, now: Date? = nil,
                deviceSettings: [String: NotificationSettings] = [:], defaultSettings: NotificationSettings = .authorized) {
        self.deviceSettings = deviceSettings
        self.defaultSettings = defaultSettings
        self.margin = margin
        self.dwell = dwell
        self.maxAccuracy = maxAccuracy
        self.initialFire = initialFire
        self.floatingTimeZone = floatingTimeZone
        self.now = now
    }
}

/// What a step of the clock does with several fires of one trigger that became due together.
public enum CatchUpPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every fire is delivered.
    case everyFire
    /// One delivery per trigger, dated at its latest due fire, carrying how many fires it
    /// stands for (a phone that was off shows one notification).
    case coalesced
}

/// Counters of a run, printed as the summary line.
@_spi(Engine) public struct StreamStats: Sendable, Hashable, Codable, CustomStringConvertible {
    public var lines = 0
    public var fixes = 0
    public var stale = 0
    /// Invalid fixes (negative accuracy).
    public var skipped = 0
    /// Fixes less accurate than `--max-accuracy` (counted in `fixes`, not in `skipped`).
    public var inaccurate = 0
    public var errors = 0
    public var fires = 0
    /// Fires not delivered because the device has not authorized notifications.
    public var suppressed = 0
    /// Fixes that an accuracy rule (``FenceAccuracy``) kept from moving a fence: less accurate
    /// than its maximum, where an exact fix would have entered or left it (the margin
    /// applied). A fix far from every fence it is too inaccurate for is not counted.
    public var ignoredAccuracy = 0

    public init() {}

    public var description: String {
        "lines \(lines), fixes \(fixes), stale \(stale), skipped \(skipped), errors \(errors), fires \(fires)"
            + (suppressed > 0 ? ", suppressed \(suppressed)" : "")
            + (ignoredAccuracy > 0 ? ", ignored-accuracy \(ignoredAccuracy)" : "")
    }

    private enum CodingKeys: String, CodingKey {
        case lines, fixes, stale, skipped, inaccurate, errors, fires, suppressed, ignoredAccuracy
    }

    /// Reads stats saved by any release (fields added later default to 0).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lines = try c.decodeIfPresent(Int.self, forKey: .lines) ?? 0
        fixes = try c.decodeIfPresent(Int.self, forKey: .fixes) ?? 0
        stale = try c.decodeIfPresent(Int.self, forKey: .stale) ?? 0
        skipped = try c.decodeIfPresent(Int.self, forKey: .skipped) ?? 0
        inaccurate = try c.decodeIfPresent(Int.self, forKey: .inaccurate) ?? 0
        errors = try c.decodeIfPresent(Int.self, forKey: .errors) ?? 0
        fires = try c.decodeIfPresent(Int.self, forKey: .fires) ?? 0
        suppressed = try c.decodeIfPresent(Int.self, forKey: .suppressed) ?? 0
        ignoredAccuracy = try c.decodeIfPresent(Int.self, forKey: .ignoredAccuracy) ?? 0
    }
}
