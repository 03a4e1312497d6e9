import Foundation

/// A delivered notification: a request whose trigger fired, with how it is presented.
/// Apple's `UNNotification`, plus the device and crossing of location fires.
public struct DeliveredNotification: Sendable, Hashable {
    public var request: NotificationRequest
    public var date: Date
    public var trigger: TriggerKind
    /// Enter or exit, for location fires.
    public var crossing: Crossing?
    public var device: String?
    public var region: String?
    public var presentation: Presentation
    /// The contract's `eventId`: the same fire always has the same id.
    public var eventId: String
}

/// The notification center an embedding service uses: Apple's `UNUserNotificationCenter`
/// for many devices. Add, replace and remove requests, advance the clock, feed fixes, and
/// receive deliveries as values or through ``deliveries``.
///
/// An actor, so it is safe to use from many tasks. Adding or removing requests re-plans
/// lazily, once before the next clock step or fix, keeping every other request's state.
public actor NotificationCenter {
    private var requests: [NotificationRequest] = []
    private var evaluator: StreamEvaluator
    private var fresh: Set<String> = []
    private var needsRebuild = false
    private var delivered: [DeliveredNotification] = []
    private var validation: ValidationOptions
    private let continuation: AsyncStream<DeliveredNotification>.Continuation
    private var scratch: [FiredEvent] = []

    /// Every delivery, as it happens (buffered without limit until consumed).
    public nonisolated let deliveries: AsyncStream<DeliveredNotification>

    /// A center with no requests. `options.now`, when set, is the clock's start.
    public init(options: StreamOptions = .init()) {
        var options = options
        options.maxClockJump = nil
        evaluator = StreamEvaluator(requests: [], options: options)
        validation = ValidationOptions(now: options.now, floatingTimeZone: options.floatingTimeZone,
                                       deviceSettings: options.deviceSettings, defaultSettings: options.defaultSettings)
        (deliveries, continuation) = AsyncStream.makeStream(of: DeliveredNotification.self)
    }

    /// The center's clock: the latest instant it was advanced to, if any.
    public var now: Date? { evaluator.streamTime.map(Timestamp.date(millis:)) }

    /// Adds a request, replacing any pending one with the same identifier (its trigger state
    /// starts afresh). A request without `addedAt` is added at the center's clock (or the
    /// current time before the first step).
    ///
    /// - Throws: ``RequestError``: `notificationInvalidNoDate` for a calendar trigger that can
    ///   never fire, `notificationsNotAllowed` for a device that has not authorized.
    public func add(_ request: NotificationRequest) throws(RequestError) {
        var r = request
        if r.addedAt == nil { r.addedAt = now ?? Date() }
        var v = validation
        v.deviceSettings = v.deviceSettings.merging(currentSettings(for: r.device)) { $1 }
        try RequestValidation.validate(r, options: v)
        if let i = requests.firstIndex(where: { $0.identifier.isExactly(r.identifier) }) {
            requests.remove(at: i)
            fresh.insert(r.identifier)
        }
        requests.append(r)
        needsRebuild = true
    }

    private func currentSettings(for device: String?) -> [String: NotificationSettings] {
        guard let device else { return [:] }
        return [device: evaluator.settings(forDevice: device)]
    }

    /// Requests that can still fire, in the order they were added.
    public func pendingRequests() -> [NotificationRequest] {
        rebuildIfNeeded()
        let flags = evaluator.pendingFlags()
        return requests.indices.filter { flags[$0] }.map { requests[$0] }
    }

    /// Removes pending requests; their triggers stop at once.
    public func removePendingRequests(withIdentifiers ids: [String]) {
        let gone = Set(ids)
        requests.removeAll { gone.contains($0.identifier) }
        fresh.subtract(gone)
        needsRebuild = true
    }

    /// Removes every pending request.
    public func removeAllPendingRequests() {
        requests.removeAll()
        fresh.removeAll()
        needsRebuild = true
    }

    /// Notifications delivered so far and not removed, oldest first.
    public func deliveredNotifications() -> [DeliveredNotification] { delivered }

    /// Removes delivered notifications of these requests.
    public func removeDeliveredNotifications(withIdentifiers ids: [String]) {
        let gone = Set(ids)
        delivered.removeAll { gone.contains($0.request.identifier) }
    }

    /// Removes every delivered notification.
    public func removeAllDeliveredNotifications() { delivered.removeAll() }

    /// A device's current notification settings.
    public func notificationSettings(forDevice device: String) -> NotificationSettings {
        evaluator.settings(forDevice: device)
    }

    /// Changes a device's notification settings from now on.
    public func setNotificationSettings(_ settings: NotificationSettings, forDevice device: String) {
        evaluator.setSettings(settings, forDevice: device)
        validation.deviceSettings[device] = settings
    }

    /// Changes the zone floating calendar triggers follow; they are re-planned from now.
    public func setFloatingTimeZone(_ zone: TimeZone) {
        rebuildIfNeeded()
        evaluator.setFloatingTimeZone(zone)
    }

    /// Advances the clock, delivering every time-based fire up to `date`.
    @discardableResult
    public func advance(to date: Date) -> [DeliveredNotification] {
        step(.clock(Timestamp.millis(date)))
    }

    /// Feeds one fix (advancing the clock to its time first).
    @discardableResult
    public func receive(_ fix: Fix) -> [DeliveredNotification] {
        step(.fix(fix))
    }

    private func step(_ line: StreamLine) -> [DeliveredNotification] {
        rebuildIfNeeded()
        scratch.removeAll(keepingCapacity: true)
        // The center's evaluator has no clock-jump limit and its times are clamped to the
        // supported range, so this cannot fail.
        try? evaluator.process(line, into: &scratch)
        let out = scratch.map { e in
            DeliveredNotification(
                request: evaluator.requests[Int(e.request)], date: Timestamp.date(millis: e.date), trigger: e.kind,
                crossing: e.crossing, device: evaluator.deviceName(of: e), region: evaluator.regionIdentifier(of: e),
                presentation: e.presentation, eventId: evaluator.eventId(of: e))
        }
        for d in out { continuation.yield(d) }
        delivered.append(contentsOf: out)
        return out
    }

    private func rebuildIfNeeded() {
        guard needsRebuild else { return }
        evaluator = evaluator.migrated(to: requests, fresh: fresh)
        fresh.removeAll()
        needsRebuild = false
    }
}
