import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
@_spi(Engine) import TriggerKit

/// The request context: Hummingbird's, plus the tenant the bearer token named.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var tenant: Tenant?
    /// The connection (closed after the answer when a body is refused: ``closing(_:)``).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        tenant = nil
        channel = source.channel
    }

    /// `error`, answered with `Connection: close` and the connection closed once the answer is
    /// written (``APIError/response(from:context:)``): the rest of a refused body is not read
    /// (it was, to its end, however long it was or took).
    func closing(_ error: APIError) -> APIError {
        ClosingChannels.mark(channel)
        var error = error
        error.closesConnection = true
        return error
    }

    /// The authenticated tenant (every `/v1` route has one).
    var current: Tenant {
        get throws(APIError) {
            guard let tenant else { throw APIError(.unauthorized, "unauthorized", "missing bearer token") }
            return tenant
        }
    }
}

/// Whether a request says it has a body (a `Content-Length` other than 0, or a
/// `Transfer-Encoding`).
func declaresBody(_ request: Request) -> Bool {
    request.headers[.contentLength].map { $0 != "0" } ?? (request.headers[.transferEncoding] != nil)
}

/// Outside `/v1` no route takes a body: one sent there is refused (413) and not read, the
/// connection closed. (`GET /healthz` with `Content-Length: 2^62` read on at full speed for as
/// long as the client sent, a helper's find.)
struct PublicRoutesTakeNoBody: RouterMiddleware {
    typealias Context = ServeContext

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        guard !request.uri.path.hasPrefix("/v1/"), declaresBody(request) else { return try await next(request, context) }
        return try context.closing(APIError(.contentTooLarge, "payloadTooLarge", "\(request.uri.path) takes no body"))
            .response(from: request, context: context)
    }
}

/// Connections answered with `Connection: close` (``ServeContext/closing(_:)``): a request
/// that came behind the refused one on such a connection is not served (it was, after the
/// answer that said `close`, which a client may take as not served and send again; a
/// helper's find). Each mark is undone when its connection closes. Counted, not a set: a
/// closed channel's address can be reused by a new one before the closed one's removal runs,
/// and with a set the new channel's mark was then taken for the old one's and removed with it
/// (a request behind a refused body was served under a loaded test run).
enum ClosingChannels {
    private static let marks = Mutex<[ObjectIdentifier: Int]>([:])

    static func mark(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        marks.withLock { $0[id, default: 0] += 1 }
        channel.closeFuture.whenComplete { _ in
            marks.withLock { m in
                if let n = m[id], n > 1 { m[id] = n - 1 } else { m[id] = nil }
            }
        }
    }

    static func isClosing(_ channel: any Channel) -> Bool {
        marks.withLock { $0[ObjectIdentifier(channel)] != nil }
    }
}

/// `Authorization: Bearer <token>`: the token's SHA-256 names the tenant; anything else is a
/// 401 with a JSON error (the same answer for a missing, malformed or unknown token).
struct BearerAuth: RouterMiddleware {
    typealias Context = ServeContext
    let tenantsByTokenHash: [String: Tenant]

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        guard !ClosingChannels.isClosing(context.channel) else { throw CancellationError() }
        // A 401 names the scheme it wants (RFC 9110 section 11.6.1).
        func refuse(_ why: String) throws -> Response {
            // A body sent with it is not read: the connection is closed after the answer (it
            // was read to its end, however long it was or took; a helper's find).
            var error = APIError(.unauthorized, "unauthorized", why)
            if declaresBody(request) { error = context.closing(error) }
            var r = try error.response(from: request, context: context)
            r.headers[.wwwAuthenticate] = "Bearer"
            return r
        }
        guard let header = request.headers[.authorization], header.utf8.count > 7,
              header.prefix(7).lowercased() == "bearer " else {
            return try refuse("send Authorization: Bearer <token>")
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let tenant = tenantsByTokenHash[tokenHash(token)] else { return try refuse("unknown token") }
        // A tenant whose store failed answers every request 503, reads too: its center holds
        // the change whose record failed (applied first, then recorded), which its client was
        // told was refused and a restart (replaying the store) does not have. Served, it was
        // read back until the restart (found by a helper).
        if let why = tenant.failure {
            return try APIError(.serviceUnavailable, "storeFailed", "the tenant's store failed (\(why)); restart the server")
                .response(from: request, context: context)
        }
        // A declared body past the tenant's limit is refused at once on every route (on a
        // route that reads no body it was read to its declared end: 2^62 bytes; a reviewer's
        // find).
        // A length past Int64 (2^63 up to 2^64 - 1, which HTTP's parser takes) is past it too:
        // it was read as no length, waited for (a helper's find).
        if let declared = request.headers[.contentLength], !declared.isEmpty,
           declared.utf8.allSatisfy({ (0x30...0x39).contains($0) }), Int(declared).map({ $0 > tenant.limits.maxBodyBytes }) ?? true {
            return try context.closing(.tooLarge(tenant.limits.maxBodyBytes)).response(from: request, context: context)
        }
        var context = context
        context.tenant = tenant
        return try await next(request, context)
    }
}

