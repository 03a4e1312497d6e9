import Foundation

// Decoding a requests file's records, in parallel for a large file. Each record's decoding
// and validation depends on nothing but the record and the options; only registering them
// (replacements, diagnostics, order) is sequential.

extension RequestsFile {
    /// One record, before it is parsed: its JSON, or the reason it is not JSON.
    enum Raw {
        case json(JSONValue)
        case syntax(String)
        /// Decoded straight from its bytes (``RequestRecordDecoder``), not yet validated.
        case shaped(NotificationRequest)
    }

    /// One record, decoded and validated.
    enum Decoded {
        /// A valid request, and its identifier's ``IdentifierSlots/hash(_:)`` (computed here,
        /// on the decoding thread, not where records are registered one after the other).
        case request(NotificationRequest, warnings: [String], hash: UInt64)
        case refused(identifier: String?, RequestError)

        /// A request's hash, 0 for a refusal.
        var hash: UInt64 {
            switch self {
            case .request(_, _, let hash): hash
            case .refused: 0
            }
        }
    }

    /// Records whose hashes `decodeAll`'s `ahead` sees at once.
    static let aheadBatch = 64

    /// Below this many records a file is decoded on the calling thread (starting workers
    /// costs more than it saves).
    static let parallelThreshold = 2_048

