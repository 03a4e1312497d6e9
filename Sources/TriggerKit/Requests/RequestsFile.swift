import Foundation

/// Where a request sits in its file: a line of NDJSON or an index of a JSON array.
public enum RequestLocation: Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number of an NDJSON file.
    case line(Int)
    /// 0-based index in a JSON array file.
    case index(Int)

    /// As diagnostics print it after the file name (contract section 5): a line as its
    /// number (`requests.ndjson:4`), an array element as its index in brackets
    /// (`requests.json:[3]`), so the two cannot be mistaken for each other.
    public var description: String {
        switch self {
        case .line(let n): "\(n)"
        case .index(let n): "[\(n)]"
        }
    }
}

/// One problem found while reading requests, printed as
/// `error: <file>:<line or index>: <identifier>: <code>: <message>`.
public struct RequestDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// An error refuses the request; a warning accepts it.
    public enum Severity: String, Sendable, Hashable {
        /// The request was refused.
        case error
        /// The request was accepted; something in it was ignored or is worth a look.
        case warning
    }

    /// Whether the request was refused.
    public var severity: Severity
    /// The requests file's name as given.
    public var file: String
    /// Where in the file: the line (NDJSON) or the array index; `nil` for the whole file.
    public var location: RequestLocation?
    /// The request's identifier when it could be read.
    public var identifier: String?
    /// The error code; `nil` for warnings.
    public var code: RequestErrorCode?
    /// What is wrong, naming the field (one line).
    public var message: String
    /// The refused field as a path into the request's JSON (``RequestError/field``); nil for
    /// warnings and for refusals about no one field.
    public var field: String? = nil

    public var description: String {
        var s = "\(severity.rawValue): \(DiagnosticText.escaped(file))"
        if let location { s += ":\(location)" }
        // One line whatever the input held (``DiagnosticText``).
        s += ": \(DiagnosticText.clipped(identifier ?? "-")): "
        if let code { s += "\(code.rawValue): " }
        return s + DiagnosticText.clipped(message, limit: 4096)
    }
}

/// The outcome of reading a requests file: the accepted requests (a repeated identifier
/// replaced by its later request, which takes the later position) and every problem.
public struct RequestSet: Sendable {
    /// Accepted requests, in input order.
    public var requests: [NotificationRequest]
    /// Where each accepted request came from (parallel to ``requests``).
    public var locations: [RequestLocation]
    /// Errors and warnings in input order.
    public var diagnostics: [RequestDiagnostic]
    /// Number of request records read (accepted, refused and replaced).
    public var recordCount: Int

    /// Requests refused.
    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    /// Warnings about accepted requests.
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    /// `N requests: N ok, N errors, N warnings`.
    public var summary: String {
        "\(recordCount) requests: \(recordCount - errorCount) ok, \(errorCount) errors, \(warningCount) warnings"
    }
}

/// Reads requests files: a JSON array of request objects, or NDJSON (one object per line;
/// blank lines and lines starting with `#` are ignored). A bad request never stops the others.
public enum RequestsFile: Sendable {
    /// Reads and validates the requests in a file.
    ///
    /// - Parameters:
    ///   - path: the file; `-` reads standard input.
    ///   - options: what validation needs to know (reference time, floating zone).
    /// - Throws: ``RequestsFileError`` only when the file cannot be read at all, or when
    ///   another process changed it while it was being read (nothing read is returned then).
    /// - Complexity: O(n) in the file's size.
    public static func load(path: String, options: ValidationOptions = .init()) throws(RequestsFileError) -> RequestSet {
        try load(path: path, options: options, afterSplit: {})
    }

