import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// A stream evaluation whose progress survives crashes: wraps a ``StreamEvaluator`` and a
/// ``StateStore``, and commits in batches.
///
/// The protocol (what `triggerkit run --state` does; an embedding service does the same):
/// 1. Create it: a saved run is restored (requests must match) and ``resumePosition`` says
///    how many input lines it already covers; skip those.
/// 2. For each further line call ``process(_:into:)`` (or ``skipLine()`` for a blank or
///    malformed one) and deliver the events it returns.
/// 3. When ``isBatchDue`` (and at end of input): first make the delivered events durable on
///    your side (flush stdout), then ``commit()``.
///
/// Guarantee: killed at any moment and restarted on the same input, every event is delivered
/// at least once, and only the events of the last uncommitted batch can be delivered again
/// (with the same `eventId`, as an event id depends only on the fire).
///
/// Not thread-safe, like the evaluator it drives.
@_spi(Engine) public final class DurableRun {
    public let evaluator: StreamEvaluator
    public let store: StateStore
    /// Lines per batch.
    public let batchLines: Int
    /// Longest time between commits while lines keep coming.
    public let batchInterval: Duration
    /// Input lines covered by the saved state when the run was opened: skip them.
    public let resumePosition: Int
    /// Input lines processed so far (the committed ones included).
    public private(set) var position: Int
    /// Input lines covered by the last commit.
    public private(set) var committedPosition: Int

    /// Digest of the input lines consumed so far (resumed ones included).
    private var digest = InputDigest()
    /// The saved digest a resumed input must reproduce over its first ``resumePosition``
    /// lines; `nil` once checked (or for a new run, or a store from before schema 2).
    private var pendingResumeCheck: String?
    private var batchEvents: [FiredEvent] = []
    /// The batch's events as the caller already rendered them (see ``adoptRendered(_:)``).
    private var rendered: [UInt8] = []
    private var adoptsRendered = false
    /// The schedule cursors as the store has them, by slot (`nil` = no next fire), or
    /// `nil` while the schedule does not exist or was never saved.
    private var savedCursors: [Int64]?
    /// The evaluator's suppressed fires at the last commit: a time fire suppressed (its
    /// device not authorized) moves its cursor without an event to show it.
    private var suppressedAtCommit = 0
    private let locationSlots: [Int32]
    private var linesSinceCommit = 0
    private var lastCommit = ContinuousClock.now
    private let clock = ContinuousClock()

    /// No cursor (a ``savedCursors`` entry).
    private static let noFire = Int64.min

    /// Opens the run: restores the saved state of `store`, or records a new run there.
    ///
    /// - Parameters:
    ///   - evaluator: a fresh evaluator over the run's requests.
    ///   - batchLines: commit after this many lines ...
    ///   - batchInterval: ... or after this much time, whichever comes first.
    /// - Throws: ``StateStoreError/requestsChanged(path:)`` when the store was written with
    ///   other requests; ``StateStoreError/database(path:reason:)`` when the saved state is
    ///   damaged (a value no run writes: see ``SnapshotRefusal/damaged(reason:)``) or SQLite fails.
    public init(evaluator: StreamEvaluator, store: StateStore, batchLines: Int = 50_000,
                batchInterval: Duration = .milliseconds(250)) throws(StateStoreError) {
        self.evaluator = evaluator
        self.store = store
        self.batchLines = Swift.max(1, batchLines)
        self.batchInterval = batchInterval
        self.locationSlots = evaluator.locationSlotsByRequest()
        // One writer at a time, decided before anything is read or written (or rendered: the
        // requests' fingerprint takes seconds for a million of them).
        try store.lockForWriting()
        // A new store renders the requests once, for their rows and the fingerprint together.
        let saved = try store.hasRun()
            ? store.loadRun(fingerprint: evaluator.requestsFingerprint) { evaluator.options.differences(from: $0) } : nil
        if let saved {
            if let options = saved.options {
                let diff = evaluator.options.differences(from: options)
                guard diff.isEmpty else { throw .optionsChanged(path: store.path, differences: diff) }
            }
            do throws(SnapshotRefusal) {
                try evaluator.restore(saved.snapshot)
            } catch {
                switch error {
                case .otherRequests: throw .requestsChanged(path: store.path)
                case .damaged(let why): throw .database(path: store.path, reason: "damaged saved state: \(why)")
                }
            }
            resumePosition = saved.inputPosition
            // A store from before schema 2, or one written through the StreamLine API, has no
            // digest to check against.
            pendingResumeCheck = saved.inputPosition > 0 && saved.inputDigest?.isEmpty == false ? saved.inputDigest : nil
            if let s = evaluator.schedule {
                var cursors = [Int64](repeating: Self.noFire, count: s.entries.count)
                for f in s.queuedFires { cursors[Int(f.slot)] = f.date }
                savedCursors = cursors
            }
            suppressedAtCommit = evaluator.stats.suppressed
        } else {
            try store.startRun(evaluator: evaluator, pending: evaluator.pendingFlags(), options: evaluator.options.resultFingerprint)
            resumePosition = 0
        }
        try store.recordHolder()
        position = resumePosition
        committedPosition = resumePosition
    }

