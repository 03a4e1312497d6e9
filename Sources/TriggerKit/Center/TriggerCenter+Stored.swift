import Foundation

// What a center reads back from storage: kept as stored, even where these rules would now
// refuse it (an upgrade may tighten a rule; nothing accepted is lost), and said.

extension TriggerCenter {
    /// Requests the center holds that can never fire, each with why: requests restored from a
    /// snapshot (or a service's journal) that an earlier version accepted and this version's
    /// rules refuse, such as a polygon ring around a pole. They are kept as they were stored,
    /// so nothing accepted is lost, and ``pendingRequests(device:)`` lists them; replace or
    /// remove them. Empty for a center whose every request passed ``add(_:)``.
    ///
    /// - Complexity: O(requests refused); applies any changes recorded but not yet applied
    ///   (as the next step would), which is O(n) after a restore.
    public func refusedRequests() -> [(identifier: String, error: RequestError)] {
        let e = engine.current
        return engine.refused(e).map { (e.requests[Int($0.request)].identifier, RequestError(.invalidRegion, $0.reason, field: "trigger.region")) }
    }

    /// Adds `request` as it was stored (a journal's add, accepted when it was recorded),
    /// without the validator, as a snapshot's requests are restored: a rule tightened since
    /// must not drop it. A region the index refuses is listed by ``refusedRequests()``.
    /// Nothing happens after ``shutdown()``.
    package func add(stored request: NotificationRequest) {
        guard !isShutDown else { return }
        var r = request
        if r.addedAt == nil { r.addedAt = clock.now }
        engine.add(r, validated: false)
        wake()
    }

    /// Registers categories as they were stored (a journal's change), without
    /// ``NotificationCategory/validate(_:)``, as a snapshot's are restored: a category given
    /// twice counts as its last. Nothing happens after ``shutdown()``.
    package func setNotificationCategories(stored list: [NotificationCategory]) {
        guard !isShutDown else { return }
        categories = NotificationCategory.table(list)
    }
}
