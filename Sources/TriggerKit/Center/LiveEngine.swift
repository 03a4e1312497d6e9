import Foundation

/// The evaluator behind a ``TriggerCenter``, taking changes one request at a time.
///
/// In place, without rebuilding: adding a time-based request (calendar, interval,
/// immediate) appends it to the evaluator's requests and schedule in O(log n); adding a
/// location request appends it to the requests and the region index's overlay (O(1) for a
/// circle); removing any request marks it dead in O(log n) (its queued fire is dropped when
/// it comes up; a location slot stops firing); a replacement is both. Changes before the
/// stream starts, and a region the index refuses, are recorded in O(1) and applied together
/// by one migration of the evaluator (O(n + devices), keeping every other request's state)
/// before the next step or query. A migration also compacts: once dead entries pass half of
/// the evaluator's requests, or appended ones an eighth (amortised O(1) per change).
final class LiveEngine {
    private(set) var evaluator: StreamEvaluator {
        // Every evaluator a center's engine holds (built, migrated) lists its one-shots as
        // they finish (``retireFinished()``).
        didSet { evaluator.recordsFinished = retires }
    }
    /// Whether finished requests leave (a center's engine); a stream's (``StreamSession``)
    /// keeps them, as `run` always has: its evaluator lists none.
    private let retires: Bool
    /// Live requests by exact identifier, with their add sequence (the order of pending
    /// lists and of the next migration). Not swift-collections' `OrderedDictionary`: a
    /// replaced request moves to the end and a removal leaves a gap, each O(n) there (the
    /// latency of one change with a million requests); here both are O(1), and the order is
    /// sorted out once per migration.
    private(set) var live: [ExactKey: (seq: Int, request: NotificationRequest)] = [:]
    private var nextSeq = 0
    /// The add sequence of each of the evaluator's requests, by position (valid while not
    /// ``dirty``): ascending, as the evaluator's requests are in add order (a migration lists
    /// them so, and appends come last). A request removed in place keeps its place and number.
    /// Pages of the pending list (``pendingPage(device:after:limit:)``) are found by it.
    private(set) var seqs: [Int] = []
    /// The first sequence number of the restored requests, while ``restoredOrder`` holds them.
    private var restoredFirstSeq = 0
    /// Evaluator request index of each live request (valid while not ``dirty``).
    private(set) var indexOf: [ExactKey: Int32] = [:]
    /// Identifiers whose state must start afresh at the next migration (replaced requests).
    private var fresh: Set<ExactKey> = []
    private var dirty = false
    /// Requests removed in place and still in the evaluator.
    private var deadCount = 0
    /// Their identifiers: one added again before the next migration starts afresh (the dead
    /// entry's state must not be carried over to it by identifier).
    private var killed: Set<ExactKey> = []
    /// Whether requests not seen by the validator (restored ones) wait for the next
    /// migration, which then checks their polygons.
    private var unchecked = false
    /// The live requests in add order, when they are exactly the restored ones (no change
    /// since ``record(restored:)``): the next migration needs no sort.
    private var restoredOrder: [NotificationRequest]?
    /// Time-based requests appended in place since the last migration.
    private var appendedCount = 0
    /// Whether the next migration keeps the evaluator's device numbers in their order (set
    /// by a restore for its one migration, reset once restored: see ``number(restoredDevices:)``).
    var keepsDeviceOrder = false

    /// `started` false: the stream is started by the caller (a restore starts it once, at
    /// the saved stream's start).
    init(options: StreamOptions, start: Int64, started: Bool = true) {
        retires = true
        evaluator = StreamEvaluator(requests: [], options: options)
        evaluator.recordsFinished = true
        if started { evaluator.start(defaultAddedAt: start) }
    }

    /// An engine over an evaluator built (and maybe stepped) elsewhere, which keeps its
    /// finished requests: its requests are taken as added in their order. `run` hands its
    /// evaluator over at the stream's first change (``StreamSession``). The evaluator's
    /// identifiers must be unique and none of its requests removed in place (a requests
    /// file's set, migrated or not); otherwise the next change rebuilds. O(n).
    init(adopting e: StreamEvaluator) {
        retires = false
        evaluator = e
        e.recordsFinished = false
        let n = e.requests.count
        live.reserveCapacity(n + Swift.max(64, n / 8) + 1)
        indexOf.reserveCapacity(n + Swift.max(64, n / 8) + 1)
        for (i, r) in e.requests.enumerated() {
            let key = ExactKey(r.identifier)
            live[key] = (i, r)
            indexOf[key] = Int32(i)
        }
        seqs = Array(0..<n)
        nextSeq = n
        // (Duplicates would leave positions without a live request: rebuilt at once.)
        dirty = live.count != n
    }

