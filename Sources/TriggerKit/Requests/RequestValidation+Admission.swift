import Foundation

extension RequestValidation {
    /// The warning for a request naming a category that is not registered (the same words
    /// for an add, a stream `add` line and a requests file read with `run --categories`).
    package static func unregisteredCategory(_ identifier: String) -> String {
        "category \"\(identifier)\" is not registered: its actions have no effect"
    }

    /// The warning for a region that notifies neither entry nor exit and has no dwell: it
    /// never fires (Apple takes such a region too, and it never fires there either).
    package static func silentRegionWarning(_ t: LocationTrigger) -> String? {
        guard !t.region.notifyOnEntry, !t.region.notifyOnExit, t.rules.dwell == nil else { return nil }
        return "region \"\(t.region.identifier)\" has notifyOnEntry and notifyOnExit both false: it never fires"
    }

    /// `reader`'s warnings followed by those of `center` it does not already say.
    package static func uniqueWarnings(_ reader: [String], _ center: [String]) -> [String] {
        reader + center.filter { !reader.contains($0) }
    }

    /// A request added at `now` to a live set (``TriggerCenter/add(_:)``, an `add` line of
    /// `run`'s stream, `serve`): `addedAt` defaults to `now`, the validator runs with the
    /// device's current settings, and a category not among `categories` gives a warning. One
    /// admission for every way a request is added while time runs.
    ///
    /// - Returns: the request as it is kept (``NotificationRequest/canonical``) and the warnings.
    package static func admit(_ request: NotificationRequest, at now: Date, options base: ValidationOptions,
                              settings: NotificationSettings?, categories: [ExactKey: NotificationCategory])
        throws(RequestError) -> (request: NotificationRequest, warnings: [String]) {
        var v = base
        v.now = now
        if let d = request.device, let settings { v.deviceSettings[d] = settings }
        // Validated as given, `now` its reference: a refusal about the instant it is added says
        // so, as a requests file's does (it named an "addedAt" the request did not have).
        try validate(request, options: v)
        var r = request
        if r.addedAt == nil { r.addedAt = now }
        var warnings: [String] = []
        // Said by the JSON reader too; a request made in code is told here (a service that
        // reads JSON and adds sees it once: ``uniqueWarnings(_:_:)``).
        if case .location(let t) = r.trigger, let silent = silentRegionWarning(t) { warnings.append(silent) }
        if let c = r.content.categoryIdentifier, categories[ExactKey(c)] == nil {
            warnings.append(unregisteredCategory(c))
        }
        // (After the validator: it refuses a NaN, which rounding would clamp to a date.)
        return (r.canonical, warnings)
    }
}
