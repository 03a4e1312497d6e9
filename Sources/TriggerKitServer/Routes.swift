import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Engine) import TriggerKit

/// The HTTP API: health, metrics and the OpenAPI document unauthenticated; everything else
/// under `/v1` behind the tenant's bearer token (docs/openapi.json describes every route).
func buildRouter(server: ServerState) -> Router<ServeContext> {
    let router = Router(context: ServeContext.self)
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: JSONErrorsMiddleware())
    router.add(middleware: PublicRoutesTakeNoBody())

    addHealthRoutes(to: router, server: server)
    router.get("openapi.json") { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
    }

    let v1 = router.group("v1").add(middleware: BearerAuth(tenantsByTokenHash: server.tenantsByTokenHash)).add(middleware: QueryRules())
    addRequestRoutes(to: v1)
    addFixAndEventRoutes(to: v1, stallLimit: server.streamStallLimit)
    return router
}

/// The admin port's routes (``ServerConfiguration/adminPort``): `/healthz` and `/metrics`
/// alone, as the main port answers them.
func buildAdminRouter(server: ServerState) -> Router<ServeContext> {
    let router = Router(context: ServeContext.self)
    router.add(middleware: JSONErrorsMiddleware())
    router.add(middleware: PublicRoutesTakeNoBody())
    addHealthRoutes(to: router, server: server)
    return router
}

/// `GET /healthz` and `GET /metrics`.
private func addHealthRoutes(to router: Router<ServeContext>, server: ServerState) {
    // 503 while a tenant's store has failed: that tenant answers everything 503 until a
    // restart, which nothing else prompted (it said "ok"; found by a reviewer).
    router.get("healthz") { _, _ -> Response in
        let failed = server.tenants.filter { $0.failure != nil }.map(\.id)
        guard !failed.isEmpty else { return jsonResponse(.object(["status": .string("ok")])) }
        return jsonResponse(.object(["status": .string("storeFailed"), "tenants": .array(failed.map { .string($0) })]), status: .serviceUnavailable)
    }
    router.get("metrics") { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: server.metrics.registry.emitToBuffer())))
    }
}

/// `HEAD` is answered as `GET` is, without the body (RFC 9110): the same status and headers,
/// `Content-Length` and authentication included. (Every route answered 404; a load balancer's `HEAD /healthz`
/// failed. Found by a helper.) A wrapper of the router's responder: routes are matched by
/// method before any router middleware runs.
struct HeadAsGet<Builder: HTTPResponderBuilder>: HTTPResponderBuilder {
    let router: Builder

    func buildResponder() -> Responder {
        Responder(inner: router.buildResponder())
    }

    struct Responder: HTTPResponder {
        let inner: Builder.Responder

        @Sendable func respond(to request: Request, context: Builder.Responder.Context) async throws -> Response {
            guard request.method == .head else { return try await inner.respond(to: request, context: context) }
            var head = request.head
            head.method = .get
            var response = try await inner.respond(to: Request(head: head, body: request.body), context: context)
            // The body goes; its length stays (a HEAD's Content-Length may only be GET's, RFC
            // 9110 8.6: setting the body set it to 0). A streamed body has none to keep.
            let length = response.headers[.contentLength]
            response.body = ResponseBody()
            response.headers[.contentLength] = length
            return response
        }
    }
}

/// Errors the router itself answers get the same JSON body as every other error
/// (`{"error": {"code", "message"}}`) instead of an empty one: `notFound` 404 for a path no
/// route has, or a method the path's routes do not take (Hummingbird answers both with 404);
/// any other bare HTTP error keeps its status and headers, with a code named after it.
struct JSONErrorsMiddleware: RouterMiddleware {
    typealias Context = ServeContext

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let e as HTTPError {
            let route = "\(request.method) \(request.uri.path)"
            guard e.status == .notFound else {
                var response = jsonResponse(APIError(e.status, "http\(e.status.code)", e.body ?? e.status.reasonPhrase).json, status: e.status)
                for field in e.headers { response.headers.append(field) }
                return response
            }
            throw APIError(.notFound, "notFound", "no route \(route)")
        }
    }
}
