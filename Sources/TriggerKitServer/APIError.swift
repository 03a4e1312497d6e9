import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Engine) import TriggerKit

/// An error answer: the HTTP status that fits and a JSON body
/// `{"error": {"code": "...", "message": "...", "field": "..."}}`, where `code` is the
/// engine's code (`invalidTrigger`, `invalidRegion`, ...) or the server's (`unauthorized`,
/// `payloadTooLarge`, ...), and `field` (a validator's refusal only, when it names one) the
/// request field's path (``RequestError/field``).
struct APIError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Answered with `Connection: close` (``ServeContext/closing(_:)``).
    var closesConnection = false
    /// The request field a validator refusal is about (``RequestError/field``), sent as the
    /// error's `field` when known.
    var field: String?
    /// Seconds sent as `Retry-After`, for a refusal that passes by itself (a tenant's bodies
    /// in flight); nil for one that retrying does not cure.
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// A validator refusal: 422 (the request is well-formed JSON but not acceptable), 403
    /// when the device has not authorized notifications, 429 at the center's request bound.
    init(request e: RequestError) {
        let status: HTTPResponse.Status = switch e.code {
        case .notificationsNotAllowed: .forbidden
        case .tooManyRequests, .tooManyDevices: .tooManyRequests
        default: .unprocessableContent
        }
        self.init(status, e.code.rawValue, e.message)
        field = e.field
    }

    static func badJSON(_ why: String) -> APIError { APIError(.badRequest, "invalidJSON", why) }

    /// A body past the tenant's `limit` (bytes).
    static func tooLarge(_ limit: Int) -> APIError {
        APIError(.contentTooLarge, "payloadTooLarge", "the body is larger than this tenant's limit of \(limit) bytes")
    }

    var json: JSONValue { .object(["error": errorJSON]) }

    /// `{"code": ..., "message": ...}`, with `"field"` when the refusal names one.
    var errorJSON: JSONValue {
        var o: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let field { o["field"] = .string(field) }
        return .object(o)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try answer(context: context)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    /// The answer without `Retry-After`.
    private func answer(context: some RequestContext) throws -> Response {
        guard closesConnection, let channel = (context as? ServeContext)?.channel else { return jsonResponse(json, status: status) }
        // Closed once the answer is written, not before: a connection closed for reading
        // while a body was still coming made the HTTP layer answer a second time (a stray
        // `400 Bad Request` after the 413; a helper's find).
        var w = JSONWriter()
        w.value(json)
        let bytes = ByteBuffer(bytes: w.bytes)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.connection] = "close"
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: bytes.readableBytes) { writer in
            try await writer.write(bytes)
            try await writer.finish(nil)
            channel.close(promise: nil)
        })
    }
}

/// A JSON response.
func jsonResponse(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
    var w = JSONWriter()
    w.value(value)
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: w.bytes)))
}