let lastEventIDField = HTTPField.Name("Last-Event-ID")!

/// Reads a request's JSON body (``withBody(_:context:tenant:_:)``, on the pool) and runs
/// `route` with it on the tenant's thread: decoding, applying and answering in one trip
/// (``Tenant/work(_:)``).
func withJSONBody(_ request: Request, context: ServeContext, tenant: Tenant, _ route: (JSONValue) async throws -> Response) async throws -> Response {
    try await withBody(request, context: context, tenant: tenant) { bytes in
        try await tenant.work { try await route(try decodeJSON(bytes, on: tenant.thread)) }
    }
}

/// A body (``withBody(_:context:tenant:_:)``) as a JSON value (400 for invalid UTF-8 or JSON), decoded on
/// `thread`, the tenant's, inside ``Tenant/work(_:)`` (checked in debug builds).
func decodeJSON(_ bytes: [UInt8], on thread: TenantThread) throws(APIError) -> JSONValue {
    assert(thread.isCurrent, "a body decoded off its tenant's thread")
    guard String(validating: bytes, as: UTF8.self) != nil else { throw APIError.badJSON("the body is not valid UTF-8") }
    // A byte order mark opening the body is skipped (RFC 8259 allows it), as a requests file
    // or a stream skips one, and a fix batch's body: the same bytes were taken from a file and
    // refused by `POST /v1/requests` (a helper's find).
    let skip = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    let parsed: Result<JSONValue, JSONSyntaxError> = bytes.withUnsafeBufferPointer { whole in
        let b = UnsafeBufferPointer(rebasing: whole[skip...])
        do throws(JSONSyntaxError) { return .success(try JSONValue.parse(b)) } catch { return .failure(error) }
    }
    switch parsed {
    case .success(let v): return v
    case .failure(let e): throw APIError.badJSON(e.description)
    }
}

/// Reads the whole body within the tenant's limits (``Uploads``), on the cooperative pool (it
/// only moves bytes; decoding them is the tenant's work), and runs `use` with it; the body
/// counts against the tenant's budget until `use` is done.
func withBody<T>(_ request: Request, context: ServeContext, tenant: Tenant, _ use: ([UInt8]) async throws -> T) async throws -> T {
    try await tenant.uploads.withBody(request, context: context, maxBodyBytes: tenant.limits.maxBodyBytes, use)
}

/// An integer query parameter in `range`; `fallback` when absent. Anything else (not an
/// integer, out of range, given twice) is a 400 naming the parameter: a typo must not be
/// read as the default.
func queryInteger(_ request: Request, _ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
    guard let raw = try queryString(request, name) else { return fallback }
    guard let v = Int(raw), range.contains(v) else {
        let bound = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "in \(range.lowerBound)...\(range.upperBound)"
        throw APIError(.badRequest, "invalidRequest", "\(name) must be one integer \(bound), not \"\(raw)\"")
    }
    return v
}

/// A text query parameter given at most once; nil when absent, a 400 naming it when twice.
/// (The other query readers take their one value from here.)
func queryString(_ request: Request, _ name: String) throws -> String? {
    let given = request.uri.queryParameters.getAll(name)
    guard given.count <= 1 else { throw APIError(.badRequest, "invalidRequest", "\(name) must be given once") }
    return given.first.map { String($0) }
}

/// A query parameter that takes one of a few words; nil when absent, else a 400 naming it.
func queryWord(_ request: Request, _ name: String, of words: [String]) throws -> String? {
    guard let raw = try queryString(request, name) else { return nil }
    guard words.contains(raw) else {
        throw APIError(.badRequest, "invalidRequest", "\(name) must be one of \(words.joined(separator: ", ")), not \"\(raw)\"")
    }
    return raw
}

/// A path parameter, percent-decoded; a 400 naming it when its escapes are malformed (`%`
/// not followed by two hex digits: write `%25`) or decode to bytes that are not UTF-8 (they
/// were taken literally: `%C3%28` named a device "%C3%28", found by a helper).
func parameter(_ context: ServeContext, _ name: String) throws -> String {
    guard let raw = context.parameters.get(name) else { throw APIError(.badRequest, "invalidRequest", "missing \(name)") }
    guard let decoded = raw.removingPercentEncoding else {
        throw APIError(.badRequest, "invalidRequest",
                       "the path's \(name) \"\(DiagnosticText.escaped(raw))\" is not percent-encoded UTF-8 (a literal % is %25)")
    }
    return decoded
}

func dateString(_ d: Date) -> JSONValue { .string(Timestamp.string(millis: Timestamp.millis(d))) }

func outcomeError(_ outcomes: [TenantOutcome]) -> APIError? {
    for o in outcomes { if case .rejected(let e) = o { return e } }
    return nil
}