    /// Takes one of the first ``resumePosition`` input lines, which the saved state already
    /// covers: it is not evaluated, only added to the input digest; after the last of them
    /// the digest must equal the saved one.
    ///
    /// - Throws: ``StateStoreError/inputChanged(path:reason:)`` when the input does not begin
    ///   with what was consumed; stop the run then (nothing was written).
    public func resume(lineBytes b: UnsafeBufferPointer<UInt8>) throws(StateStoreError) {
        digest.add(b)
        if digest.lines == resumePosition { try checkResumedPrefix() }
    }

    /// Call at the end of input: a resumed input shorter than what was consumed is refused.
    public func finishInput() throws(StateStoreError) {
        if digest.lines < resumePosition {
            throw .inputChanged(path: store.path, reason: "it has \(digest.lines) lines, the state consumed \(resumePosition)")
        }
    }

    private func checkResumedPrefix() throws(StateStoreError) {
        guard let saved = pendingResumeCheck else { return }
        pendingResumeCheck = nil
        guard saved == digest.description else {
            throw .inputChanged(path: store.path, reason: "its first \(resumePosition) lines differ")
        }
    }

    /// Evaluates the next input line; appends its events to `events` (and remembers them
    /// for the delivered log).
    ///
    /// - Throws: ``StreamLineError`` as ``StreamEvaluator/process(_:into:)`` (nothing changes).
    public func process(_ line: StreamLine, into events: inout [FiredEvent]) throws(StreamLineError) {
        let first = events.count
        try evaluator.process(line, into: &events)
        batchEvents.append(contentsOf: events[first...])
        position += 1
        linesSinceCommit += 1
    }

    /// Reads and evaluates the next input line (bytes without the newline) through
    /// ``StreamEvaluator/process(lineBytes:into:)``: the same as parsing it and calling
    /// ``process(_:into:)``. A line that does not parse throws before anything changes (the
    /// caller then records it and calls ``skipLine()`` as before).
    @_spi(StreamFastPath)
    public func process(lineBytes b: UnsafeBufferPointer<UInt8>, into events: inout [FiredEvent]) throws(StreamLineError) {
        let first = events.count
        try evaluator.process(lineBytes: b, into: &events)
        consumed(b, events: &events, from: first)
    }

    /// ``process(lineBytes:into:)`` for a line a reader thread already scanned, and whose
    /// geometry a ``FixLookahead`` may have decided (see
    /// ``StreamEvaluator/process(lineBytes:scanned:geometry:hits:into:)``): the same results.
    package func process(lineBytes b: UnsafeBufferPointer<UInt8>, scanned: ScannedLine, geometry: FixGeometry?,
                         hits: UnsafeBufferPointer<RegionHit>, moves: UnsafeBufferPointer<FenceMove>,
                         into events: inout [FiredEvent]) throws(StreamLineError) {
        let first = events.count
        try evaluator.process(lineBytes: b, scanned: scanned, geometry: geometry, hits: hits, moves: moves, into: &events)
        consumed(b, events: &events, from: first)
    }

    /// A line evaluated: its bytes to the digest, its events (from `first` on) to the batch.
    /// Most lines have none: then no slice is made (each cost a reference count).
    @inline(__always)
    private func consumed(_ b: UnsafeBufferPointer<UInt8>, events: inout [FiredEvent], from first: Int) {
        digest.add(b)
        if events.count > first { batchEvents.append(contentsOf: events[first...]) }
        position += 1
        linesSinceCommit += 1
    }

    /// Hands over the JSON lines the caller wrote for the events of the line just processed
    /// (exactly ``StreamEvaluator/write(_:format:to:)`` with `.json`, in order): the commit
    /// stores these bytes instead of rendering every event a second time. Once called, it
    /// must be called for every line that produced events.
    public func adoptRendered(_ bytes: ArraySlice<UInt8>) {
        adoptsRendered = true
        rendered.append(contentsOf: bytes)
    }

