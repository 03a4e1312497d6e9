import Foundation
import TriggerKit

/// The names a config file may use, checked before it is decoded: an unknown one is refused,
/// as in every other input (a misspelt `snapshotEvry` was ignored silently, and the server
/// ran with the default), and a value of the wrong type is named by its field.
enum ConfigurationNames {
    static let top = Set(ServerConfiguration.CodingKeys.allCases.map(\.rawValue))
    static let limits = Set(TenantLimits.CodingKeys.allCases.map(\.rawValue))
    static let tenant: Set<String> = ["id", "tokenHashes", "limits", "webhooks"]
    static let webhook: Set<String> = ["url", "secret"]
    static let wholeNumbers: Set<String> = ["port", "snapshotEvery", "restoreBudgetMiB", "deliveredLimitPerDevice", "maxBodyBytes",
                                            "maxRequests", "maxDevices", "sseBufferEvents", "maxEventStreams", "outboxEvents", "maxStepFires"]

    /// Refuses a name the configuration does not have, naming where it is.
    static func check(_ json: JSONValue, file: String) throws(ConfigurationError) {
        func names(_ v: JSONValue?, _ known: Set<String>, _ at: String) throws(ConfigurationError) {
            guard case .object(let o)? = v else { return }
            for key in o.keys.sorted() {
                guard known.contains(key) else {
                    throw ConfigurationError("\(file): unknown field \"\(at)\(DiagnosticText.escaped(key))\" (expected one of \(known.sorted().joined(separator: ", ")))")
                }
                // (Foundation's decoder calls a fraction in a whole-number field "not valid JSON".)
                if wholeNumbers.contains(key), case .number(let x)? = o[key], x.rounded() != x {
                    throw ConfigurationError("\(file): \"\(at)\(key)\" must be a whole number, not \(x)")
                }
            }
        }
        try names(json, top, "")
        guard case .object(let o) = json else { return }
        // (Foundation's decoder says "Cannot initialize ClockMode from invalid String value".)
        if case .string(let clock)? = o["clock"], ClockMode(rawValue: clock) == nil {
            throw ConfigurationError("\(file): \"clock\" must be \"wall\" or \"stream\", not \"\(DiagnosticText.escaped(clock))\"")
        }
        try names(o["limits"], limits, "limits.")
        if case .array(let tenants)? = o["tenants"] {
            for (i, t) in tenants.enumerated() {
                try names(t, tenant, "tenants[\(i)].")
                guard case .object(let to) = t else { continue }
                try names(to["limits"], limits, "tenants[\(i)].limits.")
                if case .array(let hooks)? = to["webhooks"] {
                    for (j, h) in hooks.enumerated() { try names(h, webhook, "tenants[\(i)].webhooks[\(j)].") }
                }
            }
        }
    }

    /// A decoding error as a sentence naming the field (Foundation's names the type).
    static func describe(_ e: DecodingError) -> String {
        func field(_ c: DecodingError.Context) -> String {
            let path = c.codingPath.map { k in k.intValue.map { "[\($0)]" } ?? "." + k.stringValue }.joined()
            return path.isEmpty ? "the file" : "\"" + String(path.drop { $0 == "." }) + "\""
        }
        switch e {
        case .typeMismatch(let type, let c): return "\(field(c)) must be \(describe(type)): \(c.debugDescription)"
        case .valueNotFound(let type, let c): return "\(field(c)) must be \(describe(type)), not null"
        case .keyNotFound(let key, let c):
            let at = field(c)
            return "\(at == "the file" ? "" : at + ": ")\"\(key.stringValue)\" is required"
        case .dataCorrupted(let c): return "\(field(c)): \(c.debugDescription)"
        @unknown default: return "\(e)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}
