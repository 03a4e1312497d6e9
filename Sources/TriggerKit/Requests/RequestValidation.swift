import Foundation

/// What validation of a request needs beyond the request itself.
public struct ValidationOptions: Sendable {
    /// Reference instant for requests without `addedAt` (the contract's "now"); `nil` means
    /// the current time.
    public var now: Date?
    /// Zone that floating calendar triggers follow.
    public var floatingTimeZone: TimeZone

    public init(now: Date? = nil, floatingTimeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current) {
        self.now = now
        self.floatingTimeZone = floatingTimeZone
    }
}

/// Checks that need more than one field: whether a calendar trigger can fire at all.
public enum RequestValidation {
    /// Throws when the request can never fire (`notificationInvalidNoDate`).
    public static func validate(_ request: NotificationRequest, options: ValidationOptions) throws(RequestError) {
        guard case .calendar(let trigger) = request.trigger else { return }
        let reference = request.addedAt ?? options.now ?? Date()
        if let reason = CalendarFeasibility.noDateReason(trigger, after: reference, floatingTimeZone: options.floatingTimeZone) {
            throw RequestError(.notificationInvalidNoDate, reason)
        }
    }
}