    /// ``load(path:options:)``; `afterSplit` runs once an NDJSON file's lines are found,
    /// before they are decoded (tests change the file there).
    static func load(path: String, options: ValidationOptions, afterSplit: () -> Void) throws(RequestsFileError) -> RequestSet {
        if path != "-", InputFile.isRegular(path), let mapped = MappedFile(path: path) {
            let set = parse(mapped.bytes, file: path, options: options, parallel: true, afterSplit: afterSplit)
            guard mapped.finish() else {
                throw RequestsFileError(path: path, reason: "the file changed while it was being read "
                    + "(replace a requests file by renaming a new file over it, not by rewriting it in place)")
            }
            return set
        }
        let data: Data
        switch path == "-" ? InputFile.contents(ofDescriptor: 0) : InputFile.contents(of: path) {
        case .success(let d): data = d
        case .failure(let e): throw RequestsFileError(path: path, reason: e.reason)
        }
        return data.withUnsafeBytes { raw in
            parse(raw.bindMemory(to: UInt8.self), file: path, options: options)
        }
    }

    /// Reads requests from text already in memory; `file` names it in diagnostics.
    public static func parse(_ text: String, file: String = "<input>", options: ValidationOptions = .init()) -> RequestSet {
        var t = text
        return t.withUTF8 { parse($0, file: file, options: options) }
    }

