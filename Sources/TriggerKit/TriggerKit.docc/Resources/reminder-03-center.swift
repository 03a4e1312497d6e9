import Foundation
import TriggerKit

/// The center that holds every reminder of the service and decides when each one fires.
///
/// It runs on the clock it is given: the demo passes a `ManualClock`, which moves only when
/// told to; a real service passes `WallClock()`.
func makeCenter(clock: any TriggerClock) throws -> TriggerCenter {
    var configuration = CenterConfiguration()
    configuration.margin = 10  // metres of hysteresis around every circle
    configuration.floatingTimeZone = TimeZone(identifier: "Europe/Paris")!
    // Throws for a value out of range (a negative margin...), naming the field.
    return try TriggerCenter(configuration: configuration, clock: clock)
}
