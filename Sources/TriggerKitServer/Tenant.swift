import Foundation
import Logging
import Synchronization
@_spi(Engine) import TriggerKit

/// A tenant: its center, clock, durable store, live event hub and thread.
///
/// Every input goes through ``apply(_:)`` (or ``applyHere(_:)`` inside ``work(_:)``): inside one
/// ``TriggerCenter/atomically(_:)`` step the inputs are applied, then the accepted ones and the events they caused are written to
/// the journal and outbox in one SQLite transaction, then the events go to the SSE hub and
/// webhooks. So the journal's order is the center's order, and nothing is acknowledged
/// before it is durable.
///
/// The center is reached only through ``withCenter(_:)`` (``centerHere(_:)`` inside
/// ``work(_:)``), and the store's reads and writes through ``thread``: all run on the tenant's
/// own queue (``TenantThread``), as do the decoding of the bodies it is sent and the rendering
/// of its answers (``work(_:)``), so a tenant whose work takes seconds delays only its own
/// calls. Snapshots are encoded and written on
/// a second queue, ``background``.
final class Tenant: Sendable {
    let id: String
    let limits: TenantLimits
    private let center: TriggerCenter
    /// Where the center's and the store's work runs.
    let thread: TenantThread
    /// Where snapshots are encoded and written, beside ``thread`` (a snapshot of a million
    /// requests takes seconds).
    let background: TenantThread
    let clock: ServerClock
    let store: TenantStore
    let hub: EventHub
    /// Its request bodies being received (``Uploads``).
    let uploads: Uploads
    /// How long one request body may take to arrive (a test's tuning may shorten it): less
    /// than the idle timeout (60 s), or a body that stopped coming was closed as idle before
    /// its 408 (a reviewer's find).
    static let bodyTimeout: Duration = .seconds(45)
    let mode: ClockMode
    let metrics: ServerMetrics
    let webhooks: WebhookDispatcher?
    let devices = Mutex<Set<String>>([])
    /// `--clock stream`: whether input (a fix or a clock step, now or restored) has moved the
    /// clock, after which ``TenantLimits/maxClockJump`` applies.
    let clockMoved = Mutex(false)
    /// This run of the tenant (8 hex digits, random at each start): listing cursors carry it
    /// (``ListingCursor``).
    let runTag = String(format: "%08x", UInt32.random(in: 0...UInt32.max))
    let sinceSnapshot = Mutex(0)
    /// Set when the store failed: the center may hold changes the journal lacks, so the
    /// tenant refuses input (503) until restarted.
    private let failed = Mutex<String?>(nil)

    /// A journal row's kind: a batch of fix lines (their bytes), a change (`TenantChange` as
    /// JSON through `Codable`), a tick, or an added request (its contract JSON record, written
    /// and read without `Codable`: a row of kind 1 holding an add, written by earlier versions,
    /// is still read).
    static let journalKindFixes = 0
    static let journalKindEntry = 1
    static let journalKindTick = 2
    static let journalKindAdd = 3

    init(id: String, limits: TenantLimits, center: TriggerCenter, thread: TenantThread, clock: ServerClock, store: TenantStore,
         mode: ClockMode, metrics: ServerMetrics, webhooks: WebhookDispatcher?, bodyTimeout: Duration = Tenant.bodyTimeout) {
        self.id = id
        self.limits = limits
        self.center = center
        self.thread = thread
        self.background = TenantThread(tenant: id + ".snapshots")
        self.clock = clock
        self.store = store
        self.hub = EventHub(bufferLimit: limits.sseBufferEvents, maxSubscribers: limits.maxEventStreams)
        self.uploads = Uploads(maxBodyBytes: limits.maxBodyBytes, timeout: bodyTimeout)
        self.mode = mode
        self.metrics = metrics
        self.webhooks = webhooks
    }

    var failure: String? { failed.withLock { $0 } }

