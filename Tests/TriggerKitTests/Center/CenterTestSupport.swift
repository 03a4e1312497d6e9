import Foundation
@_spi(Engine) @testable import TriggerKit

/// A ``TriggerCenter`` on a ``ManualClock`` starting at 2026-11-27T09:00:00Z, with the calls
/// tests make: moving the clock delivers what became due.
struct Center {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)
    let clock: ManualClock
    let center: TriggerCenter

    init(catchUp: CatchUpPolicy = .everyFire, defaultSettings: NotificationSettings = .authorized,
         deliveredLimit: Int = 100, bufferLimit: Int = 4096) {
        var c = CenterConfiguration()
        c.catchUp = catchUp
        c.defaultSettings = defaultSettings
        c.deliveredLimitPerDevice = deliveredLimit
        c.deliveryBufferLimit = bufferLimit
        clock = ManualClock(Self.t0)
        // The tests' values are in range (the ranges' own tests make centers themselves).
        center = try! TriggerCenter(configuration: c, clock: clock)
    }

    /// A center on a manual clock at ``t0``, its configuration set by `configure` (for the
    /// tests of its bounds, which must be able to fail validation).
    static func configured(_ configure: (inout CenterConfiguration) -> Void) throws -> (TriggerCenter, ManualClock) {
        var c = CenterConfiguration()
        configure(&c)
        let clock = ManualClock(t0)
        return (try TriggerCenter(configuration: c, clock: clock), clock)
    }

    /// Wraps an existing center and its clock.
    init(wrapping center: TriggerCenter, clock: ManualClock) {
        self.clock = clock
        self.center = center
    }

    @discardableResult
    func add(_ r: NotificationRequest) async throws(RequestError) -> [String] { try await center.add(r) }

    /// Moves the clock to `date` and delivers what became due.
    @discardableResult
    func advance(to date: Date) async -> [DeliveredNotification] {
        clock.advance(to: date)
        return await center.deliverDue()
    }

    /// Moves the clock to the fix's date (when later) and gives it the fix.
    @discardableResult
    func receive(_ fix: LocationFix) async throws(FixError) -> [DeliveredNotification] {
        clock.advance(to: fix.date)
        return try await center.receive(fix)
    }

    func pendingRequests() async -> [NotificationRequest] { await center.pendingRequests() }
    func removePendingRequests(withIdentifiers ids: [String]) async { await center.removePendingRequests(withIdentifiers: ids) }
    func removeAllPendingRequests() async { await center.removeAllPendingRequests() }
    func deliveredNotifications() async -> [DeliveredNotification] { await center.deliveredNotifications() }
    func removeDeliveredNotifications(withIdentifiers ids: [String]) async { await center.removeDeliveredNotifications(withIdentifiers: ids) }
    func removeAllDeliveredNotifications() async { await center.removeAllDeliveredNotifications() }
    func setNotificationSettings(_ s: NotificationSettings, forDevice d: String) async throws(SettingsError) {
        try await center.setNotificationSettings(s, forDevice: d)
    }
}