    /// Reads requests from UTF-8 bytes; `file` names them in diagnostics.
    @_spi(Engine) public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, file: String, options: ValidationOptions = .init()) -> RequestSet {
        parse(bytes, file: file, options: options, parallel: true)
    }

    /// ``parse(_:file:options:)-(UnsafeBufferPointer<UInt8>,_,_)``; `parallel` false decodes
    /// one record after the other, `direct` false builds every record's JSON tree (no
    /// ``RequestRecordDecoder``): the references the fast paths are tested against.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, file: String, options: ValidationOptions, parallel: Bool,
                      direct: Bool = true, afterSplit: () -> Void = {}) -> RequestSet {
        var builder = Builder(file: file, options: options)
        var k = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { k = 3 }  // UTF-8 BOM
        var first = k
        while first < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[first]) { first += 1 }
        if first < bytes.count, bytes[first] == UInt8(ascii: "[") {
            do throws(JSONSyntaxError) {
                let doc = try JSONValue.parse(UnsafeBufferPointer(rebasing: bytes[k...]))
                guard case .array(let items) = doc else { return builder.finish() }
                decodeAll(count: items.count, options: options, parallel: parallel, { i in .json(items[i]) },
                          started: { builder.reserve(items.count) }, ahead: { builder.warm($0) }) { i, outcome in
                    builder.register(outcome, at: .index(i))
                }
            } catch {
                let line = 1 + bytes[..<min(bytes.count, k + error.offset)].count(where: { $0 == 0x0A })
                builder.refuse(at: .line(line), identifier: nil, RequestError(.invalidRequest, "the JSON array is malformed: \(error.reason); no request of this file was read"))
            }
            return builder.finish()
        }
        // The request lines (not blank, not comments), then each decoded (on every core for a
        // large file), then registered in file order: the same result as one line at a time.
        let spans = Self.requestLines(bytes, from: k, pieces: parallel ? ParallelChunks.defaultPieces : 1)
        afterSplit()
        decodeAll(count: spans.count, options: options, parallel: parallel, { i in
            let (_, lineStart, s, e) = spans[i]
            let record = UnsafeBufferPointer(rebasing: bytes[s..<e])
            if direct, let request = RequestRecordDecoder.decode(record) { return .shaped(request) }
            do throws(JSONSyntaxError) {
                return .json(try JSONValue.parse(record))
            } catch {
                // Columns count from the line's start (after the BOM on line 1), kept from the
                // split: not found again by reading backwards, which a file that changed while
                // mapped (zeros where lines were) made a walk to the file's start per line.
                return .syntax("not valid JSON: \(error.reason) (column \(error.offset + 1 + s - lineStart))")
            }
        }, started: { builder.reserve(spans.count) }, ahead: { builder.warm($0) }) { i, outcome in
            builder.register(outcome, at: .line(spans[i].line))
        }
        return builder.finish()
    }

    /// The requests in file order, a later one with the same identifier replacing the
    /// earlier and taking its later position. Not swift-collections' `OrderedDictionary`:
    /// moving an entry to the end there is a removal, O(n), so a file replacing many early
    /// requests would load in O(n^2); a slot table with holes does it in O(1). The holes are
    /// a set on the side, so a file without replacements is returned without a copy.
    private struct Builder {
        let file: String
        let options: ValidationOptions
        var requests: [NotificationRequest] = []
        var replaced: Set<Int> = []
        var locations: [RequestLocation] = []
        var slotByIdentifier = IdentifierSlots()
        var diagnostics: [RequestDiagnostic] = []
        var records = 0

        init(file: String, options: ValidationOptions) {
            self.file = file
            self.options = options
        }

        mutating func refuse(at loc: RequestLocation, identifier: String?, _ e: RequestError) {
            records += 1
            diagnostics.append(RequestDiagnostic(severity: .error, file: file, location: loc, identifier: identifier, code: e.code, message: e.message,
                                             field: e.field))
        }

        mutating func reserve(_ n: Int) {
            requests.reserveCapacity(n)
            locations.reserveCapacity(n)
            slotByIdentifier = IdentifierSlots(capacity: n)
        }

        /// Brings the buckets a chunk's identifiers will probe into the cache, all at once:
        /// loads that do not wait on each other overlap, where registering one request after
        /// another waited on one cache miss each (half of this thread's time for a million).
        mutating func warm(_ hashes: UnsafeBufferPointer<UInt64>) {
            for hash in hashes { slotByIdentifier.touch(hash) }
        }

        mutating func register(_ outcome: consuming Decoded, at loc: RequestLocation) {
            switch consume outcome {
            case .refused(let id, let error):
                refuse(at: loc, identifier: id, error)
            case .request(let request, let warnings, let hash):
                records += 1
                for w in warnings {
                    diagnostics.append(RequestDiagnostic(severity: .warning, file: file, location: loc, identifier: request.identifier, code: nil, message: w))
                }
                // One probe per request: the slot is claimed and the old one returned at once.
                // (The closure sees the identifier only, so the request itself is moved into
                // the list below, not copied for the closure and released after.)
                let key = ExactKey(request.identifier)
                let previous = requests.withUnsafeBufferPointer { list in
                    slotByIdentifier.claim(hash: hash, slot: list.count) { ExactKey(list[$0].identifier) == key }
                }
                if let old = previous {
                    diagnostics.append(RequestDiagnostic(severity: .warning, file: file, location: loc, identifier: request.identifier, code: nil,
                                                         message: "replaces the request with the same identifier at \(locations[old].isLine ? "line \(locations[old])" : "\(locations[old])")"))
                    replaced.insert(old)
                }
                requests.append(consume request)
                locations.append(loc)
            }
        }

        consuming func finish() -> RequestSet {
            guard !replaced.isEmpty else {
                return RequestSet(requests: requests, locations: locations, diagnostics: diagnostics, recordCount: records)
            }
            var out: [NotificationRequest] = []
            var locs: [RequestLocation] = []
            out.reserveCapacity(requests.count - replaced.count)
            locs.reserveCapacity(requests.count - replaced.count)
            for k in requests.indices where !replaced.contains(k) {
                out.append(requests[k])
                locs.append(locations[k])
            }
            return RequestSet(requests: out, locations: locs, diagnostics: diagnostics, recordCount: records)
        }
    }
}

extension RequestLocation {
    var isLine: Bool { if case .line = self { true } else { false } }
}

/// A requests file that could not be read at all (missing, unreadable).
public struct RequestsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// Why it could not be read (missing, a directory, not UTF-8, ...).
    public var reason: String
    public var description: String { "cannot read requests file \(path == "-" ? "- (standard input)" : path): \(reason)" }
}
