import Foundation
import HTTPTypes
import Hummingbird
@_spi(Engine) import TriggerKit

/// The query parameters each `/v1` route reads: any other is a 400 naming it, and so is a
/// parameter whose escapes do not decode to UTF-8. (Unknown parameters were ignored: a typo
/// was read as the default, `GET /v1/requests?limt=5` sent the whole list, and
/// `DELETE /v1/delivered?device=phone` emptied every device's history; `?device=%FF` named
/// the device "\u{FFFD}". Found by a helper.)
struct QueryRules: RouterMiddleware {
    typealias Context = ServeContext

    /// The parameters of the routes that take any, by method and path below `/v1`.
    static func allowed(method: HTTPRequest.Method, path: Substring) -> [String] {
        if method == .delete, path == "delivered" { return ["device"] }
        if path == "settings" { return ["device"] }
        guard method == .get || method == .head else { return [] }
        switch path {
        case "events": return ["device", "limit", "follow", "from", "after"]
        case "requests": return ["device", "limit", "after"]
        case "upcoming": return ["limit", "device"]
        case "delivered": return ["device"]
        default: return []
        }
    }

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        if let query = request.uri.query, !query.isEmpty {
            var path = Substring(request.uri.path)
            if path.hasPrefix("/v1/") { path = path.dropFirst(4) }
            while path.hasPrefix("/") { path = path.dropFirst() }
            while path.hasSuffix("/") { path = path.dropLast() }
            try Self.check(query: query, allowed: Self.allowed(method: request.method, path: path))
        }
        return try await next(request, context)
    }

    /// Each `name[=value]` of a raw query: its name, as written, among `allowed`; its value
    /// percent-encoded UTF-8 (`+` is taken as it is).
    static func check(query: String, allowed: [String]) throws {
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // Compared as written: the routes read names undecoded, so `li%6Dit` is not
            // `limit` to them (decoded here, it passed and was read as absent: a reviewer's find).
            let name = String(parts[0])
            guard allowed.contains(name) else {
                let takes = allowed.isEmpty ? "takes no query parameters" : "takes only \(allowed.joined(separator: ", "))"
                throw APIError(.badRequest, "invalidRequest", "unknown query parameter \"\(DiagnosticText.escaped(name))\": this route \(takes)")
            }
            if parts.count == 2, String(parts[1]).removingPercentEncoding == nil {
                throw APIError(.badRequest, "invalidRequest", "the query's \(name) \"\(DiagnosticText.escaped(String(parts[1])))\" is not percent-encoded UTF-8 (a literal % is %25)")
            }
        }
    }
}
