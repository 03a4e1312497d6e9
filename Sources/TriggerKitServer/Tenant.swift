import Foundation
import Logging
import Synchronization
@_spi(Engine) import TriggerKit

/// One change or fix for a tenant, already read and shape-checked (the center validates).
enum TenantInput: Sendable {
    case add(NotificationRequest)
    case remove([String])
    case removeDelivered([String]?)
    case settings(device: String, NotificationSettings)
    case categories([NotificationCategory])
    case respond(NotificationResponse)
    /// A fix with the line it came from (kept verbatim in the journal).
    case fix(LocationFix, line: Data)
    /// Stream mode: move the clock.
    case clock(Date)
    /// Wall mode: deliver what the clock made due.
    case tick
}

/// What one input did.
enum TenantOutcome: Sendable {
    case ok(warnings: [String])
    case responded(ResponseOutcome)
    case rejected(APIError)
}

/// A tenant: its center, clock, durable store and live event hub.
///
/// Every input goes through ``apply(_:)``: inside one ``TriggerCenter/atomically(_:)`` step
/// the inputs are applied, then the accepted ones and the events they caused are written to
/// the journal and outbox in one SQLite transaction, then the events go to the SSE hub and
/// webhooks. So the journal's order is the center's order, and nothing is acknowledged
/// before it is durable.
final class Tenant: Sendable {
    let id: String
    let limits: TenantLimits
    let center: TriggerCenter
    let clock: ServerClock
    let store: TenantStore
    let hub: EventHub
    let mode: ClockMode
    let metrics: ServerMetrics
    let webhooks: WebhookDispatcher?
    private let devices = Mutex<Set<String>>([])
    private let sinceSnapshot = Mutex(0)
    /// Set when the store failed: the center may hold changes the journal lacks, so the
    /// tenant refuses input (503) until restarted.
    private let failed = Mutex<String?>(nil)

    static let journalKindFixes = 0
    static let journalKindEntry = 1
    static let journalKindTick = 2

    init(id: String, limits: TenantLimits, center: TriggerCenter, clock: ServerClock, store: TenantStore,
         mode: ClockMode, metrics: ServerMetrics, webhooks: WebhookDispatcher?) {
        self.id = id
        self.limits = limits
        self.center = center
        self.clock = clock
        self.store = store
        self.hub = EventHub(bufferLimit: limits.sseBufferEvents)
        self.mode = mode
        self.metrics = metrics
        self.webhooks = webhooks
    }

    var failure: String? { failed.withLock { $0 } }

