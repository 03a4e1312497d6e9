import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Engine) import TriggerKit

/// The request context: Hummingbird's, plus the tenant the bearer token named.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var tenant: Tenant?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        tenant = nil
    }

    /// The authenticated tenant (every `/v1` route has one).
    var current: Tenant {
        get throws(APIError) {
            guard let tenant else { throw APIError(.unauthorized, "unauthorized", "missing bearer token") }
            return tenant
        }
    }
}

/// `Authorization: Bearer <token>`: the token's SHA-256 names the tenant; anything else is a
/// 401 with a JSON error (the same answer for a missing, malformed or unknown token).
struct BearerAuth: RouterMiddleware {
    typealias Context = ServeContext
    let tenantsByTokenHash: [String: Tenant]

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.utf8.count > 7,
              header.prefix(7).lowercased() == "bearer " else {
            return try APIError(.unauthorized, "unauthorized", "send Authorization: Bearer <token>").response(from: request, context: context)
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let tenant = tenantsByTokenHash[tokenHash(token)] else {
            return try APIError(.unauthorized, "unauthorized", "unknown token").response(from: request, context: context)
        }
        var context = context
        context.tenant = tenant
        return try await next(request, context)
    }
}

let lastEventIDField = HTTPField.Name("Last-Event-ID")!

/// Reads the whole body within the tenant's limit (413 beyond it) as a JSON value (400 for
/// invalid UTF-8 or JSON).
func readJSON(_ request: Request, limit: Int) async throws -> JSONValue {
    let bytes = try await readBody(request, limit: limit)
    guard String(validating: bytes, as: UTF8.self) != nil else { throw APIError.badJSON("the body is not valid UTF-8") }
    let parsed: Result<JSONValue, JSONSyntaxError> = bytes.withUnsafeBufferPointer { b in
        do throws(JSONSyntaxError) { return .success(try JSONValue.parse(b)) } catch { return .failure(error) }
    }
    switch parsed {
    case .success(let v): return v
    case .failure(let e): throw APIError.badJSON(e.description)
    }
}

func readBody(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        let buffer = try await request.body.collect(upTo: limit)
        return Array(buffer.readableBytesView)
    } catch is NIOTooManyBytesError {
        throw APIError(.contentTooLarge, "payloadTooLarge", "the body is larger than this tenant's limit of \(limit) bytes")
    }
}

/// A path parameter, percent-decoded.
func parameter(_ context: ServeContext, _ name: String) throws -> String {
    guard let raw = context.parameters.get(name) else { throw APIError(.badRequest, "invalidRequest", "missing \(name)") }
    return raw.removingPercentEncoding ?? raw
}

func dateString(_ d: Date) -> JSONValue { .string(Timestamp.string(millis: Timestamp.millis(d))) }

/// A JSON response whose `key` holds already rendered JSON values.
func rawArrayResponse(key: String, items: [[UInt8]]) -> Response {
    var bytes = Array("{\"\(key)\":[".utf8)
    for (i, item) in items.enumerated() {
        if i > 0 { bytes.append(0x2C) }
        bytes.append(contentsOf: item)
    }
    bytes.append(contentsOf: Array("]}".utf8))
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
}

func outcomeError(_ outcomes: [TenantOutcome]) -> APIError? {
    for o in outcomes { if case .rejected(let e) = o { return e } }
    return nil
}