    /// Runs `body` on the center's actor, on the tenant's thread, with no other call
    /// interleaved (``TriggerCenter/atomically(_:)``).
    func withCenter<T: Sendable>(_ body: @Sendable (isolated TriggerCenter) -> T) async -> T {
        await thread.run { await centerHere(body) }
    }

    /// Runs a route's own work on the tenant's thread: decoding the body it read, applying
    /// it (``applyHere(_:)``, ``centerHere(_:)``), rendering the answer. The cooperative pool
    /// only moves the bytes, so a tenant that sends 8 MiB bodies or asks for a million
    /// requests spends its own thread's time on them, not the time of the threads every
    /// tenant's calls run on.
    func work<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await thread.run(body)
    }

    /// ``withCenter(_:)`` from code already on the tenant's thread (inside ``work(_:)``): it
    /// does not first go to the back of the tenant's queue, as ``withCenter(_:)`` does. (The
    /// code after it in the same ``work(_:)`` may still take its turn there again: a task
    /// leaving the center's actor for its preferred executor is queued.)
    func centerHere<T: Sendable>(_ body: @Sendable (isolated TriggerCenter) -> T) async -> T {
        assert(thread.isCurrent, "tenant \(id)'s center reached from off its thread")
        return await center.atomically { c in
            assert(self.thread.isCurrent, "tenant \(self.id)'s center ran off its thread")
            return body(c)
        }
    }

    /// Applies inputs in order; returns one outcome per input.
    func apply(_ inputs: [TenantInput]) async -> [TenantOutcome] {
        await thread.run { await applyHere(inputs) }
    }

    /// ``apply(_:)`` from code already on the tenant's thread (inside ``work(_:)``).
    func applyHere(_ inputs: [TenantInput]) async -> [TenantOutcome] {
        await applyHere(inputs, after: { _ in () }).outcomes
    }

    /// ``applyHere(_:)``, with `look` run on the center in the same step just before the
    /// inputs are applied (nil when they were refused without reaching the center): what it
    /// sees is what they were applied to.
    func applyHere<T: Sendable>(_ inputs: [TenantInput], after look: @Sendable (isolated TriggerCenter) -> T) async
        -> (outcomes: [TenantOutcome], looked: T?) {
        if let refused = refusedAfterFailure(inputs) { return (refused, nil) }
        let (outcomes, looked, weight) = await centerHere { c -> ([TenantOutcome], T?, Int) in
            // Asked again on the center: an apply that was waiting for it when a store write
            // failed must not change it either (the journal would never hold its change).
            if let refused = self.refusedAfterFailure(inputs) { return (refused, nil, 0) }
            let looked = look(c)
            let result = self.step(inputs, on: c, replaying: false)
            if let error = result.error {
                self.failed.withLock { $0 = error }
                // Open event streams end (a reconnection gets the 503 every request gets now).
                self.hub.finishAll()
            }
            // Published while the center is held, so live streams get events in the order
            // recorded (an event stream skips one older than the last it sent).
            self.publish(result.events)
            return (result.outcomes, looked, result.weight)
        }
        sinceSnapshot.withLock { $0 += weight }
        return (outcomes, looked)
    }

    /// Every input refused (503) once the store failed; nil while it has not.
    private func refusedAfterFailure(_ inputs: [TenantInput]) -> [TenantOutcome]? {
        guard let why = failure else { return nil }
        return inputs.map { _ in .rejected(APIError(.serviceUnavailable, "storeFailed", "the tenant's store failed (\(why)); restart the server")) }
    }

    /// What a journal row costs to replay, in fix units (``ServerConfiguration/snapshotEvery``):
    /// a fix line 1 (a journaled fix replays in about 0.9 us); a change of requests, settings
    /// or categories, or a clock step, 100 (an added request replays in about 8 us), plus one
    /// per ``bytesPerWeight`` bytes of its body past ``flatBodyBytes``. Counted by the number
    /// of changes alone, 20 category lists of 7.3 MB each were 2,000 of the default 5,000,000:
    /// a restart after a crash replayed them for 24 s (found by a helper).
    static func replayWeight(kind: Int, body: Data) -> Int {
        if kind == journalKindFixes { return body.withUnsafeBytes { $0.count(where: { $0 == 0x0A }) } }
        return 100 + Swift.max(0, body.count - flatBodyBytes) / bytesPerWeight
    }

    /// A change's body up to this size counts as 100 fixes; past it, one per
    /// ``bytesPerWeight`` bytes more (a list of 40,000 categories replays in about 160 ns a
    /// byte, about a fix's replay per 6 bytes: 4 errs on the side of an earlier snapshot).
    static let flatBodyBytes = 4096
    static let bytesPerWeight = 4

    typealias RecordedEvent = (seq: Int64, device: String?, body: Data)

    /// One step on the center's actor: applies the inputs, then records the accepted ones
    /// (unless replaying the journal) and the events they caused in one transaction.
    func step(_ inputs: [TenantInput], on c: isolated TriggerCenter, replaying: Bool)
        -> (outcomes: [TenantOutcome], events: [RecordedEvent], error: String?, weight: Int) {
        // One instant for the whole step (see ``ServerClock/hold()``), and the row records the
        // clock as the step found it: a replay starts there and moves it as the step did (the
        // time after a batch of fixes, taken first, fired the batch's later events before its
        // earlier fixes, found by a helper).
        clock.hold()
        defer { clock.release() }
        let startedAt = Timestamp.millis(clock.now)
        var outcomes: [TenantOutcome] = []
        outcomes.reserveCapacity(inputs.count)
        var journal: [(kind: Int, body: Data)] = []
        var fixLines: [UInt8] = []
        var delivered: [DeliveredNotification] = []
        var encoder: JSONEncoder?
        var added = false
        // Fixes refused by the tenant's limits: counted with the center's own refusals
        // (/v1/stats `rejectedFixes`) once the step is recorded.
        var refusedFixes = 0
        // Rows in input order: a batch's fix lines up to another entry (a clock line) are a row
        // before it (stored after it, a replay moved the clock first, found by a helper).
        func flushFixes() {
            if !fixLines.isEmpty { journal.append((Self.journalKindFixes, Data(fixLines))) }
            fixLines.removeAll(keepingCapacity: true)
        }
        var catchUp = 0
        for input in inputs {
            // A replay only re-counts devices: its inputs passed the limits when accepted.
            var adding = 0
            if !replaying, let refusal = overLimit(input, on: c, catchUp: catchUp, adding: &adding) {
                outcomes.append(.rejected(refusal))
                if case .fix = input { refusedFixes += 1 }
                continue
            }
            var (outcome, entry) = perform(input, on: c, into: &delivered)
            if replaying, case .rejected = outcome { (outcome, entry) = keepStored(input, on: c, outcome: outcome, entry: entry) }
            outcomes.append(outcome)
            if case .rejected = outcome { continue }
            // An add's catch-up counts once the center took it (a refused one delivers nothing).
            catchUp += adding
            countDevice(of: input)
            switch entry {
            case .line(let line):
                fixLines.append(contentsOf: line)
                fixLines.append(0x0A)
            case .entry(let e):
                if case .add(let r) = e {
                    added = true
                    // What the add made due now (an immediate request, a catch-up) is delivered
                    // before the batch's next input, as `run` delivers an add line's before its
                    // next line: a replacement later in the batch lost it, and a replay (a row
                    // per step) delivered it, so a restart changed the delivered history
                    // (found by a helper).
                    if c.catchUpFireCount(of: r, limit: 1) > 0 { delivered += c.deliverDue() }
                }
                // (A replay journals nothing: not even encoded.)
                guard !replaying else { break }
                flushFixes()
                if case .add(let r) = e {
                    journal.append((Self.journalKindAdd, Data(r.contractRecord)))
                } else {
                    if encoder == nil { encoder = JSONEncoder() }
                    if let d = try? encoder!.encode(e) { journal.append((Self.journalKindEntry, d)) }
                }
            case .tick:
                flushFixes()
                journal.append((Self.journalKindTick, Data()))
            case .nothing: break
            }
        }
        // What the adds made due now (an immediate request) is delivered now, as `run` delivers
        // it: on the stream clock it waited for the clock to move on (and a replacement or
        // removal at the same instant lost it), found by a helper. Once per step: each add's
        // own step migrated the evaluator for every add it cannot append in place.
        if added { delivered += c.deliverDue() }
        flushFixes()
        // A replayed row's events were recorded with it, in its transaction: kept in the
        // outbox, or pruned from it since. Recording them again by eventId re-sent the pruned
        // ones under new numbers after a crash (found by a helper).
        if replaying { return (outcomes, [], nil, 0) }
        let weight = journal.reduce(0) { $0 + Self.replayWeight(kind: $1.kind, body: $1.body) }
        guard !journal.isEmpty || !delivered.isEmpty else {
            c.countRejectedFixes(refusedFixes)
            return (outcomes, [], nil, 0)
        }
        var rendered: [(eventId: String, device: String?, body: Data)] = []
        rendered.reserveCapacity(delivered.count)
        for d in delivered {
            var w = JSONWriter()
            d.write(to: &w)
            w.bytes.removeLast()  // the newline
            rendered.append((d.eventId, d.device, Data(w.bytes)))
        }
        do {
            let seqs = try store.record(at: startedAt, inputs: journal, events: rendered)
            var events: [RecordedEvent] = []
            for (i, s) in seqs.enumerated() where s > 0 { events.append((s, rendered[i].device, rendered[i].body)) }
            c.countRejectedFixes(refusedFixes)
            return (outcomes, events, nil, weight)
        } catch {
            Logger(label: "triggerkit.serve").error("store failed", metadata: ["tenant": "\(id)", "error": "\(TenantStore.describe(error))"])
            return (outcomes.map { _ in .rejected(APIError(.serviceUnavailable, "storeFailed", "could not record: \(error)")) }, [], "\(error)", 0)
        }
    }

    /// What the journal keeps of an applied input.
    private enum JournalItem {
        case line(ArraySlice<UInt8>)
        case entry(TenantChange)
        case tick
        case nothing
    }

    /// A journaled change the center refuses on replay, although it was accepted when
    /// recorded (a rule tightened by an upgrade, or a configuration changed since: a larger
    /// margin): an add or a category list is kept as stored, as a snapshot's restore keeps it,
    /// and the refusal is logged with its reason (a kept request may never fire; the tenant
    /// also names those whose region the index refuses when it opens); anything else stays
    /// refused (and ``replay(_:)`` logs it).
    private func keepStored(_ input: TenantInput, on c: isolated TriggerCenter, outcome: TenantOutcome, entry: JournalItem)
        -> (TenantOutcome, JournalItem) {
        func said(_ what: String) {
            guard case .rejected(let e) = outcome else { return }
            Logger(label: "triggerkit.serve").warning("a journaled change these rules refuse is kept as stored: replace or remove it", metadata: [
                "tenant": "\(id)", "change": "\(what)", "code": "\(e.code)", "reason": "\(e.message)"])
        }
        switch input {
        case .change(.add(let r)):
            c.add(stored: r)
            said("add \(DiagnosticText.clipped(r.identifier))")
            return (.ok(warnings: []), .entry(.add(r)))
        case .change(.categories(let list)):
            c.setNotificationCategories(stored: list)
            said("categories")
            return (.ok(warnings: []), .entry(.categories(list)))
        default:
            return (outcome, entry)
        }
    }

    /// Applies one input to the center (the same way live and in a replay).
    private func perform(_ input: TenantInput, on c: isolated TriggerCenter, into delivered: inout [DeliveredNotification])
        -> (TenantOutcome, JournalItem) {
        // What the journal keeps of a change applied as given.
        let journaled: JournalItem = if case .change(let change) = input { .entry(change) } else { .nothing }
        switch input {
        case .change(.add(var r)):
            // Stamped as the center dates an add (the latest instant evaluated when the clock is
            // behind it), so the journal replays it exactly. Stamped with the wall clock after
            // a restart on a clock stepped back, a 60 s reminder's fire fell before the instants
            // evaluated: not delivered until the clock got there (a helper's find).
            if r.addedAt == nil { r.addedAt = c.addInstant(clock.now) }
            do throws(RequestError) {
                return (.ok(warnings: try c.add(r)), .entry(.add(r)))
            } catch {
                return (.rejected(APIError(request: error)), .nothing)
            }
        case .change(.remove(let ids)):
            c.removePendingRequests(withIdentifiers: ids)
            return (.ok(warnings: []), journaled)
        case .change(.removeDelivered(let ids)):
            if let ids { c.removeDeliveredNotifications(withIdentifiers: ids) } else { c.removeAllDeliveredNotifications() }
            return (.ok(warnings: []), journaled)
        case .change(.removeDeliveredOfDevice(let device)):
            c.removeAllDeliveredNotifications(device: device)
            return (.ok(warnings: []), journaled)
        case .change(.settings(let device, let s)):
            do throws(SettingsError) {
                try c.setNotificationSettings(s, forDevice: device)
            } catch {
                return (.rejected(APIError(.unprocessableContent, "invalidSettings", error.reason)), .nothing)
            }
            return (.ok(warnings: []), journaled)
        case .change(.categories(let list)):
            do throws(SettingsError) {
                try c.setNotificationCategories(list)
            } catch {
                return (.rejected(APIError(.unprocessableContent, "invalidCategories", error.description)), .nothing)
            }
            return (.ok(warnings: []), journaled)
        case .change(.respond(let response)):
            let outcome = c.respond(response)
            // A snooze of a shared request adds one for the responding device: counted now.
            if outcome.applied, case .snooze = outcome.effect, let d = response.device { devices.withLock { _ = $0.insert(d) } }
            return (.responded(outcome), journaled)
        case .fix(let fix, let line):
            if mode == .stream {
                clock.advance(to: fix.date)
                clockMoved.withLock { $0 = true }
            }
            do throws(FixError) {
                delivered += try c.receive(fix)
                return (c.lastFixWasStale ? .stale : .ok(warnings: []), .line(line))
            } catch {
                return (.rejected(APIError(.unprocessableContent, "invalidFix", error.description)), .nothing)
            }
        case .change(.clock(let d)):
            guard mode == .stream else {
                return (.rejected(APIError(.conflict, "wallClock", "the server runs on the wall clock (--clock stream moves time with the data)")), .nothing)
            }
            // Moved only by a later instant (as a snapshot tells it: stream time past its start).
            if d > clock.now { clockMoved.withLock { $0 = true } }
            clock.advance(to: d)
            delivered += c.deliverDue()
            return (.ok(warnings: []), journaled)
        case .tick:
            let due = c.deliverDue()
            delivered += due
            // Journaled even when it delivers nothing: a tick also retires requests (a fire
            // suppressed, an expiry) and moves fences' clocks, which a replay must repeat.
            return (.ok(warnings: []), .tick)
        }
    }

    /// Sends recorded events to the live SSE connections.
    func publish(_ events: [RecordedEvent]) {
        guard !events.isEmpty else { return }
        hub.publish(events.map { EventHub.Event(seq: $0.seq, device: $0.device, body: $0.body) })
        metrics.events(tenant: id, count: events.count)
    }
}
