import Foundation

/// The requests and categories of a stream whose lines change them (control lines: `add`,
/// `remove`, `respond`, `categories`), as `triggerkit run` reads them. Each change is
/// validated as a requests-file line is (``RequestValidation/admit(_:at:options:settings:categories:)``)
/// and applied to the evaluator in place by the live center's engine (``LiveEngine``),
/// keeping every other request's state.
///
/// A stream without changes pays nothing: the session holds no requests until the first
/// change, which adopts the evaluator's (O(n), once; about 200 bytes a request for the
/// engine's tables: 41 MB at 200,000 requests). After that a change costs what it costs
/// the live center: O(log n) for a time-based request, O(1) amortised for a region without
/// rules, a removal O(k log n); a request with fence rules or an `expiresAt`, or one before
/// the stream's first line, rebuilds the evaluator (O(n + devices)), and the engine compacts
/// once removed entries pass half of the requests or appended ones an eighth (amortised O(1)
/// a change). Before, every change rebuilt the evaluator: 8,000 `add` lines took minutes.
///
/// Unlike the center, a stream keeps requests that finished (a one-shot that fired): an `add`
/// with the same identifier still reports the replacement, and a `respond` line still finds
/// the request.
package struct StreamSession {
    /// What an add that replaces a pending request (or a snooze that replaces a snooze) says,
    /// in `run` and in the center alike.
    package static let replacementNote = "replaces the request with the same identifier"

    /// The registered categories, by exact identifier (a `categories` line replaces them).
    package var categories: [ExactKey: NotificationCategory] = [:]
    private let validation: ValidationOptions
    /// The most requests the stream holds (finished ones too): past it an `add` line with a
    /// new identifier is refused (`run --max-requests`).
    private let maxRequests: Int
    /// Nil until the first change that touches requests.
    private var engine: LiveEngine?
    /// `add` lines refused so far (by the reader, the validator or a bound): `run --strict`
    /// exits 1 after such a run, as after a requests file with a refused request.
    package private(set) var refusedAdds = 0

    /// A refused `add`'s line on stderr, in the requests file's format (`-` for a request
    /// without an identifier).
    package static func refusal(line: Int, identifier: String, _ e: RequestError) -> String {
        "error: line \(line): " + refusal(identifier: identifier, e)
    }

    /// A refusal's text after its line: the identifier, the error's code and its message.
    private static func refusal(identifier: String, _ e: RequestError) -> String {
        "\(identifier.isEmpty ? "-" : DiagnosticText.clipped(identifier)): \(e.code.rawValue): \(e.message)"
    }

    /// `validation`: the options an `add` line's request is checked with (`now` is set to
    /// the line's instant).
    package init(validation: ValidationOptions, maxRequests: Int = 10_000_000) {
        self.validation = validation
        self.maxRequests = maxRequests
    }

    /// Applies one control line at stream time `t` (`line`: its number, for messages) to
    /// `evaluator`, which it may replace (a rebuild). Returns the messages for stderr.
    package mutating func apply(_ control: ControlLine, at t: Int64, line: Int, evaluator: inout StreamEvaluator) -> [String] {
        switch control {
        case .add(let request, let readerWarnings):
            let (refusal, notes) = add(request, readerWarnings: readerWarnings, at: t, line: line, evaluator: &evaluator)
            guard let refusal else { return notes }
            refusedAdds += 1
            return notes + [Self.refusal(line: line, identifier: refusal.identifier, refusal.error)]
        case .refusedAdd(let identifier, let error):
            refusedAdds += 1
            return [Self.refusal(line: line, identifier: identifier, error)]
        case .remove(let ids):
            let engine = adopt(evaluator)
            // Unknown identifiers are ignored: removing none changes nothing.
            if engine.remove(identifiers: ids) > 0 { evaluator = engine.current }
            return []
        case .categories(let list):
            categories = NotificationCategory.table(list)
            return []
        case .respond(let response):
            let request = adopt(evaluator).live[ExactKey(response.requestIdentifier)]?.request
            var (change, notes) = Self.change(answering: response, to: request, at: t, line: line, categories: categories)
            guard let change else { return notes }
            guard case .add(let snoozed, let readerWarnings) = change else {
                return notes + apply(change, at: t, line: line, evaluator: &evaluator)
            }
            // A snooze the validator refuses (its identifier past 1,024 bytes, its device no
            // longer allowed) is a warning, as `serve` and a library center answer it, not an
            // error line nor a refused add (`--strict` stopped at it; a helper's find).
            let (refusal, added) = add(snoozed, readerWarnings: readerWarnings, at: t, line: line, evaluator: &evaluator)
            notes += added
            if let refusal {
                notes.append("warning: line \(line): snooze refused: " + Self.refusal(identifier: refusal.identifier, refusal.error))
            }
            return notes
        }
    }

    /// Adds `request` (an `add` line's, or a snooze's one-shot) at `t` to `evaluator`: its
    /// notes for stderr, and the refusal if the validator or a bound refuses it (the caller
    /// words it: an error line for an `add`, a warning for a snooze).
    private mutating func add(_ request: NotificationRequest, readerWarnings: [String], at t: Int64, line: Int,
                              evaluator: inout StreamEvaluator) -> (refusal: (identifier: String, error: RequestError)?, notes: [String]) {
        let r: NotificationRequest
        var notes: [String]
        do throws(RequestError) {
            (r, notes) = try Self.validated(request, readerWarnings: readerWarnings, at: t, line: line, options: validation,
                                            evaluator: evaluator, categories: categories)
        } catch {
            return ((request.identifier, error), [])
        }
        let name = DiagnosticText.clipped(r.identifier)
        let engine = adopt(evaluator)
        let replaces = engine.live[ExactKey(r.identifier)] != nil
        // The bounds: added requests (finished ones stay) and the devices they name grew
        // without one (a helper's find: 200,000 `add` lines took 450 MB).
        let refusal = !replaces && engine.live.count >= maxRequests
            ? RequestError.overRequestLimit("the stream", limit: maxRequests, option: "--max-requests", identifier: name)
            : r.device.flatMap { evaluator.newDeviceRefusal($0, limit: evaluator.options.maxDevices, option: "--max-devices") }
        if let refusal { return ((r.identifier, refusal), []) }
        // Reported as a requests file reports it (contract section 2; it was silent).
        if replaces {
            notes.append("warning: line \(line): \(name): \(Self.replacementNote)")
        }
        engine.add(r)
        evaluator = engine.current
        return (nil, notes)
    }

    /// What a `respond` line to `request` (nil: none has its identifier) changes, as the
    /// control line it amounts to (a cancel removes the request, a snooze adds its one-shot),
    /// and its warnings as stderr lines.
    package static func change(answering response: NotificationResponse, to request: NotificationRequest?, at t: Int64, line: Int,
                               categories: [ExactKey: NotificationCategory]) -> (change: ControlLine?, messages: [String]) {
        let (effect, warnings) = NotificationCategory.resolveResponse(response, request: request, categories: categories)
        let messages = warnings.map { "warning: line \(line): \($0)" }
        guard let request else { return (nil, messages) }
        switch effect {
        case .none: return (nil, messages)
        case .removeRequest: return (.remove([request.identifier]), messages)
        case .snooze(let delay):
            return (.add(NotificationCategory.snoozedRequest(request, device: response.device, delay: delay, at: Timestamp.date(millis: t))),
                    messages)
        }
    }

    /// An `add` line's request admitted at `t` with its warnings as stderr lines, or nil and
    /// the error line refusing it: the line's part of the messages, whatever it replaces.
    package static func admit(_ request: NotificationRequest, readerWarnings: [String], at t: Int64, line: Int,
                              options: ValidationOptions, evaluator: StreamEvaluator,
                              categories: [ExactKey: NotificationCategory]) -> (request: NotificationRequest?, messages: [String]) {
        do throws(RequestError) {
            let (r, messages) = try validated(request, readerWarnings: readerWarnings, at: t, line: line, options: options,
                                              evaluator: evaluator, categories: categories)
            return (r, messages)
        } catch {
            return (nil, [refusal(line: line, identifier: request.identifier, error)])
        }
    }

    /// `request` as the validator admits it at `t`, with its warnings (the reader's and the
    /// validator's, once each) as stderr lines; throws the validator's refusal.
    private static func validated(_ request: NotificationRequest, readerWarnings: [String], at t: Int64, line: Int,
                                  options: ValidationOptions, evaluator: StreamEvaluator,
                                  categories: [ExactKey: NotificationCategory]) throws(RequestError) -> (NotificationRequest, [String]) {
        let (r, warnings) = try RequestValidation.admit(request, at: Timestamp.date(millis: t), options: options,
                                                        settings: request.device.map { evaluator.settings(forDevice: $0) },
                                                        categories: categories)
        let name = DiagnosticText.clipped(r.identifier)
        return (r, RequestValidation.uniqueWarnings(readerWarnings, warnings).map { "warning: line \(line): \(name): \($0)" })
    }

    /// The engine, made over `evaluator` at the first change (the evaluator the stream has
    /// used since is always the engine's: every change hands back ``LiveEngine/current``).
    private mutating func adopt(_ evaluator: StreamEvaluator) -> LiveEngine {
        if let engine { return engine }
        let made = LiveEngine(adopting: evaluator)
        engine = made
        return made
    }
}