/// `POST /v1/requests` with a JSON array: each request added (or refused) on its own, in
/// order, in one step; the answer lists each one's result.
func addRequests(_ items: [JSONValue], tenant: Tenant) async throws -> Response {
    var results: [JSONValue?] = Array(repeating: nil, count: items.count)
    var inputs: [TenantInput] = []
    var positions: [Int] = []
    for (i, item) in items.enumerated() {
        var warnings: [String] = []
        do throws(RequestError) {
            inputs.append(.add(try NotificationRequest(json: item, warnings: &warnings)))
            positions.append(i)
        } catch {
            let e = APIError(request: error)
            results[i] = .object(["index": .number(Double(i)), "status": .number(Double(e.status.code)),
                                  "error": .object(["code": .string(e.code), "message": .string(e.message)])])
        }
    }
    let outcomes = inputs.isEmpty ? [] : await tenant.apply(inputs)
    var accepted = 0
    for (k, o) in outcomes.enumerated() {
        let i = positions[k]
        guard case .add(let r) = inputs[k] else { continue }
        switch o {
        case .rejected(let e):
            if e.status == .serviceUnavailable { throw e }
            results[i] = .object(["index": .number(Double(i)), "identifier": .string(r.identifier), "status": .number(Double(e.status.code)),
                                  "error": .object(["code": .string(e.code), "message": .string(e.message)])])
        case .ok(let w):
            accepted += 1
            results[i] = .object(["index": .number(Double(i)), "identifier": .string(r.identifier), "status": .number(200),
                                  "warnings": .array(w.map(JSONValue.string))])
        default: break
        }
    }
    tenant.metrics.requests(tenant: tenant.id, accepted: accepted, rejected: items.count - accepted)
    return jsonResponse(.object(["accepted": .number(Double(accepted)), "rejected": .number(Double(items.count - accepted)),
                                 "results": .array(results.map { $0 ?? .null })]))
}

