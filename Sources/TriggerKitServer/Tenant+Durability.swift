import Foundation
import Logging
@_spi(Engine) import TriggerKit

// A tenant's durability: snapshots saved now and then, and a restart from the last one and
// the journal after it.

extension Tenant {
    /// Saves a snapshot when enough was journaled since the last one (or always, at
    /// shutdown). The center is held only while its snapshot value is taken; encoding and
    /// writing happen beside it, on ``background``, so ingestion goes on meanwhile.
    func snapshotIfDue(force: Bool = false, every: Int) async {
        let due = sinceSnapshot.withLock { n -> Bool in
            guard force ? n > 0 : n >= every else { return false }
            n = 0
            return true
        }
        guard due, failure == nil else { return }
        let store = self.store
        let taken: (seq: Int64, snapshot: CenterSnapshot)? = await withCenter { c in
            guard let seq = try? store.lastJournalSeq() else { return nil }
            return (seq, c.snapshot())
        }
        guard let taken else { return }
        // Encoded and written on the tenant's second queue: seconds for a million requests,
        // during which its own thread goes on taking input.
        await background.run {
            assert(!self.thread.isCurrent, "tenant \(self.id)'s snapshot encoded on its own thread")
            do {
                let started = ContinuousClock.now
                let body = try taken.snapshot.serialized()
                try store.saveSnapshot(body, journalSeq: taken.seq)
                Logger(label: "triggerkit.serve").info("snapshot saved", metadata: [
                    "tenant": "\(id)", "bytes": "\(body.count)", "requests": "\(taken.snapshot.requests.count)",
                    "delivered": "\(taken.snapshot.delivered.count)", "seconds": "\(ContinuousClock.now - started)"])
            } catch {
                Logger(label: "triggerkit.serve").error("snapshot failed", metadata: ["tenant": "\(id)", "error": "\(TenantStore.describe(error))"])
            }
        }
    }

    /// Restores the tenant from its store: the snapshot, then the journal after it, replayed
    /// at its recorded times (its events, recorded with it, are not recorded or sent again).
    static func open(id: String, limits: TenantLimits, configuration: CenterConfiguration, store: TenantStore, thread: TenantThread,
                     mode: ClockMode, start: Date?, metrics: ServerMetrics, webhooks: WebhookDispatcher?,
                     bodyTimeout: Duration = Tenant.bodyTimeout) async throws -> Tenant {
        // On the stream clock, catch-up delivers fires one by one back as far as `run` does:
        // the tenant's clock jump limit, or 7 days without one (it was the wall clock's hour:
        // a two-hour step gave one coalesced delivery where `run` gave 120, found by a helper).
        var configuration = configuration
        if mode == .stream {
            configuration.catchUpWindow = Double(ClockJumpRule.catchUpWindowMillis(limit: ClockJumpRule.limitMillis(limits.maxClockJump))) / 1000
        }
        let snapshot = try store.loadSnapshot()
        // The journal is read a page at a time (``TenantStore/journal(after:rows:bytes:)``).
        var page = try store.journal(after: snapshot?.journalSeq ?? 0)
        // The clock resumes where the data left it (never at today's date for a stream-clock
        // tenant restarted without --start); a fresh tenant starts at `start`, else now.
        var clockStart = start
        var restored = try snapshot.map { s throws(SnapshotError) in try CenterSnapshot(serialized: s.body) }
        let snapshotMoved = restored.map { Self.clockMoved(by: $0.evaluator) } ?? false
        if let restored, let t = restored.evaluator.streamTime { clockStart = max(clockStart ?? .distantPast, Timestamp.date(millis: t)) }
        if let first = page.first { clockStart = max(clockStart ?? .distantPast, Timestamp.date(millis: first.at)) }
        let clock = ServerClock(start: clockStart ?? Date())
        // Every device the tenant knew counts toward its limit after a restart: those of its
        // requests, and those known only from fixes or settings (the center's devices).
        var devices = Set<String>()
        for r in restored?.requests ?? [] { if let d = r.device { devices.insert(d) } }
        for d in restored?.evaluator.devices ?? [] { devices.insert(d.name) }
        // The snapshot is given up to the center (its request list moves there uncopied).
        let center = try restored.take().map { try TriggerCenter(restoring: $0, configuration: configuration, clock: clock) }
            ?? TriggerCenter(configuration: configuration, clock: clock)
        let tenant = Tenant(id: id, limits: limits, center: center, thread: thread, clock: clock, store: store, mode: mode, metrics: metrics, webhooks: webhooks,
                            bodyTimeout: bodyTimeout)
        tenant.devices.withLock { $0.formUnion(devices) }
        // The jump limit applies once input has moved the clock, as before the restart: the
        // snapshot's center took a fix or a clock step, or the journal's replay applies one
        // (``perform(_:on:into:)`` notes it). Adds alone do not (they did before: a restart
        // made the limit apply early, found by a helper).
        if snapshotMoved { tenant.clockMoved.withLock { $0 = true } }
        // Replayed a page at a time, each page in one step on the center's actor (one hop for
        // many rows; nothing else reaches the tenant before it opens).
        var replayed = 0
        while let last = page.last {
            replayed += await tenant.replay(page)
            page = try store.journal(after: last.seq)
        }
        // The rows replayed are still in the journal after the snapshot: they count towards the
        // next one (else every restart would start counting again, and a server restarted
        // often would replay an ever longer journal).
        tenant.sinceSnapshot.withLock { $0 = replayed }
        // Requests kept as stored that can never fire (an earlier version accepted them; the
        // snapshot and the journal keep them alike): said at every start, the first few by name.
        let refused = await tenant.withCenter { $0.refusedRequests().map { [$0.identifier, $0.error.message] } }
        if !refused.isEmpty {
            let log = Logger(label: "triggerkit.serve")
            for r in refused.prefix(Self.refusedNamedAtStart) {
                log.warning("a stored request these rules refuse is kept but never fires: replace or remove it", metadata: [
                    "tenant": "\(id)", "identifier": "\(DiagnosticText.clipped(r[0]))", "reason": "\(r[1])"])
            }
            log.warning("stored requests that never fire", metadata: ["tenant": "\(id)", "count": "\(refused.count)"])
        }
        if mode == .wall { clock.goLive() }
        return tenant
    }

