import Foundation

/// The notification center a Swift service embeds: Apple's `UNUserNotificationCenter` for
/// many devices, on a server.
///
/// Add, replace and remove requests one at a time while the service runs; give it fixes;
/// time-based triggers fire from its ``clock`` alone. Deliveries come back from each call
/// that causes them, go to every ``deliveries(bufferLimit:)`` feed, and are kept in a bounded
/// per-device history (``deliveredNotifications(device:)``).
///
/// Driving time: call ``deliverDue()`` whenever you like (tests and replays do, after moving
/// a ``ManualClock``), or let ``run()`` do it as the clock reaches each next fire date.
///
/// Changes: adding or replacing a time-based request and removing any request happen in
/// place in O(log n); a location request is appended in place to the region index (O(1) for
/// a circle), one with fence rules once a fence with rules is live. Changes before the first
/// step, the first request with fence rules or an expiry (and a fence with rules while none
/// is live), and a region the index refuses are applied together by one migration of the
/// evaluator (O(n)), keeping every unchanged request's state.
/// An actor: safe to use from many tasks.
public actor TriggerCenter {
    /// The time the center runs on.
    public nonisolated let clock: any TriggerClock
    /// How it evaluates and what it keeps.
    public nonisolated let configuration: CenterConfiguration

    let engine: LiveEngine
    /// The evaluator with every change applied.
    var evaluator: StreamEvaluator { engine.current }
    var history: DeliveredHistory
    var feed = DeliveryFeed()
    var categories: [ExactKey: NotificationCategory] = [:]
    var counters = CenterStatistics()
    var scratch: [FiredEvent] = []
    var isShutDown = false
    // The run loops' wake-up: resumed by a change that may bring the next fire forward, by
    // a timer reaching the next fire date, or by shutdown. One per ``run()`` sleeping (a
    // second `run()` took the first one's place, which then never returned, even at shutdown:
    // a helper embedding the library).
    var waiters: [CheckedContinuation<Void, Never>] = []
    var wakePending = false

    /// A center with no requests whose clock starts now (`clock.now` is the `addedAt` of
    /// requests added without one from the first call on).
    ///
    /// - Throws: ``CenterError/invalidConfiguration(field:reason:)`` for a configuration value
    ///   out of its range (``CenterConfiguration/validate()``).
    public init(configuration: CenterConfiguration = .init(), clock: any TriggerClock = WallClock()) throws(CenterError) {
        try configuration.validate()
        self.clock = clock
        self.configuration = configuration
        self.history = DeliveredHistory(limit: configuration.deliveredLimitPerDevice)
        self.engine = LiveEngine(options: Self.streamOptions(configuration), start: Timestamp.millis(clock.now))
    }

    /// A center in the state `snapshot` recorded (see ``snapshot()``), on `clock`: pending
    /// requests, cursors, device states, settings, categories, delivered history and
    /// counters. Fires that became due while it was stopped are caught up at the first step,
    /// as ``CenterConfiguration/catchUp`` says.
    ///
    /// - Throws: ``CenterError/invalidSnapshot(_:)`` for a snapshot of a newer format or an
    ///   inconsistent one; ``CenterError/invalidConfiguration(field:reason:)`` as
    ///   ``init(configuration:clock:)``.
    ///
    /// - Complexity: O(size of the snapshot), the region index built on every core. A
    ///   snapshot given up here (not used by the caller afterwards) lends its request list to
    ///   the center without a copy.
    public init(restoring snapshot: consuming CenterSnapshot, configuration: CenterConfiguration = .init(),
                clock: any TriggerClock = WallClock()) throws(CenterError) {
        try configuration.validate()
        guard snapshot.formatVersion <= CenterSnapshot.formatVersion else {
            throw .invalidSnapshot(SnapshotError(reason: "format \(snapshot.formatVersion) is newer than this build's \(CenterSnapshot.formatVersion)"))
        }
        // (Format -7 restored as the newest: a helper embedding the library.)
        guard snapshot.formatVersion >= 1 else {
            throw .invalidSnapshot(SnapshotError(reason: "format \(snapshot.formatVersion) is no snapshot format (1 to \(CenterSnapshot.formatVersion))"))
        }
        self.clock = clock
        self.configuration = configuration
        self.history = DeliveredHistory(limit: configuration.deliveredLimitPerDevice)
        let (format, requests, evaluator, delivered) = (snapshot.formatVersion, snapshot.requests, snapshot.evaluator, snapshot.delivered)
        // Restored as saved: builds before `setNotificationCategories` checked its list saved
        // lists it now refuses (a category twice: the last one counts, as it did; a snooze of
        // 0 s: refused when a user answers), and such a snapshot must still restore.
        self.categories = NotificationCategory.table(snapshot.categories)
        let c = snapshot.statistics
        // A counter no center reaches is damage (and one near Int.max trapped when increased).
        for (name, count) in [("delivered", c.delivered), ("suppressed", c.suppressed), ("fixes", c.fixes), ("staleFixes", c.staleFixes),
                              ("rejectedFixes", c.rejectedFixes), ("historyDropped", c.historyDropped),
                              ("feedDropped", c.feedDropped), ("pendingRequests", c.pendingRequests)]
        where !StreamEvaluator.countRange.contains(count) {
            throw .invalidSnapshot(SnapshotError(reason: "damaged statistics: \(name) is \(count)"))
        }
        self.counters = c
        _ = consume snapshot
        do throws(SnapshotError) {
            self.engine = try LiveEngine(restoring: requests, snapshot: evaluator, format: format,
                                         options: Self.streamOptions(configuration), start: Timestamp.millis(clock.now))
        } catch {
            throw .invalidSnapshot(error)
        }
        for d in delivered { history.append(d) }
    }

    static func streamOptions(_ c: CenterConfiguration) -> StreamOptions {
        var o = StreamOptions(margin: c.margin, dwell: c.dwell, maxAccuracy: c.maxAccuracy, initialFire: c.initialFire,
                              floatingTimeZone: c.floatingTimeZone, defaultSettings: c.defaultSettings)
        o.catchUp = c.catchUp
        o.catchUpWindow = c.catchUpWindow
        // The center bounds time itself (fixes may lead the clock by maxFixLead only).
        o.maxClockJump = nil
        return o
    }

    // MARK: requests

    /// Adds a request, or replaces the pending one with the same identifier (identifiers are
    /// compared as exact Unicode scalar sequences); a replaced request's trigger state starts
    /// afresh. A request without `addedAt` is added at ``clock``'s current time (or, when the
    /// clock went back, at the latest instant the center has evaluated). It is kept as
    /// its contract JSON reads back (`addedAt` and `expiresAt` to the millisecond, a calendar
    /// trigger's calendar with TriggerKit's locale and zone), so that it is the same value
    /// before and after a restart.
    ///
    /// - Returns: warnings about accepted input (a category the center does not know).
    /// - Throws: ``RequestError``: the validator's codes (`invalidRequest`, `invalidTrigger`,
    ///   `invalidRegion`, `notificationInvalidNoContent`, `notificationInvalidNoDate`,
    ///   `notificationsNotAllowed`), and `tooManyRequests` for a new identifier once the center
    ///   holds ``CenterConfiguration/maxRequests``; nothing changes then.
    /// - Complexity: O(log n) for a time-based request; O(1) for a circle without fence rules
    ///   (appended to the region index in place), plus GEOS's preparation for a polygon. With
    ///   an `expiresAt`, the same once the center holds a request with an `expiresAt` or fence
    ///   rules (plus O(e) for e expiries pending, a move of memory); the first such request is
    ///   applied by a migration. A location request with fence rules (dwell, window,
    ///   crossings, accuracy), or a replacement of one, the same as a circle while a fence
    ///   with rules is live (plus its edge index for a polygon); otherwise (the first one, or
    ///   all others done or removed) it is recorded in O(1) and applied with the others of
    ///   its burst by one O(n) migration at the next step (about 1 s at 200,000 requests).
    @discardableResult
    public func add(_ request: NotificationRequest) throws(RequestError) -> [String] {
        guard !isShutDown else { throw RequestError(.invalidRequest, "the center is shut down") }
        let now = clock.now
        // A clock that reads NaN or outside years 1-9999 (a user's own ``TriggerClock``, a
        // ``ManualClock`` started there) is named, not blamed on the request's `addedAt`.
        guard RequestLimits.isSupported(now) else {
            throw RequestError(.invalidRequest, FixError.unsupportedClock(secondsSince1970: now.timeIntervalSince1970).description)
        }
        let at = addInstant(now)
        var v = ValidationOptions(floatingTimeZone: evaluator.options.floatingTimeZone, defaultSettings: configuration.defaultSettings)
        v.margin = configuration.margin
        let (admitted, warnings) = try RequestValidation.admit(request, at: at, options: v,
                                                               settings: request.device.map { evaluator.settings(forDevice: $0) },
                                                               categories: categories)
        // Checked after the validator, so a bad request at the bound is named for what is wrong
        // with it; a replacement never grows the table.
        if engine.requestCount >= configuration.maxRequests, engine.request(identifier: admitted.identifier) == nil {
            throw RequestError.overRequestLimit("the center", limit: configuration.maxRequests, option: "maxRequests", identifier: admitted.identifier)
        }
        if let device = admitted.device, let why = evaluator.newDeviceRefusal(device, limit: configuration.maxDevices, option: "maxDevices") {
            throw why
        }
        engine.add(admitted)
        wake()
        return warnings
    }

    /// The instant a request without `addedAt` (or a snooze) is added at: the clock's, or,
    /// when the clock went back (the system's, stepped by NTP), the latest instant evaluated,
    /// as `run` adds at its stream time. Stamped with such a clock, a 60 s reminder was dated
    /// an hour back, before instants already evaluated, and its fire dated there too (a helper
    /// embedding the library). It still fires once the clock passes the evaluated instant.
    package func addInstant(_ now: Date) -> Date {
        guard let evaluated = evaluator.streamTime, evaluated > Timestamp.millis(now) else { return now }
        return Timestamp.date(millis: evaluated)
    }

    /// Pending requests (those that can still fire), in the order they were added; with
    /// `device`, only the requests that device sees (its own and the shared ones).
    /// - Complexity: O(n log n).
    public func pendingRequests(device: String? = nil) -> [NotificationRequest] {
        engine.pendingRequests(device: device)
    }

    /// Up to `limit` pending requests added after add number `after` (-1: from the first), in
    /// the order of ``pendingRequests(device:)``; the add number of the last one listed, where
    /// the next page starts, or nil when no pending request follows. See
    /// `LiveEngine.pendingPage(device:after:limit:)` for what a walk by pages lists while
    /// requests change. Add numbers belong to this center: they start afresh in a restored one.
    /// - Complexity: O(n) (which requests are pending), plus the page.
    package func pendingRequests(device: String? = nil, after: Int, limit: Int) -> (requests: [NotificationRequest], next: Int?) {
        let page = engine.pendingPage(device: device, after: after, limit: Swift.max(1, limit))
        return (page.requests, page.more ? page.last : nil)
    }

    /// The request held under an identifier: a pending one. A request leaves the center when
    /// it can fire no more, as it leaves Apple's pending list: a time trigger at its last fire
    /// (a one-shot's, or a repeating calendar trigger's that names its year), a region of one
    /// device at its one-shot fire, any request when its `expiresAt` passes. Its deliveries
    /// still carry it (a response to one is applied with it).
    /// - Complexity: O(1).
    public func request(withIdentifier id: String) -> NotificationRequest? {
        engine.request(identifier: id)
    }

    /// How many requests the center holds (see ``request(withIdentifier:)``). O(1).
    public var requestCount: Int { engine.requestCount }

    /// Removes pending requests; their triggers stop at once. Unknown identifiers are ignored.
    public func removePendingRequests(withIdentifiers ids: [String]) {
        guard !isShutDown else { return }
        engine.remove(identifiers: ids)
    }

    /// Removes every pending request. O(n).
    public func removeAllPendingRequests() {
        guard !isShutDown else { return }
        engine.removeAll()
    }

    // MARK: time and fixes

    /// Delivers every time-based fire due by the clock's current time.
    @discardableResult
    public func deliverDue() -> [DeliveredNotification] {
        // A clock outside the supported dates moves nothing (clamped, 1e15 s moved every
        // trigger to 9999 for good); ``add(_:)`` and ``receive(_:)`` name it.
        guard !isShutDown, RequestLimits.isSupported(clock.now) else { return [] }
        scratch.removeAll(keepingCapacity: true)
        advance(to: Timestamp.millis(clock.now))
        return publish()
    }

    /// How many time-trigger deliveries moving the clock to `date` would make now (a
    /// coalesced one counts 1), up to `limit`; nothing changes. The server refuses a clock
    /// step over its bound with it.
    package func dueFireCount(at date: Date, limit: Int) -> Int {
        guard !isShutDown, let t = RequestLimits.millis(date) else { return 0 }
        return evaluator.dueFireCount(upTo: t, limit: limit)
    }

    /// How many time-trigger deliveries adding `request` would make at once (an `addedAt`
    /// in the past catches up), up to `limit`; nothing changes.
    package func catchUpFireCount(of request: NotificationRequest, limit: Int) -> Int {
        // Up to the instant it is added at: the latest evaluated when the clock is behind it.
        guard !isShutDown, RequestLimits.isSupported(clock.now), let t = RequestLimits.millis(addInstant(clock.now)) else { return 0 }
        return StreamEvaluator.catchUpFireCount(of: request, upTo: t, options: Self.streamOptions(configuration), limit: limit)
    }

    /// Moves the evaluator's stream time to `t` (never back), collecting due time fires.
    private func advance(to t: Int64) {
        let e = evaluator
        // At the same instant too: a request added since may be due at it (an immediate one
        // at its `addedAt`, the clock's present: it waited for the clock to move on). Not a
        // line of the stream: its fires only. And with a clock behind the latest instant
        // evaluated (the system's, stepped back; a server restarted on it after a journal
        // written ahead), that instant stands and what is due by it is delivered (the
        // catch-up of a request added since): left for the clock to reach, such a fire made
        // `serve`'s tick loop retry at once, a busy core, until it did (a helper stepping the
        // clock back a day).
        if let now = e.streamTime, now >= t {
            e.advanceClock(to: now, into: &scratch)
            return
        }
        // The center's evaluator has no jump limit and `t` comes from a clamped Date, so
        // the line is always applied.
        try? e.process(.clock(t), into: &scratch)
    }

    /// Whether the last fix ``receive(_:)`` took was older than its device's latest (stale:
    /// counted, changed nothing). For callers that report it per fix (the HTTP server).
    package private(set) var lastFixWasStale = false

    /// Evaluates one fix (first delivering the time fires due by the clock). A fix dated after
    /// the clock (by at most ``CenterConfiguration/maxFixLead``) is taken as dated at the
    /// clock: its deliveries carry the clock's date, and whether it is stale is judged on that
    /// date. So a device whose clock runs ahead moves no time: no time-based trigger fires
    /// early, and no region meets it as it will be later (expired, its window closed).
    ///
    /// - Throws: ``FixError``; nothing changes then.
    @discardableResult
    public func receive(_ fix: LocationFix) throws(FixError) -> [DeliveredNotification] {
        guard !isShutDown else { throw .shutDown }
        let now = clock.now
        guard RequestLimits.isSupported(now) else { throw reject(.unsupportedClock(secondsSince1970: now.timeIntervalSince1970)) }
        let date = fix.date.timeIntervalSince1970
        if let v = FixRules.violation(deviceUTF8Count: fix.device.utf8.count, latitude: fix.latitude, longitude: fix.longitude,
                                      accuracy: fix.horizontalAccuracy)
            ?? (RequestLimits.isSupported(fix.date) ? nil : FixRules.unsupportedDate("\(FixRules.show(date)) s since 1970")) {
            throw reject(.invalid(field: v.field, reason: v.reason))
        }
        guard fix.date.timeIntervalSince(now) <= configuration.maxFixLead else { throw reject(.fromTheFuture(date: fix.date, clock: now)) }
        let e = evaluator
        if e.isNewDevice(fix.device, pastLimit: configuration.maxDevices) { throw reject(.tooManyDevices(limit: configuration.maxDevices)) }
        scratch.removeAll(keepingCapacity: true)
        advance(to: Timestamp.millis(now))
        let before = e.stats
        var f = Fix(device: fix.device, t: Timestamp.millis(fix.date), latitude: fix.latitude, longitude: fix.longitude,
                    accuracy: fix.horizontalAccuracy)
        // Ahead of the clock (a device clock running fast, within maxFixLead): taken as dated
        // at the clock. Dated at its own date, it moved the evaluator's time: time triggers
        // fired early and later ones waited for the clock to pass it; and evaluated at its
        // date with the clock left behind, it met requests that had expired and windows that
        // had closed by then (both found by helpers). The clock is the one time.
        if let streamTime = e.streamTime, f.t > streamTime { f.t = streamTime }
        try? e.process(.fix(f), into: &scratch)
        counters.fixes += 1
        let stale = evaluator.stats.stale - before.stale
        counters.staleFixes += stale
        lastFixWasStale = stale > 0
        return publish()
    }

    private func reject(_ e: FixError) -> FixError {
        counters.rejectedFixes += 1
        return e
    }

    /// Counts `n` fixes refused before they reached the center (a service's malformed lines,
    /// its own limits) in ``CenterStatistics/rejectedFixes``, so that the counter tells every
    /// fix refused, however it was.
    package func countRejectedFixes(_ n: Int) {
        counters.rejectedFixes += Swift.max(0, n)
    }

    /// Turns the evaluator's fires into deliveries: history, feeds, return value.
    private func publish() -> [DeliveredNotification] {
        // The fires name positions in the evaluator the step used: they are read there, and
        // only then are finished requests retired (retiring may make the next `current`
        // compact, renumbering them: read after it, a fire named another request or none,
        // found by a helper once 1,025 one-shots had left).
        defer { engine.retireFinished() }
        guard !scratch.isEmpty else { return [] }
        let e = engine.evaluator
        let out = scratch.map { e.delivered(value: $0) }
        for d in out { history.append(d) }
        feed.send(out)
        counters.delivered += out.count
        return out
    }
}