    /// Decodes records `0..<count` (`raw(i)` gives record `i`, parsed as it is read) and hands
    /// each verdict to `consume` in record order, on the calling thread. A large file is cut
    /// into chunks decoded on every core while the caller consumes the finished ones (so
    /// registering overlaps decoding, and a chunk's verdicts are freed once consumed): the
    /// same calls, in the same order, as decoding one record after the other.
    ///
    /// - Complexity: O(n) work; memory for the chunks decoded but not yet consumed.
    ///
    /// `started` runs once on the calling thread before the first `consume`: in a parallel
    /// decode, once the workers have started (the caller's set-up overlaps their first chunks).
    ///
    /// `ahead` sees the identifier hashes of each parallel chunk's requests (0 for a refused
    /// record), in order on the calling thread, before the chunk's verdicts are consumed: the
    /// caller may touch the memory that consuming them will need.
    static func decodeAll(count: Int, options: ValidationOptions, parallel: Bool = true, _ raw: (Int) -> Raw,
                          started: () -> Void = {}, ahead: (UnsafeBufferPointer<UInt64>) -> Void = { _ in },
                          consume: (Int, consuming Decoded) -> Void) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard parallel, count >= parallelThreshold, cores > 1 else {
            started()
            for i in 0..<count { consume(i, decode(raw(i), options: options)) }
            return
        }
        // Many small chunks: the caller starts on the first soon, and the workers, each taking
        // the next chunk no one has taken, stay about as far apart as one chunk. (Taken in
        // turn, worker w: w, w + workers, ..., the worker that shared a core with the caller
        // still had a third of its half to decode when the other had finished: 0.35 s of a
        // million requests with one core idle.)
        let chunks = min(count, 64 * cores)
        let claims = ChunkClaims()
        let workers = cores
        // A chunk's verdicts are moved out one by one as they are consumed (an array would
        // be copied out, retaining every request's strings, then released).
        let results = UnsafeMutableBufferPointer<UnsafeMutableBufferPointer<Decoded>>.allocate(capacity: chunks)
        defer { results.deallocate() }
        // Each chunk's hashes, read by `ahead` apart from the verdicts (reading them from the
        // verdicts there retained and released each request: atomic operations, which keep
        // the cache misses `ahead` is for from overlapping).
        let hashes = UnsafeMutableBufferPointer<UnsafeMutableBufferPointer<UInt64>>.allocate(capacity: chunks)
        defer { hashes.deallocate() }
        let ready = (0..<chunks).map { _ in DispatchSemaphore(value: 0) }
        let done = DispatchGroup()
        withoutActuallyEscaping(raw) { raw in
            // The threads reach `raw` through a pointer the caller clears before this block
            // ends: a thread object may keep its closure a little after the thread's last
            // chunk, and that closure must not hold `raw` then.
            let rawBox = UnsafeMutablePointer<(Int) -> Raw>.allocate(capacity: 1)
            rawBox.initialize(to: raw)
            defer { rawBox.deinitialize(count: 1); rawBox.deallocate() }
            // Each chunk is written by one worker, then read by the caller after its signal.
            nonisolated(unsafe) let raw = rawBox
            nonisolated(unsafe) let results = results
            nonisolated(unsafe) let hashes = hashes
            // Threads of their own: the caller may itself be one of the (two) threads of
            // Dispatch's pool, which it blocks while it waits; a worker queued behind it
            // would not start until the end.
            for _ in 0..<workers {
                done.enter()
                Thread {
                    defer { done.leave() }
                    while let c = claims.next(below: chunks) {
                        let lo = count * c / chunks, hi = count * (c + 1) / chunks
                        let out = UnsafeMutableBufferPointer<Decoded>.allocate(capacity: hi - lo)
                        let keys = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: hi - lo)
                        for i in lo..<hi {
                            // The hash read through a borrow and the verdict moved in: matched
                            // in place, then copied in, it was a retain and a release of each
                            // of its strings.
                            let verdict = decode(raw.pointee(i), options: options)
                            keys[i - lo] = verdict.hash
                            (out.baseAddress! + (i - lo)).initialize(to: consume verdict)
                        }
                        results[c] = out
                        hashes[c] = keys
                        ready[c].signal()
                    }
                }.start()
            }
            // The caller's set-up (room for the results) while the first chunks are decoded.
            started()
            for c in 0..<chunks {
                ready[c].wait()
                let lo = count * c / chunks
                let out = results[c]
                // `ahead` runs a batch at a time: what it brings into the cache for a whole
                // chunk (thousands of records) was evicted by consuming the first records.
                for batch in stride(from: 0, to: out.count, by: Self.aheadBatch) {
                    let end = min(out.count, batch + Self.aheadBatch)
                    ahead(UnsafeBufferPointer(rebasing: hashes[c][batch..<end]))
                    for k in batch..<end { consume(lo + k, (out.baseAddress! + k).move()) }
                }
                hashes[c].deallocate()
                out.deallocate()
            }
            // The workers have signalled their last chunk; let them return before `raw` goes.
            done.wait()
        }
    }

    /// The one validator's verdict on one record.
    static func decode(_ raw: consuming Raw, options: ValidationOptions) -> Decoded {
        let json: JSONValue
        // Consumed, so a decoded request is moved into the verdict, not copied (a retain of
        // each of its strings) and then released with the record.
        switch consume raw {
        case .syntax(let reason): return .refused(identifier: nil, RequestError(.invalidRequest, reason))
        case .json(let j): json = j
        case .shaped(let request):
            do throws(RequestError) {
                try RequestValidation.validate(request, options: options)
                return .request(request, warnings: [], hash: IdentifierSlots.hash(request.identifier))
            } catch {
                return .refused(identifier: request.identifier.isEmpty ? nil : request.identifier, error)
            }
        }
        var warnings: [String] = []
        do throws(RequestError) {
            let request = try NotificationRequest(decoding: json, warnings: &warnings)
            try RequestValidation.validate(request, options: options)
            return .request(request, warnings: warnings, hash: IdentifierSlots.hash(request.identifier))
        } catch {
            var id: String?
            if case .object(let o) = json, case .string(let s)? = o["identifier"], !s.isEmpty { id = s }
            return .refused(identifier: id, error)
        }
    }
}

/// The next chunk of a parallel decode, handed to whichever worker asks first.
private final class ChunkClaims: @unchecked Sendable {
    // @unchecked: `taken` is read and written under `lock` only.
    private let lock = NSLock()
    private var taken = 0

    /// The next chunk below `count` no worker has taken, or nil when all are taken.
    func next(below count: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard taken < count else { return nil }
        taken += 1
        return taken - 1
    }
}