    /// Counts an input line that produced nothing (blank, or malformed after
    /// ``StreamEvaluator/recordMalformedLine()``), so positions keep matching the input.
    public func skipLine() {
        position += 1
        linesSinceCommit += 1
    }

    /// ``skipLine()`` for a line whose bytes are known (adds them to the input digest, which
    /// a resumed run checks). `triggerkit run` uses this one.
    public func skipLine(bytes b: UnsafeBufferPointer<UInt8>) {
        digest.add(b)
        skipLine()
    }

    /// Whether lines were consumed since the last commit.
    public var hasUncommittedLines: Bool { linesSinceCommit > 0 }

    /// Whether uncommitted lines are older than ``batchInterval`` (reads the clock: for a
    /// check per chunk of input, not per line).
    public var isBatchOld: Bool { linesSinceCommit > 0 && clock.now - lastCommit >= batchInterval }

    /// Whether the current batch is full (lines) or old (time). Reads the clock only every
    /// 64 lines: it is checked after every line of a hot loop.
    public var isBatchDue: Bool {
        if linesSinceCommit >= batchLines { return true }
        return linesSinceCommit & 63 == 0 && linesSinceCommit > 0 && clock.now - lastCommit >= batchInterval
    }

    /// Commits the batch: changed devices, cursors, finished requests, stats, stream time,
    /// the position and the batch's delivered events, in one transaction.
    ///
    /// Call it only after the batch's events were delivered (stdout flushed).
    public func commit() throws(StateStoreError) {
        var batch = StateBatch(inputPosition: position, defaultAddedAt: evaluator.defaultAddedAt,
                               streamTime: evaluator.streamTime, stats: evaluator.stats)
        batch.devices = evaluator.takeChangedDevices()
        batch.fences = evaluator.fenceSnapshot()
        batch.finishedRequests += evaluator.takeRequestsEndedByRules()
        var timeFired = false
        var log = JSONWriter()
        for e in batchEvents {
            if !adoptsRendered { evaluator.write(e, format: .json, to: &log) }
            if e.kind == .location {
                let slot = locationSlots[Int(e.request)]
                if slot >= 0 && evaluator.isLocationDone(slot) {
                    batch.doneLocationSlots.append(slot)
                    batch.finishedRequests.append(e.request)
                }
            } else {
                timeFired = true
            }
        }
        batch.deliveredLines = DeliveredLog.strip(adoptsRendered ? rendered : log.bytes)
        batch.deliveredCount = batchEvents.count
        // The digest covers exactly `position` lines when every line went through
        // process(lineBytes:) / skipLine(bytes:) / resume(lineBytes:); otherwise (the
        // StreamLine API) the input cannot be checked on resume and none is recorded.
        batch.inputDigest = digest.lines == position ? digest.description : ""
        // Cursors only move when a time trigger fired, delivered or suppressed (or the
        // schedule was just built), so most batches write none. (A batch whose time fires
        // were all suppressed kept the cursors of the batch before: `pending` on a resumed
        // run's file showed a past next fire, a helper found.)
        if evaluator.stats.suppressed != suppressedAtCommit { timeFired = true }
        suppressedAtCommit = evaluator.stats.suppressed
        if timeFired || (savedCursors == nil && evaluator.schedule != nil) { diffCursors(into: &batch) }
        try store.commit(batch)
        batchEvents.removeAll(keepingCapacity: true)
        rendered.removeAll(keepingCapacity: true)
        committedPosition = position
        linesSinceCommit = 0
        lastCommit = clock.now
    }

    /// Compares the schedule's queue with the saved cursors: O(time triggers), no SQL for
    /// unchanged ones.
    private func diffCursors(into batch: inout StateBatch) {
        guard let s = evaluator.schedule else { return }
        var current = [Int64](repeating: Self.noFire, count: s.entries.count)
        for f in s.queuedFires { current[Int(f.slot)] = f.date }
        let old = savedCursors
        for slot in current.indices {
            let was = old?[slot]
            let now = current[slot]
            if was == now { continue }
            if now != Self.noFire {
                batch.cursors.append(.init(slot: Int32(slot), date: now))
            } else {
                // No next fire any more: the trigger is finished (a non-repeating one fired,
                // or a repeating one ran out of dates), so its request is no longer pending.
                if old != nil { batch.finishedCursors.append(Int32(slot)) }
                batch.finishedRequests.append(s.entries[slot].request)
            }
        }
        savedCursors = current
    }
}
