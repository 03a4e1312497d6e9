import Foundation

/// What validation of a request needs beyond the request itself.
public struct ValidationOptions: Sendable {
    /// Reference instant for requests without `addedAt` (the contract's "now"); `nil` means
    /// the current time.
    public var now: Date?
    /// Zone that floating calendar triggers follow.
    public var floatingTimeZone: TimeZone

    /// Per-device notification settings; devices not listed get ``defaultSettings``.
    public var deviceSettings: [String: NotificationSettings]
    /// Settings of devices not in ``deviceSettings``.
    public var defaultSettings: NotificationSettings

    public init(now: Date? = nil, floatingTimeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current,
                deviceSettings: [String: NotificationSettings] = [:], defaultSettings: NotificationSettings = .authorized) {
        self.now = now
        self.floatingTimeZone = floatingTimeZone
        self.deviceSettings = deviceSettings
        self.defaultSettings = defaultSettings
    }
}

/// Checks that need more than one field: whether a calendar trigger can fire at all.
public enum RequestValidation {
    /// Throws when the request can never fire (`notificationInvalidNoDate`).
    public static func validate(_ request: NotificationRequest, options: ValidationOptions) throws(RequestError) {
        if let device = request.device {
            let status = (options.deviceSettings[device] ?? options.defaultSettings).authorizationStatus
            guard status.allowsDelivery else {
                throw RequestError(.notificationsNotAllowed, "device \"\(device)\" has not authorized notifications (authorizationStatus \(status.rawValue))")
            }
        }
        guard case .calendar(let trigger) = request.trigger else { return }
        let reference = request.addedAt ?? options.now ?? Date()
        if let reason = CalendarFeasibility.noDateReason(trigger, after: reference, floatingTimeZone: options.floatingTimeZone) {
            throw RequestError(.notificationInvalidNoDate, reason)
        }
    }
}
