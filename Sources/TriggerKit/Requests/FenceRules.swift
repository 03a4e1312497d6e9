import Foundation

/// What a location trigger asks for beyond Apple's enter and exit: a dwell event fired by the
/// clock, decisions that respect each fix's accuracy, a calendar window in which the fence
/// is armed, and crossings detected between sparse fixes. All optional; a trigger without
/// rules behaves exactly as `UNLocationNotificationTrigger`.
///
/// The run-wide `--margin`, `--max-accuracy` and `--initial` apply to a fence with rules
/// too; the run-wide `--dwell` (crossing confirmation) does not: its own ``dwell`` is the
/// dwell it wants.
public struct FenceRules: Sendable, Hashable {
    /// An event once a device has stayed on one side for a duration.
    public var dwell: FenceDwell?
    /// Accuracy-aware decisions with a largest usable accuracy.
    public var accuracy: FenceAccuracy?
    /// When the fence is armed.
    public var window: FenceWindow?
    /// Whether a straight (geodesic) path between two consecutive fixes of a device, both
    /// outside, that passes through the fence yields an enter and an exit, dated by
    /// interpolation along the path.
    public var crossings: Bool

    /// Rules for a location trigger; every one is optional (``none`` has none).
    public init(dwell: FenceDwell? = nil, accuracy: FenceAccuracy? = nil, window: FenceWindow? = nil, crossings: Bool = false) {
        self.dwell = dwell
        self.accuracy = accuracy
        self.window = window
        self.crossings = crossings
    }

    /// No rules: Apple's plain trigger.
    public static let none = FenceRules()

    /// Whether no rule is set.
    package var isEmpty: Bool { dwell == nil && accuracy == nil && window == nil && !crossings }
}

/// Which side of a fence's boundary.
public enum FenceSide: String, Sendable, Hashable, CaseIterable {
    /// Inside the region (its boundary included).
    case inside
    /// Outside the region.
    case outside
}

/// A dwell: once a device has been on ``side`` for ``duration`` without interruption, a
/// `dwellInside` / `dwellOutside` event fires at exactly that moment, from the clock alone
/// (no further fix is needed). Leaving before then cancels it; the clock starts at the fix
/// that showed the side (the crossing, or the device's first fix for the request).
public struct FenceDwell: Sendable, Hashable {
    /// The side the device must stay on.
    public var side: FenceSide
    /// Seconds, in (0, 100 years].
    public var duration: TimeInterval

    /// A dwell of `duration` seconds on `side`.
    public init(side: FenceSide = .inside, duration: TimeInterval) {
        self.side = side
        self.duration = duration
    }
}

/// Accuracy-aware decisions: a fix with accuracy `a` metres counts as inside only when its
/// whole accuracy circle is inside (a circle: distance + a <= radius; a polygon: covered and
/// at least `a` from every edge), and outside only when the whole circle is outside
/// (distance - a > radius; not covered and more than `a` from every edge). In between the
/// fix decides nothing: the state, and any dwell, stay as they were. A fix less accurate
/// than ``maximum`` decides nothing either; when an exact fix there would have entered or left
/// the fence it is counted (`ignored-accuracy` in the run's summary: the fixes the rule kept
/// from moving a fence). A fix without `acc` counts as exact.
public struct FenceAccuracy: Sendable, Hashable {
    /// The largest usable accuracy, metres, in (0, 10,000].
    public var maximum: Double

    /// Accuracy-aware decisions, ignoring fixes less accurate than `maximum` metres.
    public init(maximum: Double) { self.maximum = maximum }

    /// The largest ``maximum`` accepted, in metres.
    public static let largestMaximum = 10_000.0
}

/// When a fence is armed. Outside its window a fence fires nothing (the device's state is
/// still followed, so the first event after opening is right). The window is half-open:
/// armed from an opening, not at its closing instant.
public struct FenceWindow: Sendable, Hashable {
    /// Weekly opening hours or explicit intervals.
    public var schedule: Schedule
    /// The zone of weekly hours; `nil` = floating (the run's `--time-zone`).
    public var timeZone: TimeZone?
    /// Whether a device already inside when the window opens gets an enter at the opening.
    public var enterAtOpening: Bool
    /// Whether a device inside when the window closes gets an exit at the closing.
    public var exitAtClosing: Bool

    /// A window on `schedule` (weekly hours in `timeZone`, or intervals).
    public init(schedule: Schedule, timeZone: TimeZone? = nil, enterAtOpening: Bool = false, exitAtClosing: Bool = false) {
        self.schedule = schedule
        self.timeZone = timeZone
        self.enterAtOpening = enterAtOpening
        self.exitAtClosing = exitAtClosing
    }

    /// The window's shape.
    public enum Schedule: Sendable, Hashable {
        /// Opens at `opens` on each of `weekdays` (1 = Sunday ... 7 = Saturday; all when
        /// empty) and closes at the next `closes` after that (so 22:00-06:00 runs overnight).
        /// Both are matched with the calendar engine's rules (a time in a DST gap moves by
        /// the gap, a repeated time counts at its first occurrence).
        case weekly(weekdays: [Int], opens: TimeOfDay, closes: TimeOfDay)
        /// Explicit intervals `[start, end)`, sorted, not overlapping.
        case intervals([DateInterval])
    }

    /// A wall-clock time.
    public struct TimeOfDay: Sendable, Hashable {
        /// 0-23.
        public var hour: Int
        /// 0-59.
        public var minute: Int
        /// 0-59.
        public var second: Int

        /// A time on the 24-hour clock (validated when the request is).
        public init(hour: Int, minute: Int = 0, second: Int = 0) {
            self.hour = hour
            self.minute = minute
            self.second = second
        }
    }

    /// Most intervals one window may list.
    public static let maximumIntervals = 10_000
}

/// Storage of rules in a trigger: one reference, so a trigger without rules costs 8 bytes
/// (a million location requests), and the rules are copied only when changed.
final class FenceRulesBox: Sendable {
    let rules: FenceRules
    init(_ rules: FenceRules) { self.rules = rules }
}
