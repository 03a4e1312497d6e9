import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Engine) import TriggerKit

/// An error answer: the HTTP status that fits and a JSON body
/// `{"error": {"code": "...", "message": "..."}}`, where `code` is the engine's code
/// (`invalidTrigger`, `invalidRegion`, ...) or the server's (`unauthorized`,
/// `payloadTooLarge`, ...).
struct APIError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Answered with `Connection: close` (``ServeContext/closing(_:)``).
    var closesConnection = false
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
    }

    static func badJSON(_ why: String) -> APIError { APIError(.badRequest, "invalidJSON", why) }

    /// A body past the tenant's `limit` (bytes).
    static func tooLarge(_ limit: Int) -> APIError {
        APIError(.contentTooLarge, "payloadTooLarge", "the body is larger than this tenant's limit of \(limit) bytes")
    }

    var json: JSONValue {
        .object(["error": .object(["code": .string(code), "message": .string(message)])])
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        guard closesConnection, let channel = (context as? ServeContext)?.channel else {
            var response = jsonResponse(json, status: status)
            if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        }
        // Closed once the answer is written, not before: a connection closed for reading
        // while a body was still coming made the HTTP layer answer a second time (a stray
        // `400 Bad Request` after the 413; a helper's find).
        var w = JSONWriter()
        w.value(json)
        let bytes = ByteBuffer(bytes: w.bytes)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.connection] = "close"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
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