    /// How many of the stored requests that can never fire a start names in its log (it
    /// counts them all).
    static let refusedNamedAtStart = 20

    /// What a journal row holds, as inputs to replay (none for a row that cannot be read).
    static func inputs(of row: TenantStore.JournalRow) -> [TenantInput] {
        switch row.kind {
        case journalKindFixes: return fixInputs(row.body)
        case journalKindTick: return [.tick]
        case journalKindAdd:
            let request: NotificationRequest? = row.body.withUnsafeBytes { raw in
                try? NotificationRequest(contractRecord: raw.bindMemory(to: UInt8.self))
            }
            guard let request else { return [] }
            return [.change(.add(request))]
        default:
            guard let change = try? JSONDecoder().decode(TenantChange.self, from: row.body) else { return [] }
            return [.change(change)]
        }
    }

    /// Whether a snapshot's center had taken a fix, or a clock step past its start (adds
    /// deliver what is due at the clock's present, so a stream time alone does not say).
    private static func clockMoved(by e: EvaluatorSnapshot) -> Bool {
        e.stats.fixes > 0 || (e.streamTime ?? .min) > (e.defaultAddedAt ?? .max)
    }

    /// Applies journaled rows again, each at its recorded time, recording nothing: neither
    /// the rows nor their events, which were recorded with them (in the outbox, or pruned
    /// from it since). Returns their ``replayWeight(kind:body:)``. Each row is read just before it is
    /// applied (a batch of fix rows read at once took a quarter longer: out of cache).
    private func replay(_ rows: [TenantStore.JournalRow]) async -> Int {
        let weight = await withCenter { c in
            var weight = 0
            for row in rows {
                let inputs = Self.inputs(of: row)
                weight += Self.replayWeight(kind: row.kind, body: row.body)
                self.clock.advance(to: Timestamp.date(millis: row.at))
                let (outcomes, _, _, _) = self.step(inputs, on: c, replaying: true)
                // A change the center refuses now although it was accepted when journaled, and
                // that is not kept as stored (``keepStored``), is said, not dropped silently.
                // (A stale or refused fix is journaled as it came: not said.)
                for (input, outcome) in zip(inputs, outcomes) {
                    if case .change = input, case .rejected(let e) = outcome {
                        Logger(label: "triggerkit.serve").warning("a journaled change is refused on replay", metadata: [
                            "tenant": "\(self.id)", "row": "\(row.seq)", "code": "\(e.code)", "reason": "\(e.message)"])
                    }
                }
            }
            return weight
        }
        return weight
    }

    /// The fix inputs of a journaled batch of fix lines.
    static func fixInputs(_ body: Data) -> [TenantInput] {
        var out: [TenantInput] = []
        let bytes = [UInt8](body)
        // Lines split by hand: the generic `split(separator:)` was left unspecialised here,
        // and cost more than reading the fixes.
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            if end > start, case .fix(let f)? = try? FixReader.parse(bytes[start..<end]) { out.append(.fix(f, line: bytes[start..<end])) }
            start = end + 1
        }
        return out
    }
}
