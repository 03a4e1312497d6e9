import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// The requests and categories of a `run` whose stream changes them (control lines): each
/// change is validated like a requests-file line and applied by migrating the evaluator to
/// the new request set, keeping every other request's state (O(n) per change).
struct RunSession {
    var requests: [NotificationRequest]
    var categories: [ExactKey: NotificationCategory] = [:]
    let validation: ValidationOptions

    /// Applies one control line at stream time `t`; returns the messages for stderr.
    mutating func apply(_ control: ControlLine, at t: Int64, line: Int, evaluator: inout StreamEvaluator) -> [String] {
        switch control {
        case .add(let request, let readerWarnings):
            let r: NotificationRequest, warnings: [String]
            do throws(RequestError) {
                (r, warnings) = try RequestValidation.admit(request, at: Timestamp.date(millis: t), options: validation,
                                                           settings: request.device.map { evaluator.settings(forDevice: $0) },
                                                           categories: categories)
            } catch {
                return ["error: line \(line): \(DiagnosticText.clipped(request.identifier)): \(error.code.rawValue): \(error.message)"]
            }
            let name = DiagnosticText.clipped(r.identifier)
            var notes = (readerWarnings + warnings).map { "warning: line \(line): \(name): \($0)" }
            let replaced = requests.contains { $0.identifier.isExactly(r.identifier) }
            // Reported as a requests file reports it (contract section 2; it was silent).
            if replaced { notes.append("warning: line \(line): \(name): replaces the request with the same identifier") }
            requests.removeAll { $0.identifier.isExactly(r.identifier) }
            requests.append(r)
            evaluator = evaluator.migrated(to: requests, fresh: replaced ? [r.identifier] : [])
            return notes
        case .remove(let ids):
            let gone = Set(ids.map(ExactKey.init))
            let before = requests.count
            requests.removeAll { gone.contains(ExactKey($0.identifier)) }
            // Unknown identifiers are ignored: removing none costs nothing (each such line
            // migrated every request, about a second per line at 100,000 requests).
            guard requests.count < before else { return [] }
            evaluator = evaluator.migrated(to: requests)
            return []
        case .categories(let list):
            categories = Dictionary(list.map { (ExactKey($0.identifier), $0) }, uniquingKeysWith: { $1 })
            return []
        case .respond(let response):
            let request = requests.first { $0.identifier.isExactly(response.requestIdentifier) }
            let (effect, warnings) = NotificationCategory.resolveResponse(response, request: request, categories: categories)
            var notes = warnings.map { "warning: line \(line): \($0)" }
            guard let request else { return notes }
            switch effect {
            case .none: break
            case .removeRequest:
                notes += apply(.remove([request.identifier]), at: t, line: line, evaluator: &evaluator)
            case .snooze(let delay):
                let again = NotificationCategory.snoozedRequest(request, device: response.device, delay: delay,
                                                               at: Timestamp.date(millis: t))
                notes += apply(.add(again), at: t, line: line, evaluator: &evaluator)
            }
            return notes
        }
    }
}
