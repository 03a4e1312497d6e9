/// One input line of `triggerkit run`, as the reader understood it.
@_spi(Engine) public enum StreamLine: Sendable, Hashable {
    /// A GPS fix: device id, time (epoch ms), position, horizontal accuracy in metres.
    case fix(Fix)
    /// A line with `t` only: advances the clock.
    case clock(Int64)
    /// A device's notification settings change at time `t`.
    case settings(device: String, t: Int64, NotificationSettings)
    /// A change of requests or categories at time `t` (see ``ControlLine``): the evaluator
    /// advances the clock and leaves the change to its owner (``StreamEvaluator/takeControl()``).
    case control(t: Int64, ControlLine)

    /// Time of the line, epoch ms.
    public var time: Int64 {
        switch self {
        case .fix(let f): f.t
        case .clock(let t): t
        case .settings(_, let t, _): t
        case .control(let t, _): t
        }
    }
}

/// A GPS fix.
@_spi(Engine) public struct Fix: Sendable, Hashable {
    public var device: String
    /// Epoch milliseconds.
    public var t: Int64
    public var latitude: Double
    public var longitude: Double
    /// Metres; negative marks an invalid fix; `nil` when not given.
    public var accuracy: Double?

    public init(device: String = "", t: Int64, latitude: Double, longitude: Double, accuracy: Double? = nil) {
        self.device = device
        self.t = t
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
    }
}

/// Why a stream line was refused.
@_spi(Engine) public struct StreamLineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    /// (Control characters from the input are escaped: see ``DiagnosticText``.)
    public init(_ reason: String) { self.reason = DiagnosticText.escaped(reason) }
    public var description: String { reason }

    /// A fix rule broken, the field named by its key in the line (`"lat" must be in ...`).
    init(_ v: FixRules.Violation) { self.init("\"\(v.field.lineKey)\" \(v.reason)") }
}

/// A stream line that changes what is evaluated, so a whole session (schedule, fires, the
/// user's answer) replays from one file:
/// `{"t": ..., "add": {request}}`, `{"t": ..., "remove": ["id", ...]}`,
/// `{"t": ..., "respond": {"identifier": "id", "device": "d", "action": "cancel"}}`,
/// `{"t": ..., "categories": [category, ...]}`.
@_spi(Engine) public enum ControlLine: Sendable, Hashable {
    /// A request to add or replace, with the reader's warnings about it (unknown fields
    /// ignored), which `run` reports as it does a requests file's.
    case add(NotificationRequest, warnings: [String] = [])
    /// An `add` whose request (an object) was refused as it was read (a missing field or one
    /// of the wrong type, an unknown zone or calendar): reported in the request format, as a
    /// refusal by the validator is, and changing nothing. `identifier`: empty when it has none.
    case refusedAdd(identifier: String, RequestError)
    case remove([String])
    case respond(NotificationResponse)
    case categories([NotificationCategory])
}
