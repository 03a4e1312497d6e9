import Foundation

/// A request to deliver a notification when its trigger fires: Apple's
/// `UNNotificationRequest`, plus the server-side fields `device` and `addedAt`.
public struct NotificationRequest: Sendable, Hashable {
    /// Unique key of the request; adding another request with it replaces this one.
    public var identifier: String
    /// What the notification shows.
    public var content: NotificationContent
    /// When it fires; ``NotificationTrigger/immediate`` when the request has no trigger.
    public var trigger: NotificationTrigger
    /// The device whose fixes this request sees; `nil` = shared, evaluated for every device.
    public var device: String?
    /// When the request was scheduled; `nil` = the run's `--now`, else its first instant.
    public var addedAt: Date?
    /// When the request is removed as if by ``TriggerCenter/removePendingRequests(withIdentifiers:)``
    /// (Radar's `disableAfter`): nothing of it fires at or after this instant. `nil` = never.
    public var expiresAt: Date? {
        get { expiryBits == Self.noExpiry ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: expiryBits)) }
        set { expiryBits = newValue.map { $0.timeIntervalSinceReferenceDate.bitPattern } ?? Self.noExpiry }
    }
    /// ``expiresAt`` in 8 bytes (a `Date?` takes 16 in this struct, a million requests 8 MB
    /// more): the date's bits, or a NaN no date arithmetic produces for `nil` (any other
    /// value, NaN included, is kept as given for the validator to judge).
    private var expiryBits: UInt64 = NotificationRequest.noExpiry
    private static let noExpiry: UInt64 = Double(nan: 0x544B, signaling: false).bitPattern

    /// A request; `addedAt` nil is set when it is added (the center's clock, `run`'s stream), and `device` nil shares it with every device.
    public init(identifier: String, content: NotificationContent, trigger: NotificationTrigger = .immediate,
                device: String? = nil, addedAt: Date? = nil, expiresAt: Date? = nil) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        self.device = device
        self.addedAt = addedAt
        self.expiryBits = expiresAt.map { $0.timeIntervalSinceReferenceDate.bitPattern } ?? Self.noExpiry
    }
}

/// What a notification shows: Apple's `UNNotificationContent`.
public struct NotificationContent: Sendable, Hashable {
    /// The title (at least one of title, subtitle, body, sound, badge is needed).
    public var title: String?
    /// A line below the title.
    public var subtitle: String?
    /// The message text.
    public var body: String?
    /// `"default"` for the default sound, else the name of a sound file.
    public var sound: String?
    /// The app badge number to show (>= 0).
    public var badge: Int?
    /// The category whose actions apply (``NotificationCategory``); a name not registered only warns.
    public var categoryIdentifier: String?
    /// Groups notifications, as Apple's thread identifier.
    public var threadIdentifier: String?
    /// Any JSON object the sender attaches.
    public var userInfo: [String: JSONValue]?

    /// Content with the given fields; the validator needs at least one of title, subtitle, body, sound, badge.
    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, sound: String? = nil,
                badge: Int? = nil, categoryIdentifier: String? = nil, threadIdentifier: String? = nil,
                userInfo: [String: JSONValue]? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.badge = badge
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.userInfo = userInfo
    }

    /// Whether anything would be presented: Apple refuses content without title, subtitle,
    /// body, sound or badge (`UNErrorCodeNotificationInvalidNoContent`).
    package var hasPresentableContent: Bool {
        title != nil || subtitle != nil || body != nil || sound != nil || badge != nil
    }
}

/// When a request fires.
public enum NotificationTrigger: Sendable, Hashable {
    /// No trigger: delivered once, the moment the request is added.
    case immediate
    /// A date matching components (`UNCalendarNotificationTrigger`). Boxed: `DateComponents`
    /// is large, and unboxed it would set the size of every request (1,000,000 location
    /// requests took 1.25 GB instead of 0.78 GB).
    indirect case calendar(CalendarTrigger)
    /// A delay after scheduling (`UNTimeIntervalNotificationTrigger`).
    case timeInterval(TimeIntervalTrigger)
    /// Entering or leaving a region (`UNLocationNotificationTrigger`).
    case location(LocationTrigger)

    /// Whether the trigger fires more than once.
    public var repeats: Bool {
        switch self {
        case .immediate: false
        case .calendar(let t): t.repeats
        case .timeInterval(let t): t.repeats
        case .location(let t): t.repeats
        }
    }

    /// The kind's name as written in output (`"calendar"`, `"timeInterval"`, `"location"`, `"immediate"`).
    public var kind: TriggerKind {
        switch self {
        case .immediate: .immediate
        case .calendar: .calendar
        case .timeInterval: .timeInterval
        case .location: .location
        }
    }
}

/// The four kinds of trigger, by their names in the contract's JSON.
public enum TriggerKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// ``CalendarTrigger``, ``TimeIntervalTrigger``, ``LocationTrigger``, or none (at once).
    case calendar, timeInterval, location, immediate
}

/// Fires a given number of seconds after the request was added: Apple's
/// `UNTimeIntervalNotificationTrigger`.
///
/// Fire dates have millisecond resolution, as every date TriggerKit keeps: the k-th fire is
/// `addedAt + k * timeInterval` rounded to the millisecond, with an interval under 1 ms taken
/// as 1 ms (0.0004 s fires 1 ms after `addedAt`).
public struct TimeIntervalTrigger: Sendable, Hashable {
    /// Seconds after `addedAt` of the first fire, and between fires when repeating.
    public var timeInterval: TimeInterval
    /// Whether it fires every `timeInterval` seconds (then at least 60).
    public var repeats: Bool

    /// A trigger `timeInterval` seconds after `addedAt` (> 0; >= 60 when repeating).
    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        self.repeats = repeats
    }
}

/// Fires on the next date matching `dateComponents`: Apple's `UNCalendarNotificationTrigger`.
///
/// `dateComponents.timeZone == nil` makes the trigger floating: it follows the evaluating
/// engine's current zone. `dateComponents.calendar == nil` means the Gregorian calendar
/// with `firstWeekday` 1 and `minimumDaysInFirstWeek` 1.
public struct CalendarTrigger: Sendable, Hashable {
    /// The components a fire date matches (their zone and calendar included).
    public var dateComponents: DateComponents
    /// Whether it fires at every match (else at the next one only).
    public var repeats: Bool

    /// A trigger on the dates matching `dateComponents`, once or every match.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        self.repeats = repeats
    }
}
