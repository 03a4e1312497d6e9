import Foundation
@_spi(Engine) import TriggerKit

// What goes into a tenant (``Tenant/apply(_:)``) and what each input did.

/// One change or fix for a tenant, already read and shape-checked (the center validates).
enum TenantInput: Sendable {
    /// A change, journaled as its JSON.
    case change(TenantChange)
    /// A fix with the line it came from (journaled verbatim).
    case fix(LocationFix, line: ArraySlice<UInt8>)
    /// Wall mode: deliver what the clock made due (journaled as a marker when it did).
    case tick

    static func add(_ r: NotificationRequest) -> Self { .change(.add(r)) }
    static func remove(_ ids: [String]) -> Self { .change(.remove(ids)) }
    static func removeDelivered(_ ids: [String]?) -> Self { .change(.removeDelivered(ids)) }
    static func removeDelivered(device: String) -> Self { .change(.removeDeliveredOfDevice(device)) }
    static func settings(device: String, _ s: NotificationSettings) -> Self { .change(.settings(device: device, s)) }
    static func categories(_ list: [NotificationCategory]) -> Self { .change(.categories(list)) }
    static func respond(_ r: NotificationResponse) -> Self { .change(.respond(r)) }
    static func clock(_ d: Date) -> Self { .change(.clock(d)) }
}

/// A change of a tenant's requests, history, settings, categories or (stream mode) clock.
enum TenantChange: Sendable, Codable {
    case add(NotificationRequest)
    case remove([String])
    case removeDelivered([String]?)
    /// One device's own deliveries (``TriggerCenter/removeAllDeliveredNotifications(device:)``).
    case removeDeliveredOfDevice(String)
    case settings(device: String, NotificationSettings)
    case categories([NotificationCategory])
    case respond(NotificationResponse)
    /// Stream mode: move the clock.
    case clock(Date)
}

/// What one input did.
enum TenantOutcome: Sendable {
    case ok(warnings: [String])
    /// A fix older than its device's latest: recorded, changed nothing.
    case stale
    case responded(ResponseOutcome)
    case rejected(APIError)
}
