import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A calendar case of the Foundation-agreement suites: components, the zone they are read in
/// and the reference instant (ISO 8601) the next date is asked after.
struct ZoneCase: Sendable, CustomStringConvertible, CustomTestStringConvertible {
    let zone: String
    let components: DateComponents
    let after: String

    init(zone: String, components: DateComponents, after: String) {
        self.zone = zone
        self.components = components
        self.after = after
    }

    init(_ zone: String, _ components: DateComponents, after: String) {
        self.init(zone: zone, components: components, after: after)
    }

    var description: String { "\(zone) \(CalendarFeasibility.describe(components)) after \(after)" }
    var testDescription: String { description }
}