    /// The evaluator with every recorded change applied.
    var current: StreamEvaluator {
        // Compaction: dead entries past half, or many appended triggers (they have no
        // identifier rank, so their ties are sorted by string at every pop).
        if dirty || deadCount > Swift.max(1024, evaluator.requests.count / 2)
            || appendedCount > Swift.max(64, evaluator.requests.count / 8) {
            // Room for the appends until the next compaction (see below), made while the
            // list is built, not by a copy afterwards.
            let room = Swift.max(64, live.count / 8) + 1
            var ordered: [NotificationRequest]
            if let restored = restoredOrder.take() {
                ordered = restored
                ordered.reserveCapacity(ordered.count + room)
                seqs = Array(restoredFirstSeq..<(restoredFirstSeq + restored.count))
            } else {
                (ordered, seqs) = Self.inAddOrder(live.values, room: room)
            }
            seqs.reserveCapacity(seqs.count + room)
            // Requests the center added passed the validator, polygons included; restored
            // ones are checked here, at every build while one of them is refused (checked
            // once, a refused polygon was indexed by the next build and fired, GEOS deciding
            // on an invalid geometry; found by a reviewer).
            // (The list given up: the evaluator's copy is then its only owner, and the room
            // below costs no copy.)
            evaluator = evaluator.migrated(to: consume ordered, fresh: fresh.map(\.string), polygonsValidated: !unchecked,
                                           keepingDeviceOrder: keepsDeviceOrder)
            keepsDeviceOrder = false
            assert(evaluator.requests.count == seqs.count, "a migration that did not keep every request")
            unchecked = !evaluator.refusedRegions.isEmpty
            indexOf.removeAll(keepingCapacity: true)
            indexOf.reserveCapacity(evaluator.requests.count + room)
            for (i, r) in evaluator.requests.enumerated() { indexOf[ExactKey(r.identifier)] = Int32(i) }
            // Appends until the next compaction never reallocate nor rehash (see the
            // compaction bound): growing a 1M-entry table took 15 ms, the latency of one add.
            evaluator.reserveForAppends(room)
            live.reserveCapacity(live.count + room)
            fresh.removeAll()
            dirty = false
            deadCount = 0
            appendedCount = 0
            killed.removeAll()
        }
        return evaluator
    }

    /// The requests in add order, and their sequence numbers: the numbers sorted with their
    /// positions (16 bytes each), not the 240-byte entries (moving those was most of sorting
    /// a million). With capacity for `room` more.
    private static func inAddOrder(_ values: Dictionary<ExactKey, (seq: Int, request: NotificationRequest)>.Values,
                                   room: Int) -> (requests: [NotificationRequest], seqs: [Int]) {
        var order: [(seq: Int, at: Dictionary<ExactKey, (seq: Int, request: NotificationRequest)>.Index)] = []
        order.reserveCapacity(values.count)
        var i = values.startIndex
        while i != values.endIndex {
            order.append((values[i].seq, i))
            values.formIndex(after: &i)
        }
        order.sort { $0.seq < $1.seq }
        var out: [NotificationRequest] = []
        out.reserveCapacity(order.count + room)
        for o in order { out.append(values[o.at].request) }
        return (out, order.map(\.seq))
    }

    /// The evaluator without requests removed in place (for snapshots, which name requests
    /// by position), and with every request applied by one build: regions and time triggers
    /// numbered as a build over the same requests numbers them (in-place appends number
    /// them in add order), so a snapshot's slots are those of the evaluator a restore builds.
    var compacted: StreamEvaluator {
        if deadCount > 0 || appendedCount > 0 { dirty = true }
        return current
    }

    /// Adds or replaces (by exact identifier) a validated request with `addedAt` set.
    /// O(log n) for a time-based request, O(1) for a circle appended in place; otherwise O(1)
    /// now and a migration at the next step.
    ///
    /// `validated` false: the request did not pass the validator (one restored from an old
    /// snapshot's bytes): its polygon is checked where it is indexed.
    func add(_ r: NotificationRequest, validated: Bool = true) {
        if !validated { unchecked = true }
        restoredOrder = nil
        let key = ExactKey(r.identifier)
        let replaced = live[key] != nil || killed.contains(key)
        let seq = nextSeq
        live[key] = (seq, r)
        nextSeq += 1
        if !dirty {
            let appended: Int32?
            if case .location = r.trigger {
                appended = evaluator.appendLocationRequest(r, validated: validated)
            } else {
                appended = evaluator.appendTimeRequest(r)
            }
            if let i = appended {
                // The request it replaces is removed in place only now that the new one is in
                // place: one that must be rebuilt leaves the old live until the rebuild, as a
                // rebuild at once would find it. (Killed first, a fence with rules replaced by
                // one was the last live fence at the rebuild, which then forgot the devices'
                // recent fixes: the new fence's crossings from them were lost. Found by a
                // helper comparing `run`'s control lines with rebuilding at every change.)
                if let old = indexOf.removeValue(forKey: key) {
                    evaluator.kill(request: old)
                    deadCount += 1
                    killed.insert(key)
                }
                assert(Int(i) == seqs.count, "an append out of step with the sequence numbers")
                indexOf[key] = i
                seqs.append(seq)
                appendedCount += 1
                return
            }
        }
        if replaced { fresh.insert(key) }
        dirty = true
    }

