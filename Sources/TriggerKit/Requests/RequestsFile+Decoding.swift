import Foundation

// Decoding a requests file's records, in parallel for a large file. Each record's decoding
// and validation depends on nothing but the record and the options; only registering them
// (replacements, diagnostics, order) is sequential.

extension RequestsFile {
    /// One record, before it is parsed: its JSON, or the reason it is not JSON.
    enum Raw {
        case json(JSONValue)
        case syntax(String)
    }

    /// One record, decoded and validated.
    enum Decoded {
        case request(NotificationRequest, warnings: [String])
        case refused(identifier: String?, RequestError)
    }

    /// Below this many records a file is decoded on the calling thread (starting workers
    /// costs more than it saves).
    static let parallelThreshold = 2_048

    /// Decodes records `0..<count` (`raw(i)` gives record `i`, parsed as it is read) in
    /// order. A large file is cut into a few chunks per core, decoded concurrently; the
    /// result is the same as decoding one record after the other.
    static func decodeAll(count: Int, options: ValidationOptions, parallel: Bool = true, _ raw: (Int) -> Raw) -> [Decoded] {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard parallel, count >= parallelThreshold, cores > 1 else {
            return (0..<count).map { decode(raw($0), options: options) }
        }
        let chunks = min(count, 4 * cores)
        let results = UnsafeMutableBufferPointer<[Decoded]>.allocate(capacity: chunks)
        results.initialize(repeating: [])
        defer { results.deinitialize(); results.deallocate() }
        withoutActuallyEscaping(raw) { raw in
            // Each chunk writes only its own element of `results`.
            nonisolated(unsafe) let raw = raw
            nonisolated(unsafe) let results = results
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                let lo = count * c / chunks, hi = count * (c + 1) / chunks
                var out: [Decoded] = []
                out.reserveCapacity(hi - lo)
                for i in lo..<hi { out.append(decode(raw(i), options: options)) }
                results[c] = out
            }
        }
        var all: [Decoded] = []
        all.reserveCapacity(count)
        for c in 0..<chunks { all.append(contentsOf: results[c]) }
        return all
    }

    /// The one validator's verdict on one record.
    static func decode(_ raw: Raw, options: ValidationOptions) -> Decoded {
        let json: JSONValue
        switch raw {
        case .syntax(let reason): return .refused(identifier: nil, RequestError(.invalidRequest, reason))
        case .json(let j): json = j
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
