import Foundation

/// Why a ``TriggerCenter`` could not be made.
public enum CenterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A ``CenterConfiguration`` value out of its range: the field's name, and what it must be
    /// (`margin`, "must be a number of metres in 0...100000, not nan").
    case invalidConfiguration(field: String, reason: String)
    /// A snapshot this build cannot restore: a newer format, or content that contradicts itself.
    case invalidSnapshot(SnapshotError)

    /// The field and what it must be, or what is wrong with the snapshot.
    public var description: String {
        switch self {
        case .invalidConfiguration(let field, let reason): "\(field) \(reason)"
        case .invalidSnapshot(let e): "snapshot: \(e.reason)"
        }
    }
}

extension CenterConfiguration {
    /// Checks every value against the range the engine supports (the same ranges
    /// `triggerkit run`'s options and `triggerkit serve`'s configuration are held to):
    ///
    /// | field | accepted |
    /// |---|---|
    /// | ``margin`` | 0...100,000 metres |
    /// | ``dwell`` | 0...31,622,400 seconds (366 days) |
    /// | ``catchUpWindow`` | 0...3,155,760,000 seconds (100 years) |
    /// | ``maxAccuracy`` | nil, or a finite number of metres >= 0 |
    /// | ``maxFixLead`` | >= 0 seconds (`.infinity`: no limit) |
    /// | ``deliveredLimitPerDevice`` | 0...100,000 (0: no history) |
    /// | ``deliveryBufferLimit`` | 1...1,048,576 |
    /// | ``maxDevices`` | 1...100,000,000 |
    /// | ``maxRequests`` | 1...100,000,000 |
    ///
    /// ``TriggerCenter``'s initializers call it.
    /// - Throws: ``CenterError/invalidConfiguration(field:reason:)`` naming the first field out
    ///   of range.
    public func validate() throws(CenterError) {
        try OptionRules.margin(margin, field: "margin")
        try OptionRules.seconds(dwell, field: "dwell")
        if let a = maxAccuracy { try OptionRules.accuracy(a, field: "maxAccuracy") }
        guard OptionRules.windows.contains(catchUpWindow) else {
            throw .invalidConfiguration(field: "catchUpWindow", reason: "must be a number of seconds in 0...3155760000 (100 years), not \(catchUpWindow)")
        }
        guard !maxFixLead.isNaN, maxFixLead >= 0 else {
            throw .invalidConfiguration(field: "maxFixLead", reason: "must be a number of seconds >= 0 (.infinity: no limit), not \(maxFixLead)")
        }
        try OptionRules.count(deliveredLimitPerDevice, in: 0...OptionRules.maxDeliveredPerDevice, field: "deliveredLimitPerDevice")
        try OptionRules.count(deliveryBufferLimit, in: 1...OptionRules.maxDeliveryBuffer, field: "deliveryBufferLimit")
        try OptionRules.count(maxDevices, in: 1...OptionRules.maxDevices, field: "maxDevices")
        // As a request's zone: ICU's legacy IDs are refused (`BST` is Dhaka's).
        if ZoneNames.zone(named: floatingTimeZone.identifier) == nil {
            throw .invalidConfiguration(field: "floatingTimeZone", reason: ZoneNames.why(floatingTimeZone.identifier))
        }
        try OptionRules.count(maxRequests, in: 1...OptionRules.maxRequests, field: "maxRequests")
    }
}

/// The ranges of the evaluation options, one set for every way in: ``CenterConfiguration``,
/// `triggerkit run`'s flags (named `--margin`...) and `triggerkit serve`'s configuration.
package enum OptionRules {
    /// Hysteresis beyond 100 km is no hysteresis: every circle would be refused.
    package static let margins = 0.0...100_000
    /// Dwell: up to a year (366 days).
    package static let durations = 0.0...31_622_400
    /// Catch-up windows: up to the longest clock jump a stream may be allowed (100 years).
    package static let windows = 0.0...3_155_760_000
    package static let maxDeliveredPerDevice = 100_000
    package static let maxDeliveryBuffer = 1 << 20
    /// Devices a center or a `serve` tenant may be allowed (the center numbers them in 32 bits).
    package static let maxDevices = 100_000_000
    /// Requests a center or a `serve` tenant may be allowed (the engine numbers them in 32 bits).
    package static let maxRequests = 100_000_000

    package static func margin(_ v: Double, field: String) throws(CenterError) {
        guard margins.contains(v) else { throw .invalidConfiguration(field: field, reason: "must be a number of metres in 0...100000, not \(v)") }
    }

    package static func seconds(_ v: Double, field: String) throws(CenterError) {
        guard durations.contains(v) else { throw .invalidConfiguration(field: field, reason: "must be a number of seconds in 0...31622400 (366 days), not \(v)") }
    }

    package static func accuracy(_ v: Double, field: String) throws(CenterError) {
        guard v.isFinite, v >= 0 else { throw .invalidConfiguration(field: field, reason: "must be a finite number >= 0 (metres), not \(v)") }
    }

    package static func count(_ v: Int, in range: ClosedRange<Int>, field: String) throws(CenterError) {
        guard range.contains(v) else { throw .invalidConfiguration(field: field, reason: "must be in \(range.lowerBound)...\(range.upperBound), not \(v)") }
    }
}