    /// Records requests restored from a format 3 snapshot (in add order, each with `addedAt`
    /// set) without applying each in place: the next step or query builds the evaluator over
    /// all of them at once (one migration, on every core), numbering regions and time
    /// triggers as the compacted center the snapshot was taken from did. Their polygons are
    /// checked there, as the snapshot's bytes were not validated.
    ///
    /// - Complexity: O(requests) now; the migration O(requests + devices).
    func record(restored requests: consuming [NotificationRequest]) {
        var inOrder = live.isEmpty
        restoredFirstSeq = nextSeq
        // With the room the migration would make for the appends after it (no rehash there).
        live.reserveCapacity(live.count + requests.count + Swift.max(64, (live.count + requests.count) / 8) + 1)
        for i in requests.indices {
            let r = requests[i]
            let key = ExactKey(r.identifier)
            if live[key] != nil || killed.contains(key) {
                fresh.insert(key)
                inOrder = false
            }
            live[key] = (nextSeq, r)
            nextSeq += 1
        }
        // Already in add order, each once: the migration takes the list as it is.
        restoredOrder = inOrder ? consume requests : nil
        dirty = true
        unchecked = true
    }

    /// Numbers a snapshot's devices (before its requests are recorded) in the order the
    /// snapshot lists them, the order its center had numbered them; the migration that
    /// builds the restored requests keeps it. Without this the build numbered first the
    /// devices its fences with rules are scoped to, and the restore the snapshot's others
    /// after them: the restored center's snapshot listed its devices (and its fences'
    /// devices) in another order than the bytes it was restored from. O(devices).
    func number(restoredDevices names: [String]) {
        for name in names { _ = evaluator.device(named: name) }
        keepsDeviceOrder = true
    }

    /// Removes requests by exact identifier; returns how many were there. O(k log n).
    @discardableResult
    func remove(identifiers ids: [String]) -> Int {
        var count = 0
        for id in ids {
            let key = ExactKey(id)
            guard live.removeValue(forKey: key) != nil else { continue }
            restoredOrder = nil
            count += 1
            fresh.remove(key)
            if !dirty, let i = indexOf.removeValue(forKey: key) {
                evaluator.kill(request: i)
                deadCount += 1
                killed.insert(key)
            } else {
                dirty = true
            }
        }
        return count
    }

    /// Drops the requests that finished in the steps since the last call: time triggers at
    /// their last fire (one-shots, repeating ones that ran out), device-scoped one-shot regions
    /// that fired, and requests whose `expiresAt` passed. As in Apple's center, they leave the
    /// pending list and the center; their deliveries keep them. Without this a center taking
    /// one-shots for ever grew for ever, and `serve`'s request limit counted them. Call right
    /// after a step (its positions). O(finished).
    func retireFinished() {
        let e = evaluator
        var ended = e.finishedRequests
        e.finishedRequests.removeAll(keepingCapacity: true)
        ended += e.takeRequestsEndedByRules()
        // Positions are the evaluator's as the step left it (a step never leaves it dirty).
        guard !ended.isEmpty, !dirty else { return }
        for i in ended {
            let key = ExactKey(e.requests[Int(i)].identifier)
            // Replaced or removed since it was built: not this request any more.
            guard indexOf[key] == i else { continue }
            indexOf.removeValue(forKey: key)
            live.removeValue(forKey: key)
            e.kill(request: i)
            deadCount += 1
            killed.insert(key)
        }
    }

    /// Drops every request that cannot fire any more (a restored center's: a snapshot of an
    /// earlier release kept finished requests), as the live center would have. One with an
    /// `expiresAt` stays: live, such a request whose next fire lies past its expiry is held
    /// until the clock of the fences with rules acts on its expiry, at the next step that
    /// moves time to it (the restored clock has it queued too). Dropped here at once, the
    /// restore differed from the uninterrupted center: first while the expiry was ahead, then
    /// while a fix leading the clock had carried the stream time past it (both found by a
    /// helper comparing restored and uninterrupted centers). O(n).
    func retireNotPending() {
        let e = current
        let flags = pendingFlags(e)
        var ended: [Int32] = []
        for (i, pending) in flags.enumerated() where !pending && e.requests[i].expiresAt == nil {
            ended.append(Int32(i))
        }
        e.finishedRequests += ended
        retireFinished()
    }

    func removeAll() {
        restoredOrder = nil
        live.removeAll()
        indexOf.removeAll()
        fresh.removeAll()
        dirty = true
    }
}
