/// Why a request was refused: codes named after `UNError.Code` where one fits.
public enum RequestErrorCode: String, Sendable, Hashable, CaseIterable {
    /// A calendar trigger that can never fire after its reference date.
    case notificationInvalidNoDate
    /// Content with none of title, subtitle, body, sound, badge.
    case notificationInvalidNoContent
    /// The target device has not authorized notifications.
    case notificationsNotAllowed
    /// A malformed or unsupported trigger.
    case invalidTrigger
    /// A malformed region of a location trigger.
    case invalidRegion
    /// Anything else wrong with a request (not an object, missing identifier, bad field).
    case invalidRequest
    /// A ``TriggerCenter`` that already holds ``CenterConfiguration/maxRequests`` requests
    /// refused a new identifier (replacing a held one is never refused). Not one of
    /// `UNError.Code`: a phone keeps its 64 soonest requests and drops the others silently,
    /// which a server holding many devices' requests must not do.
    case tooManyRequests
    /// A device-scoped request naming a device the center does not know, refused because the
    /// center keeps ``CenterConfiguration/maxDevices`` devices already (`run`: an `add` line,
    /// past `--max-devices`). Devices named by requests were taken without a check, so a
    /// stream of one-shot requests for new devices grew the devices, and their delivered
    /// histories, without bound.
    case tooManyDevices
}

/// A request that was refused, with the code and a message a person understands.
public struct RequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal (named after `UNError.Code` where one fits).
    public var code: RequestErrorCode
    /// What is wrong, naming the field (one line).
    public var message: String
    /// The field the refusal is about, for a program to read: its path in the request's JSON
    /// form, members joined by `.` and array positions in brackets from 0
    /// (`trigger.region.radius`, `trigger.window.intervals[2]`,
    /// `trigger.region.geometry.coordinates[0][3]`, `content.userInfo.tags[1]`; a member name
    /// is written as it is, so one holding `.` or `[` reads ambiguously). A missing member is
    /// named by its own path. Nil when the refusal is about no one field: a request that is
    /// not a JSON object, the bound on the requests a center or stream holds, a shut-down
    /// center. (A new device past the bound on devices names `device`.)
    public var field: String?

    /// A refusal; control characters in `message` (from the input it quotes) are escaped as
    /// `\u{XX}`, so it stays one line wherever it is printed. `field`: see ``field``.
    public init(_ code: RequestErrorCode, _ message: String, field: String? = nil) {
        self.code = code
        self.message = DiagnosticText.escaped(message)
        self.field = field.map(DiagnosticText.escaped)
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// `holder` (the center, the stream) holds `limit` requests, its limit named by `option`,
    /// and `identifier` is new: one phrase for the center and `run`.
    package static func overRequestLimit(_ holder: String, limit: Int, option: String, identifier: String) -> RequestError {
        RequestError(.tooManyRequests, "\(holder) holds \(limit) request\(limit == 1 ? "" : "s"), its limit (\(option)): \(identifier) is new")
    }
}