    /// Applies inputs in order; returns one outcome per input.
    func apply(_ inputs: [TenantInput]) async -> [TenantOutcome] {
        if let why = failure {
            return inputs.map { _ in .rejected(APIError(.serviceUnavailable, "storeFailed", "the tenant's store failed (\(why)); restart the server")) }
        }
        let mode = self.mode, clock = self.clock, limits = self.limits, store = self.store, tenant = id
        let result = await center.atomically { c -> (outcomes: [TenantOutcome], events: [(seq: Int64, device: String?, body: Data, eventId: String)], error: String?) in
            var outcomes: [TenantOutcome] = []
            outcomes.reserveCapacity(inputs.count)
            var journal: [(kind: Int, body: Data)] = []
            var fixLines = Data()
            var delivered: [DeliveredNotification] = []
            let encoder = JSONEncoder()
            func entry(_ e: JournalEntry) {
                if let d = try? encoder.encode(e) { journal.append((Self.journalKindEntry, d)) }
            }
            func newDevice(_ d: String?) -> Bool {
                guard let d else { return false }
                return self.devices.withLock { set in
                    if set.contains(d) { return false }
                    if set.count >= limits.maxDevices { return true }
                    set.insert(d)
                    return false
                }
            }
            for input in inputs {
                switch input {
                case .add(var r):
                    if newDevice(r.device) {
                        outcomes.append(.rejected(APIError(.tooManyRequests, "tooManyDevices", "the tenant has \(limits.maxDevices) devices, its limit")))
                        continue
                    }
                    if c.requestCount >= limits.maxRequests, c.request(withIdentifier: r.identifier) == nil {
                        outcomes.append(.rejected(APIError(.tooManyRequests, "tooManyRequests", "the tenant has \(limits.maxRequests) pending requests, its limit")))
                        continue
                    }
                    if r.addedAt == nil { r.addedAt = clock.now }
                    do throws(RequestError) {
                        let warnings = try c.add(r)
                        entry(.add(r))
                        outcomes.append(.ok(warnings: warnings))
                    } catch {
                        outcomes.append(.rejected(APIError(request: error)))
                    }
                case .remove(let ids):
                    c.removePendingRequests(withIdentifiers: ids)
                    entry(.remove(ids))
                    outcomes.append(.ok(warnings: []))
                case .removeDelivered(let ids):
                    if let ids { c.removeDeliveredNotifications(withIdentifiers: ids) } else { c.removeAllDeliveredNotifications() }
                    entry(.removeDelivered(ids))
                    outcomes.append(.ok(warnings: []))
                case .settings(let device, let s):
                    if newDevice(device) {
                        outcomes.append(.rejected(APIError(.tooManyRequests, "tooManyDevices", "the tenant has \(limits.maxDevices) devices, its limit")))
                        continue
                    }
                    c.setNotificationSettings(s, forDevice: device)
                    entry(.settings(device: device, s))
                    outcomes.append(.ok(warnings: []))
                case .categories(let list):
                    c.setNotificationCategories(list)
                    entry(.categories(list))
                    outcomes.append(.ok(warnings: []))
                case .respond(let response):
                    let outcome = c.respond(response)
                    entry(.respond(response))
                    outcomes.append(.responded(outcome))
                case .fix(let fix, let line):
                    if newDevice(fix.device) {
                        outcomes.append(.rejected(APIError(.tooManyRequests, "tooManyDevices", "the tenant has \(limits.maxDevices) devices, its limit")))
                        continue
                    }
                    if mode == .stream { clock.advance(to: fix.date) }
                    do throws(FixError) {
                        delivered += try c.receive(fix)
                        fixLines.append(line)
                        fixLines.append(0x0A)
                        outcomes.append(.ok(warnings: []))
                    } catch {
                        outcomes.append(.rejected(APIError(.unprocessableContent, "invalidFix", error.description)))
                    }
                case .clock(let d):
                    guard mode == .stream else {
                        outcomes.append(.rejected(APIError(.conflict, "wallClock", "the server runs on the wall clock (--clock stream moves time with the data)")))
                        continue
                    }
                    clock.advance(to: d)
                    delivered += c.deliverDue()
                    entry(.clock(d))
                    outcomes.append(.ok(warnings: []))
                case .tick:
                    let due = c.deliverDue()
                    if !due.isEmpty {
                        delivered += due
                        journal.append((Self.journalKindTick, Data()))
                    }
                    outcomes.append(.ok(warnings: []))
                }
            }
            if !fixLines.isEmpty { journal.append((Self.journalKindFixes, fixLines)) }
            guard !journal.isEmpty || !delivered.isEmpty else { return (outcomes, [], nil) }
            var rendered: [(eventId: String, device: String?, body: Data)] = []
            rendered.reserveCapacity(delivered.count)
            for d in delivered {
                var w = JSONWriter()
                d.write(to: &w)
                w.bytes.removeLast()  // the newline
                rendered.append((d.eventId, d.device, Data(w.bytes)))
            }
            do {
                let seqs = try store.record(at: Timestamp.millis(clock.now), inputs: journal, events: rendered)
                var events: [(seq: Int64, device: String?, body: Data, eventId: String)] = []
                for (i, s) in seqs.enumerated() where s > 0 {
                    events.append((s, rendered[i].device, rendered[i].body, rendered[i].eventId))
                }
                return (outcomes, events, nil)
            } catch {
                Logger(label: "triggerkit.serve").error("store failed", metadata: ["tenant": "\(tenant)", "error": "\(error)"])
                return (outcomes.map { _ in .rejected(APIError(.serviceUnavailable, "storeFailed", "could not record: \(error)")) }, [], "\(error)")
            }
        }
        if let error = result.error { failed.withLock { $0 = error } }
        if !result.events.isEmpty {
            hub.publish(result.events.map { EventHub.Event(seq: $0.seq, device: $0.device, body: $0.body) })
            metrics.events(tenant: id, count: result.events.count)
        }
        // Replay cost, in fix units: a change of requests, settings or categories weighs 100
        // fixes (a fix replays in ~2 us, a request add in ~20 us plus its validation).
        let weight = inputs.reduce(0) { n, i in if case .fix = i { n + 1 } else { n + 100 } }
        sinceSnapshot.withLock { $0 += weight }
        return result.outcomes
    }

    /// Saves a snapshot when enough was journaled since the last one (or always, at
    /// shutdown). The center is held only while its snapshot value is taken; encoding and
    /// writing happen beside it, so ingestion goes on meanwhile.
    func snapshotIfDue(force: Bool = false, every: Int) async {
        let due = sinceSnapshot.withLock { n -> Bool in
            guard force ? n > 0 : n >= every else { return false }
            n = 0
            return true
        }
        guard due, failure == nil else { return }
        let store = self.store
        let taken: (seq: Int64, snapshot: CenterSnapshot)? = await center.atomically { c in
            guard let seq = try? store.lastJournalSeq() else { return nil }
            return (seq, c.snapshot())
        }
        guard let taken else { return }
        do {
            let body = try JSONEncoder().encode(taken.snapshot)
            try store.saveSnapshot(body, journalSeq: taken.seq)
        } catch {
            Logger(label: "triggerkit.serve").error("snapshot failed", metadata: ["tenant": "\(id)", "error": "\(error)"])
        }
    }

