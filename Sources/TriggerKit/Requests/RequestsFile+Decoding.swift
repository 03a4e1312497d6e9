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
        case request(NotificationRequest, warnings: [String])
        case refused(identifier: String?, RequestError)
    }

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
    static func decodeAll(count: Int, options: ValidationOptions, parallel: Bool = true, _ raw: (Int) -> Raw,
                          consume: (Int, consuming Decoded) -> Void) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard parallel, count >= parallelThreshold, cores > 1 else {
            for i in 0..<count { consume(i, decode(raw(i), options: options)) }
            return
        }
        // Many small chunks: the caller starts on the first soon, and the workers, taking
        // chunks in turn (worker w: w, w + workers, ...), stay about as far apart as one chunk.
        let chunks = min(count, 64 * cores)
        let workers = cores
        // A chunk's verdicts are moved out one by one as they are consumed (an array would
        // be copied out, retaining every request's strings, then released).
        let results = UnsafeMutableBufferPointer<UnsafeMutableBufferPointer<Decoded>>.allocate(capacity: chunks)
        defer { results.deallocate() }
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
            // Threads of their own: the caller may itself be one of the (two) threads of
            // Dispatch's pool, which it blocks while it waits; a worker queued behind it
            // would not start until the end.
            for w in 0..<workers {
                done.enter()
                Thread {
                    defer { done.leave() }
                    for c in stride(from: w, to: chunks, by: workers) {
                        let lo = count * c / chunks, hi = count * (c + 1) / chunks
                        let out = UnsafeMutableBufferPointer<Decoded>.allocate(capacity: hi - lo)
                        for i in lo..<hi { (out.baseAddress! + (i - lo)).initialize(to: decode(raw.pointee(i), options: options)) }
                        results[c] = out
                        ready[c].signal()
                    }
                }.start()
            }
            for c in 0..<chunks {
                ready[c].wait()
                let lo = count * c / chunks
                let out = results[c]
                for k in out.indices { consume(lo + k, (out.baseAddress! + k).move()) }
                out.deallocate()
            }
            // The workers have signalled their last chunk; let them return before `raw` goes.
            done.wait()
        }
    }

    /// The one validator's verdict on one record.
    static func decode(_ raw: Raw, options: ValidationOptions) -> Decoded {
        let json: JSONValue
        switch raw {
        case .syntax(let reason): return .refused(identifier: nil, RequestError(.invalidRequest, reason))
        case .json(let j): json = j
        case .shaped(let request):
            do throws(RequestError) {
                try RequestValidation.validate(request, options: options)
                return .request(request, warnings: [])
            } catch {
                return .refused(identifier: request.identifier.isEmpty ? nil : request.identifier, error)
            }
        }
        var warnings: [String] = []
        do throws(RequestError) {
            let request = try NotificationRequest(decoding: json, warnings: &warnings)
            try RequestValidation.validate(request, options: options)
            return .request(request, warnings: warnings)
        } catch {
            var id: String?
            if case .object(let o) = json, case .string(let s)? = o["identifier"], !s.isEmpty { id = s }
            return .refused(identifier: id, error)
        }
    }
}