func buildRouter(server: ServerState) -> Router<ServeContext> {
    let router = Router(context: ServeContext.self)
    router.add(middleware: MetricsMiddleware())

    router.get("healthz") { _, _ in jsonResponse(.object(["status": .string("ok")])) }
    router.get("metrics") { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: server.metrics.registry.emitToBuffer())))
    }
    router.get("openapi.json") { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
    }

    let v1 = router.group("v1").add(middleware: BearerAuth(tenantsByTokenHash: server.tenantsByTokenHash))

    // MARK: requests
    v1.post("requests") { request, context -> Response in
        let tenant = try context.current
        let json = try await readJSON(request, limit: tenant.limits.maxBodyBytes)
        if case .array(let items) = json { return try await addRequests(items, tenant: tenant) }
        var warnings: [String] = []
        let r: NotificationRequest
        do throws(RequestError) {
            r = try NotificationRequest(json: json, warnings: &warnings)
        } catch {
            tenant.metrics.requests(tenant: tenant.id, accepted: 0, rejected: 1)
            throw APIError(request: error)
        }
        let replaced = await tenant.center.request(withIdentifier: r.identifier) != nil
        let outcomes = await tenant.apply([.add(r)])
        if let e = outcomeError(outcomes) {
            tenant.metrics.requests(tenant: tenant.id, accepted: 0, rejected: 1)
            throw e
        }
        tenant.metrics.requests(tenant: tenant.id, accepted: 1, rejected: 0)
        if case .ok(let w)? = outcomes.first { warnings += w }
        return jsonResponse(.object(["identifier": .string(r.identifier), "replaced": .bool(replaced),
                                     "warnings": .array(warnings.map(JSONValue.string))]),
                            status: replaced ? .ok : .created)
    }
    v1.get("requests") { request, context -> Response in
        let tenant = try context.current
        let device = request.uri.queryParameters.get("device")
        let list = await tenant.center.pendingRequests(device: device)
        return jsonResponse(.object(["requests": .array(list.map(\.json))]))
    }
    v1.get("requests/:id") { _, context -> Response in
        let tenant = try context.current
        let id = try parameter(context, "id")
        guard let r = await tenant.center.request(withIdentifier: id) else {
            throw APIError(.notFound, "notFound", "no request \"\(id)\"")
        }
        return jsonResponse(r.json)
    }
    v1.delete("requests/:id") { _, context -> Response in
        let tenant = try context.current
        let id = try parameter(context, "id")
        guard await tenant.center.request(withIdentifier: id) != nil else {
            throw APIError(.notFound, "notFound", "no request \"\(id)\"")
        }
        if let e = outcomeError(await tenant.apply([.remove([id])])) { throw e }
        return Response(status: .noContent)
    }
    v1.get("requests/:id/next") { _, context -> Response in
        let tenant = try context.current
        let id = try parameter(context, "id")
        guard await tenant.center.request(withIdentifier: id) != nil else {
            throw APIError(.notFound, "notFound", "no request \"\(id)\"")
        }
        let next = await tenant.center.nextTriggerDate(forIdentifier: id)
        return jsonResponse(.object(["identifier": .string(id), "next": next.map(dateString) ?? .null]))
    }
    v1.get("upcoming") { request, context -> Response in
        let tenant = try context.current
        let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? 10
        guard (1...RequestLimits.maximumQueryCount).contains(limit) else {
            throw APIError(.badRequest, "invalidRequest", "limit must be in 1...\(RequestLimits.maximumQueryCount)")
        }
        let fires = await tenant.center.upcomingFires(limit: limit, device: request.uri.queryParameters.get("device"))
        return jsonResponse(.object(["fires": .array(fires.map { f in
            var o: [String: JSONValue] = ["identifier": .string(f.identifier), "date": dateString(f.date)]
            if let d = f.device { o["device"] = .string(d) }
            return .object(o)
        })]))
    }

    // MARK: delivered
    v1.get("delivered") { request, context -> Response in
        let tenant = try context.current
        let list = await tenant.center.deliveredNotifications(device: request.uri.queryParameters.get("device"))
        return rawArrayResponse(key: "delivered", items: list.map { d in
            var w = JSONWriter()
            d.write(to: &w)
            w.bytes.removeLast()
            return w.bytes
        })
    }
    v1.delete("delivered/:id") { _, context -> Response in
        let tenant = try context.current
        if let e = outcomeError(await tenant.apply([.removeDelivered([try parameter(context, "id")])])) { throw e }
        return Response(status: .noContent)
    }
    v1.delete("delivered") { _, context -> Response in
        let tenant = try context.current
        if let e = outcomeError(await tenant.apply([.removeDelivered(nil)])) { throw e }
        return Response(status: .noContent)
    }

    // MARK: settings and categories
    v1.get("devices/:device/settings") { _, context -> Response in
        let tenant = try context.current
        return jsonResponse(await tenant.center.notificationSettings(forDevice: try parameter(context, "device")).json)
    }
    v1.put("devices/:device/settings") { request, context -> Response in
        let tenant = try context.current
        let device = try parameter(context, "device")
        let json = try await readJSON(request, limit: tenant.limits.maxBodyBytes)
        let settings: NotificationSettings
        do throws(SettingsError) {
            settings = try NotificationSettings(json: json)
        } catch {
            throw APIError(.unprocessableContent, "invalidSettings", error.reason)
        }
        if let e = outcomeError(await tenant.apply([.settings(device: device, settings)])) { throw e }
        return jsonResponse(settings.json)
    }
    v1.get("categories") { _, context -> Response in
        let tenant = try context.current
        return jsonResponse(.object(["categories": .array(await tenant.center.notificationCategories().map(\.json))]))
    }
    v1.put("categories") { request, context -> Response in
        let tenant = try context.current
        let json = try await readJSON(request, limit: tenant.limits.maxBodyBytes)
        let list: [NotificationCategory]
        do throws(SettingsError) {
            list = try NotificationCategory.list(json: json)
        } catch {
            throw APIError(.unprocessableContent, "invalidCategories", error.reason)
        }
        if let e = outcomeError(await tenant.apply([.categories(list)])) { throw e }
        return jsonResponse(.object(["categories": .array(list.map(\.json))]))
    }
    v1.post("responses") { request, context -> Response in
        let tenant = try context.current
        let json = try await readJSON(request, limit: tenant.limits.maxBodyBytes)
        guard case .object(let o) = json, case .string(let id)? = o["identifier"], case .string(let action)? = o["action"] else {
            throw APIError(.unprocessableContent, "invalidResponse", "a response needs \"identifier\" and \"action\" (strings); \"device\" is optional")
        }
        var device: String?
        if let d = o["device"] {
            guard case .string(let s) = d else { throw APIError(.unprocessableContent, "invalidResponse", "\"device\" must be a string") }
            device = s
        }
        let full = action == "default" ? NotificationResponse.defaultActionIdentifier
            : action == "dismiss" ? NotificationResponse.dismissActionIdentifier : action
        let outcomes = await tenant.apply([.respond(NotificationResponse(requestIdentifier: id, device: device, actionIdentifier: full))])
        if let e = outcomeError(outcomes) { throw e }
        guard case .responded(let outcome)? = outcomes.first else { throw APIError(.internalServerError, "internal", "no outcome") }
        return jsonResponse(outcome.json)
    }

    // MARK: fixes and time
    v1.post("fixes") { request, context -> Response in
        let tenant = try context.current
        let started = ContinuousClock.now
        let body = try await readBody(request, limit: tenant.limits.maxBodyBytes)
        var inputs: [TenantInput] = []
        var lines: [Int] = []
        var errors: [JSONValue] = []
        var lineNo = 0
        var fixes: [(t: Date, index: Int, input: TenantInput, line: Int)] = []
        for raw in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNo += 1
            var slice = raw
            if slice.last == 0x0D { slice = slice.dropLast() }
            if slice.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do throws(APIError) {
                // The reader checks the UTF-8 of what it keeps (the device id); the journal keeps
                // the line verbatim, so the whole line must be valid.
                guard slice.allSatisfy({ $0 < 0x80 }) || String(validating: slice, as: UTF8.self) != nil else {
                    throw APIError(.badRequest, "invalidLine", "not valid UTF-8")
                }
                switch try FixReader.parse(slice) {
                case .fix(let f): fixes.append((f.date, fixes.count, .fix(f, line: slice), lineNo))
                case .clock(let d): fixes.append((d, fixes.count, .clock(d), lineNo))
                }
            } catch {
                errors.append(.object(["line": .number(Double(lineNo)), "code": .string(error.code), "message": .string(error.message)]))
            }
        }
        // One batch is evaluated in order of t (stable: equal times keep their order).
        fixes.sort { $0.t != $1.t ? $0.t < $1.t : $0.index < $1.index }
        for f in fixes {
            inputs.append(f.input)
            lines.append(f.line)
        }
        let outcomes = inputs.isEmpty ? [] : await tenant.apply(inputs)
        var accepted = 0
        var stale: [JSONValue] = []
        for (i, o) in outcomes.enumerated() {
            switch o {
            case .rejected(let e):
                if e.status == .serviceUnavailable { throw e }
                errors.append(.object(["line": .number(Double(lines[i])), "code": .string(e.code), "message": .string(e.message)]))
            case .stale:
                accepted += 1
                stale.append(.number(Double(lines[i])))
            default:
                accepted += 1
            }
        }
        stale.sort { ($0.numberValue ?? 0) < ($1.numberValue ?? 0) }
        errors.sort { ($0.objectValue?["line"]?.numberValue ?? 0) < ($1.objectValue?["line"]?.numberValue ?? 0) }
        tenant.metrics.fixes(tenant: tenant.id, accepted: accepted, rejected: errors.count)
        let elapsed = ContinuousClock.now - started
        tenant.metrics.fixBatch(tenant: tenant.id, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        return jsonResponse(.object(["accepted": .number(Double(accepted)), "rejected": .number(Double(errors.count)),
                                     "errors": .array(errors), "stale": .array(stale)]),
                            status: accepted == 0 && !errors.isEmpty ? .badRequest : .ok)
    }
    v1.post("clock") { request, context -> Response in
        let tenant = try context.current
        let json = try await readJSON(request, limit: tenant.limits.maxBodyBytes)
        guard case .object(let o) = json, let t = o["t"] else { throw APIError(.unprocessableContent, "invalidClock", "send {\"t\": date}") }
        var ms: Int64?
        switch t {
        case .string(let s): ms = Timestamp.parseMillis(s)
        case .number(let n) where n.isFinite && abs(n) < 1e12: ms = Int64((n * 1000).rounded())
        default: ms = nil
        }
        guard let ms, RequestLimits.isSupported(millis: ms) else {
            throw APIError(.unprocessableContent, "invalidClock", "\"t\" must be an ISO 8601 date or seconds since 1970 within 0001-9999")
        }
        if let e = outcomeError(await tenant.apply([.clock(Timestamp.date(millis: ms))])) { throw e }
        return jsonResponse(.object(["now": dateString(tenant.clock.now)]))
    }
    v1.get("stats") { _, context -> Response in
        let tenant = try context.current
        let s = await tenant.center.statistics
        return jsonResponse(.object([
            "delivered": .number(Double(s.delivered)), "suppressed": .number(Double(s.suppressed)),
            "fixes": .number(Double(s.fixes)), "staleFixes": .number(Double(s.staleFixes)),
            "rejectedFixes": .number(Double(s.rejectedFixes)), "historyDropped": .number(Double(s.historyDropped)),
            "pendingRequests": .number(Double(s.pendingRequests)), "sseSubscribers": .number(Double(tenant.hub.subscriberCount)),
            "clock": dateString(tenant.clock.now),
        ]))
    }
    v1.get("webhooks/dead") { _, context -> Response in
        let tenant = try context.current
        let rows = try tenant.store.deadLetters(limit: 1000)
        return jsonResponse(.object(["dead": .array(rows.map { r in
            .object(["url": .string(r.url), "fromEvent": .number(Double(r.fromSeq)), "toEvent": .number(Double(r.toSeq)),
                     "attempts": .number(Double(r.attempts)), "reason": .string(r.reason),
                     "at": .string(Timestamp.string(millis: r.at))])
        })]))
    }

    // MARK: events (Server-Sent Events)
    v1.get("events") { request, context -> Response in
        let tenant = try context.current
        let device = request.uri.queryParameters.get("device")
        let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? Int.max
        // follow=false: end after the stored events (a poll) instead of waiting for new ones.
        let follow = request.uri.queryParameters.get("follow") != "false"
        var after: Int64 = 0
        let header: String? = request.headers[lastEventIDField] ?? request.uri.queryParameters.get("after").map { String($0) }
        if let h = header {
            guard let v = Int64(h.trimmingCharacters(in: .whitespaces)), v >= 0 else {
                throw APIError(.badRequest, "invalidRequest", "Last-Event-ID must be an event number")
            }
            after = v
        } else if request.uri.queryParameters.get("from") == "now" {
            after = (try? tenant.store.lastEventSeq()) ?? 0
        }
        // Subscribe first, then replay the outbox: nothing falls between the two.
        let live = tenant.hub.subscribe(device: device)
        let resumeAfter = after
        let store = tenant.store
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var sent = 0
            var last = resumeAfter
            func send(_ seq: Int64, _ body: Data) async throws {
                var b = ByteBuffer(string: "id: \(seq)\nevent: delivered\ndata: ")
                b.writeBytes(body)
                b.writeString("\n\n")
                try await writer.write(b)
                last = seq
                sent += 1
            }
            try await writer.write(ByteBuffer(string: ": triggerkit events\n\n"))
            let oldest = (try? store.oldestEvent()) ?? 0
            if resumeAfter > 0, oldest > resumeAfter + 1 {
                try await writer.write(ByteBuffer(string: "event: gap\ndata: {\"from\":\(resumeAfter + 1),\"to\":\(oldest - 1)}\n\n"))
            }
            while sent < limit {
                let rows = (try? store.events(after: last, device: device, limit: min(1000, limit - sent))) ?? []
                if rows.isEmpty { break }
                for r in rows { try await send(r.seq, r.body) }
            }
            if sent < limit && follow {
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    for await e in live where e.seq > last {
                        try await send(e.seq, e.body)
                        if sent >= limit { break }
                    }
                }
            }
            try await writer.finish(nil)
        })
    }
    return router
}