    /// Restores the tenant from its store: the snapshot, then the journal after it, replayed
    /// at its recorded times (events already in the outbox are not sent again).
    static func open(id: String, limits: TenantLimits, configuration: CenterConfiguration, store: TenantStore, mode: ClockMode,
                     start: Date, metrics: ServerMetrics, webhooks: WebhookDispatcher?) async throws -> Tenant {
        let snapshot = try store.loadSnapshot()
        let journal = try store.journal(after: snapshot?.journalSeq ?? 0)
        var clockStart = start
        let restored = try snapshot.map { try JSONDecoder().decode(CenterSnapshot.self, from: $0.body) }
        if let first = journal.first { clockStart = Timestamp.date(millis: first.at) }
        if let restored, let t = restored.evaluator.streamTime { clockStart = max(clockStart, Timestamp.date(millis: t)) }
        let clock = ServerClock(start: clockStart)
        let center = try restored.map { try TriggerCenter(restoring: $0, configuration: configuration, clock: clock) }
            ?? TriggerCenter(configuration: configuration, clock: clock)
        let tenant = Tenant(id: id, limits: limits, center: center, clock: clock, store: store, mode: mode, metrics: metrics, webhooks: webhooks)
        if let restored {
            tenant.devices.withLock { set in
                for r in restored.requests { if let d = r.device { set.insert(d) } }
            }
        }
        for row in journal {
            clock.advance(to: Timestamp.date(millis: row.at))
            let inputs: [TenantInput]
            switch row.kind {
            case journalKindFixes: inputs = Self.fixInputs(row.body)
            case journalKindTick: inputs = [.tick]
            default:
                guard let e = try? JSONDecoder().decode(JournalEntry.self, from: row.body) else { continue }
                inputs = [e.input]
            }
            _ = await tenant.replay(inputs)
        }
        if mode == .wall { clock.goLive() }
        return tenant
    }

    /// Applies journaled inputs again without journaling them (their events, already in the
    /// outbox, are ignored there; any that are not are recorded and sent).
    private func replay(_ inputs: [TenantInput]) async -> Int {
        let store = self.store, mode = self.mode, clock = self.clock
        let events = await center.atomically { c -> [(seq: Int64, device: String?, body: Data, eventId: String)] in
            var delivered: [DeliveredNotification] = []
            for input in inputs {
                switch input {
                case .add(let r): _ = try? c.add(r)
                case .remove(let ids): c.removePendingRequests(withIdentifiers: ids)
                case .removeDelivered(let ids):
                    if let ids { c.removeDeliveredNotifications(withIdentifiers: ids) } else { c.removeAllDeliveredNotifications() }
                case .settings(let d, let s): c.setNotificationSettings(s, forDevice: d)
                case .categories(let list): c.setNotificationCategories(list)
                case .respond(let r): _ = c.respond(r)
                case .fix(let f, _):
                    if mode == .stream { clock.advance(to: f.date) }
                    if let d = try? c.receive(f) { delivered += d }
                case .clock(let d):
                    clock.advance(to: d)
                    delivered += c.deliverDue()
                case .tick: delivered += c.deliverDue()
                }
            }
            guard !delivered.isEmpty else { return [] }
            let rendered = delivered.map { d -> (eventId: String, device: String?, body: Data) in
                var w = JSONWriter()
                d.write(to: &w)
                w.bytes.removeLast()
                return (d.eventId, d.device, Data(w.bytes))
            }
            guard let seqs = try? store.record(at: Timestamp.millis(clock.now), inputs: [], events: rendered) else { return [] }
            return seqs.enumerated().filter { $0.element > 0 }.map { (i, s) in (s, rendered[i].device, rendered[i].body, rendered[i].eventId) }
        }
        if !events.isEmpty {
            hub.publish(events.map { EventHub.Event(seq: $0.seq, device: $0.device, body: $0.body) })
        }
        return events.count
    }

    /// The fix inputs of a journaled batch of fix lines.
    static func fixInputs(_ body: Data) -> [TenantInput] {
        var out: [TenantInput] = []
        for line in body.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if case .fix(let f)? = try? FixReader.parse(Data(line)) { out.append(.fix(f, line: Data(line))) }
        }
        return out
    }

    // MARK: wall-clock ticks

    /// Delivers time fires as the wall clock reaches them, until cancelled.
    func runTicks() async {
        guard mode == .wall else { return }
        while !Task.isCancelled {
            let next = await center.upcomingFires(limit: 1).first?.date
            let now = Date()
            let wait = next.map { max(0, min(1, $0.timeIntervalSince(now))) } ?? 1
            if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64(wait * 1000) + 1)) }
            if Task.isCancelled { break }
            if let next, next <= Date() { _ = await apply([.tick]) }
        }
    }
}

/// A journaled change (fixes are journaled as their lines).
enum JournalEntry: Codable, Sendable {
    case add(NotificationRequest)
    case remove([String])
    case removeDelivered([String]?)
    case settings(device: String, NotificationSettings)
    case categories([NotificationCategory])
    case respond(NotificationResponse)
    case clock(Date)

    var input: TenantInput {
        switch self {
        case .add(let r): .add(r)
        case .remove(let ids): .remove(ids)
        case .removeDelivered(let ids): .removeDelivered(ids)
        case .settings(let d, let s): .settings(device: d, s)
        case .categories(let c): .categories(c)
        case .respond(let r): .respond(r)
        case .clock(let d): .clock(d)
        }
    }
}
