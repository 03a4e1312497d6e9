import Foundation

extension RequestValidation {
    /// A request added at `now` to a live set (``TriggerCenter/add(_:)``, an `add` line of
    /// `run`'s stream): `addedAt` defaults to `now`, the validator runs with the device's
    /// current settings, and a category not among `categories` gives a warning. One
    /// admission for every way a request is added while time runs.
    ///
    /// - Returns: the request as it is kept (``NotificationRequest/canonical``) and the warnings.
    /// The warning for a request naming a category that is not registered (the same words
    /// for an add, a stream `add` line and a requests file read with `run --categories`).
    package static func unregisteredCategory(_ identifier: String) -> String {
        "category \"\(identifier)\" is not registered: its actions have no effect"
    }

    package static func admit(_ request: NotificationRequest, at now: Date, options base: ValidationOptions,
                              settings: NotificationSettings?, categories: [ExactKey: NotificationCategory])
        throws(RequestError) -> (request: NotificationRequest, warnings: [String]) {
        var r = request
        if r.addedAt == nil { r.addedAt = now }
        var v = base
        v.now = now
        if let d = r.device, let settings { v.deviceSettings[d] = settings }
        try validate(r, options: v)
        var warnings: [String] = []
        if let c = r.content.categoryIdentifier, categories[ExactKey(c)] == nil {
            warnings.append(unregisteredCategory(c))
        }
        // (After the validator: it refuses a NaN, which rounding would clamp to a date.)
        return (r.canonical, warnings)
    }
}
