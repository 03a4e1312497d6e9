import Foundation

/// The one set of rules a location fix is held to, whichever way it comes in: a line of
/// `run`'s stream or of `POST /v1/fixes` (``StreamLineParser``), or a ``LocationFix`` given to
/// ``TriggerCenter/receive(_:)``. Each way in names the field at fault in its own words (`"lat"`
/// in a line, `latitude` in a ``LocationFix``); the rule and its reason are the same.
///
/// (The byte-level fast path of ``StreamLineParser`` only recognizes lines that keep these
/// rules; any other line goes to the full parser, which asks here.)
enum FixRules {
    typealias Field = FixError.Field

    /// A rule broken: the field and why (a phrase that follows the field's name).
    struct Violation: Sendable, Equatable {
        var field: Field
        var reason: String
    }

    /// The first rule a fix's device id, position and accuracy break, if any. (Its date is
    /// checked where it is read: ``unsupportedDate(_:)``.)
    static func violation(deviceUTF8Count: Int, latitude: Double, longitude: Double, accuracy: Double?) -> Violation? {
        deviceViolation(utf8Count: deviceUTF8Count) ?? positionViolation(latitude: latitude, longitude: longitude, accuracy: accuracy)
    }

    /// The device id rule: for fixes, and for every other input that names a device (stream
    /// lines, requests, settings).
    static func deviceViolation(utf8Count: Int) -> Violation? {
        utf8Count > RequestLimits.maximumIdentifierBytes
            ? Violation(field: .device, reason: "is longer than \(RequestLimits.maximumIdentifierBytes) UTF-8 bytes") : nil
    }

    /// The position and accuracy rules.
    static func positionViolation(latitude: Double, longitude: Double, accuracy: Double?) -> Violation? {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            return Violation(field: .latitude, reason: "must be in [-90, 90], not \(show(latitude))")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            return Violation(field: .longitude, reason: "must be in [-180, 180], not \(show(longitude))")
        }
        // Finite, as any JSON number is: an infinite accuracy made in code counted as exact
        // enough for a plain region (a helper embedding the library).
        if let a = accuracy, !a.isFinite {
            return Violation(field: .horizontalAccuracy, reason: "must be a finite number (metres; negative marks an invalid fix), not \(show(a))")
        }
        return nil
    }

    /// The date rule broken by a date read as `shown` (its text in the input). The rule itself
    /// is ``RequestLimits/isSupported(_:)`` (or its form in milliseconds), for every way in.
    static func unsupportedDate(_ shown: String) -> Violation {
        Violation(field: .date, reason: "must be within the supported dates (0001-01-01 to 9999-12-31), not \(shown)")
    }

    /// A number as JSON writes it where it can (`91`, not `91.0`), else Swift's spelling.
    static func show(_ x: Double) -> String {
        x.isFinite ? NotificationRequest.show(.number(x)) : "\(x)"
    }
}

extension FixError.Field {
    /// The field's key in a stream line.
    var lineKey: String {
        switch self {
        case .device: "device"
        case .date: "t"
        case .latitude: "lat"
        case .longitude: "lon"
        case .horizontalAccuracy: "acc"
        }
    }
}
