import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Engine) import TriggerKit

/// `POST /v1/requests` with a JSON array: each request added (or refused) on its own, in
/// order, in one step; the answer lists each one's result. Runs on the tenant's thread
/// (``Tenant/work(_:)``).
func addRequests(_ items: [JSONValue], tenant: Tenant) async throws -> Response {
    var results: [JSONValue?] = Array(repeating: nil, count: items.count)
    var inputs: [TenantInput] = []
    var positions: [Int] = []
    // The reader's warnings per item (an unknown field), answered with the center's, as a
    // single add answers them (the batch's results dropped them; found by a helper).
    var readerWarnings: [[String]] = []
    for (i, item) in items.enumerated() {
        var warnings: [String] = []
        do throws(RequestError) {
            inputs.append(.add(try NotificationRequest(json: item, warnings: &warnings)))
            positions.append(i)
            readerWarnings.append(warnings)
        } catch {
            let e = APIError(request: error)
            results[i] = .object(["index": .number(Double(i)), "status": .number(Double(e.status.code)),
                                  "error": e.errorJSON])
        }
    }
    // Which identifiers the center held, seen in the step that applies the batch: an item
    // replaces one of them or an item accepted before it (a single add says `replaced`; the
    // batch's results did not, found by a helper).
    let identifiers = inputs.compactMap { input -> String? in
        if case .change(.add(let r)) = input { r.identifier } else { nil }
    }
    let (outcomes, looked) = inputs.isEmpty ? ([], nil) : await tenant.applyHere(inputs) { c in
        Set(identifiers.filter { c.request(withIdentifier: $0) != nil }.map(ExactKey.init))
    }
    var held = looked ?? []
    var accepted = 0
    for (k, o) in outcomes.enumerated() {
        let i = positions[k]
        guard case .change(.add(let r)) = inputs[k] else { continue }
        switch o {
        case .rejected(let e):
            if e.status == .serviceUnavailable { throw e }
            results[i] = .object(["index": .number(Double(i)), "identifier": .string(r.identifier), "status": .number(Double(e.status.code)),
                                  "error": e.errorJSON])
        case .ok(let w):
            accepted += 1
            let replaced = !held.insert(ExactKey(r.identifier)).inserted
            // The status a single add answers: 201 for a new request, 200 for a replacement.
            results[i] = .object(["index": .number(Double(i)), "identifier": .string(r.identifier), "status": .number(replaced ? 200 : 201),
                                  "replaced": .bool(replaced), "warnings": .array(RequestValidation.uniqueWarnings(readerWarnings[k], w).map(JSONValue.string))])
        default: break
        }
    }
    tenant.metrics.requests(tenant: tenant.id, accepted: accepted, rejected: items.count - accepted)
    return jsonResponse(.object(["accepted": .number(Double(accepted)), "rejected": .number(Double(items.count - accepted)),
                                 "results": .array(results.map { $0 ?? .null })]))
}

/// About how many bytes of a listing are rendered and sent at a time.
let listingPartBytes = 256 << 10

/// The largest `limit` of `GET /v1/upcoming`.
let maximumUpcoming = 10_000

/// The largest page of `GET /v1/requests` (about 3 MB of answer at 300 bytes a request).
let maximumListingPage = 10_000

/// Where a page of `GET /v1/requests` starts: after the request with add number `seq` in a
/// tenant's center. Add numbers are the center's own and start afresh when the server
/// restarts, so a cursor also names the tenant's run (``Tenant/runTag``): one from an earlier
/// run is refused (410 `cursorExpired`: list again from the start) instead of resuming at a
/// place that no longer means the same. Written `<run tag>-<add number>`; clients treat it as
/// opaque.
struct ListingCursor: CustomStringConvertible {
    var seq: Int
    var run: String

    init(seq: Int, tenant: Tenant) {
        self.seq = seq
        run = tenant.runTag
    }

    init(parsing text: String, tenant: Tenant) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        @inline(__always) func digits(_ p: Substring, hex: Bool) -> Bool {
            !p.isEmpty && p.utf8.allSatisfy { (0x30...0x39).contains($0) || (hex && (0x61...0x66).contains($0)) }
        }
        guard parts.count == 2, parts[0].count == 8, digits(parts[0], hex: true), digits(parts[1], hex: false), let seq = Int(parts[1]) else {
            throw APIError(.badRequest, "invalidRequest", "after must be a cursor from a listing's \"next\", not \"\(text)\"")
        }
        guard parts[0] == tenant.runTag else {
            throw APIError(.gone, "cursorExpired", "this cursor is not from this tenant's current run (the server restarted since, or another tenant made it): list again from the start")
        }
        self.seq = seq
        run = String(parts[0])
    }

    var description: String { "\(run)-\(seq)" }
}

/// A JSON answer `opening`, the items rendered by `render` and separated by commas, `closing`:
/// rendered on the tenant's thread about ``listingPartBytes`` at a time and sent as it is made,
/// so the answer is never held whole.
func streamedArray<T: Sendable>(_ opening: String, _ items: [T], _ closing: String, tenant: Tenant,
                                render: @escaping @Sendable (inout JSONWriter, T) -> Void) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: .ok, headers: headers, body: ResponseBody { writer in
        try await writer.write(ByteBuffer(string: opening))
        var next = 0
        while next < items.count {
            let from = next
            let (part, end) = try await tenant.work { () -> (ByteBuffer, Int) in
                var w = JSONWriter()
                var k = from
                while k < items.count && w.bytes.count < listingPartBytes {
                    if k > 0 { w.raw(",") }
                    render(&w, items[k])
                    k += 1
                }
                return (ByteBuffer(bytes: w.bytes), k)
            }
            try await writer.write(part)
            next = end
        }
        try await writer.write(ByteBuffer(string: closing))
        try await writer.finish(nil)
    })
}

/// Requests, delivered notifications, settings, categories and responses.
func addRequestRoutes(to v1: RouterGroup<ServeContext>) {
    // MARK: requests
    v1.post("requests") { request, context -> Response in
        let tenant = try context.current
        return try await withJSONBody(request, context: context, tenant: tenant) { json in
            if case .array(let items) = json { return try await addRequests(items, tenant: tenant) }
            var warnings: [String] = []
            let r: NotificationRequest
            do throws(RequestError) {
                r = try NotificationRequest(json: json, warnings: &warnings)
            } catch {
                tenant.metrics.requests(tenant: tenant.id, accepted: 0, rejected: 1)
                throw APIError(request: error)
            }
            // Whether it replaces one, seen in the same step that adds it.
            let identifier = r.identifier
            let (outcomes, looked) = await tenant.applyHere([.add(r)]) { $0.request(withIdentifier: identifier) != nil }
            let replaced = looked ?? false
            if let e = outcomeError(outcomes) {
                tenant.metrics.requests(tenant: tenant.id, accepted: 0, rejected: 1)
                throw e
            }
            tenant.metrics.requests(tenant: tenant.id, accepted: 1, rejected: 0)
            if case .ok(let w)? = outcomes.first { warnings = RequestValidation.uniqueWarnings(warnings, w) }
            return jsonResponse(.object(["identifier": .string(r.identifier), "replaced": .bool(replaced),
                                         "warnings": .array(warnings.map(JSONValue.string))]),
                                status: replaced ? .ok : .created)
        }
    }
    v1.get("requests") { request, context -> Response in
        let tenant = try context.current
        let device = try queryString(request, "device")
        // Pages: `limit` requests at most, after the cursor `after` (``ListingCursor``); the
        // answer then says where the next page starts. Without either, the whole list.
        let limit = try queryInteger(request, "limit", in: 1...maximumListingPage, default: 0)
        let after = try queryString(request, "after").map { try ListingCursor(parsing: $0, tenant: tenant) }
        let paged = limit > 0 || after != nil
        // The list (or page) is taken in one step; its answer is rendered on the tenant's
        // thread a part at a time (each request straight to bytes, the same bytes as through
        // its JSON tree) and sent as it is made: the answer is never held whole, nor a tree of it.
        let (list, next) = await tenant.withCenter { c -> ([NotificationRequest], Int?) in
            paged ? c.pendingRequests(device: device, after: after?.seq ?? -1, limit: limit > 0 ? limit : Int.max)
                : (c.pendingRequests(device: device), nil)
        }
        let closing = paged ? #"],"next":"# + (next.map { "\"" + ListingCursor(seq: $0, tenant: tenant).description + "\"" } ?? "null") + "}" : "]}"
        return streamedArray(#"{"requests":["#, list, closing, tenant: tenant) { w, r in w.request(r) }
    }
    v1.get("requests/:id") { _, context -> Response in
        let tenant = try context.current
        let id = try parameter(context, "id")
        guard let r = await tenant.withCenter({ $0.request(withIdentifier: id) }) else {
            throw APIError(.notFound, "notFound", "no request \"\(id)\"")
        }
        return jsonResponse(r.json)
    }
    v1.delete("requests/:id") { _, context -> Response in
        let tenant = try context.current
        let id = try parameter(context, "id")
        guard await tenant.withCenter({ $0.request(withIdentifier: id) != nil }) else {
            throw APIError(.notFound, "notFound", "no request \"\(id)\"")
        }
        if let e = outcomeError(await tenant.apply([.remove([id])])) { throw e }
        return Response(status: .noContent)
    }
    v1.get("requests/:id/next") { _, context -> Response in
        let tenant = try context.current
        let id = try parameter(context, "id")
        guard await tenant.withCenter({ $0.request(withIdentifier: id) != nil }) else {
            throw APIError(.notFound, "notFound", "no request \"\(id)\"")
        }
        let next = await tenant.withCenter { $0.nextTriggerDate(forIdentifier: id) }
        return jsonResponse(.object(["identifier": .string(id), "next": next.map(dateString) ?? .null]))
    }
    v1.get("upcoming") { request, context -> Response in
        let tenant = try context.current
        // Lower than the library's bound: a tenant's query holds its center, and a repeating
        // trigger whose dates Foundation answers (years past 2150, other calendars) costs
        // ~40 us a date.
        let limit = try queryInteger(request, "limit", in: 1...maximumUpcoming, default: 10)
        let device: String? = try queryString(request, "device")
        return await tenant.withCenter { c in
            jsonResponse(.object(["fires": .array(c.upcomingFires(limit: limit, device: device).map { f in
                var o: [String: JSONValue] = ["identifier": .string(f.identifier), "date": dateString(f.date)]
                if let d = f.device { o["device"] = .string(d) }
                return .object(o)
            })]))
        }
    }

    // MARK: delivered
    v1.get("delivered") { request, context -> Response in
        let tenant = try context.current
        let device: String? = try queryString(request, "device")
        // Rendered and sent a part at a time, as the requests are: the whole history (up to
        // `deliveredLimitPerDevice` for every device) was made into one buffer first.
        let list = await tenant.withCenter { $0.deliveredNotifications(device: device) }
        return streamedArray(#"{"delivered":["#, list, "]}", tenant: tenant) { w, d in
            d.write(to: &w)
            w.bytes.removeLast()  // its newline
        }
    }
    v1.delete("delivered/:id") { _, context -> Response in
        let tenant = try context.current
        if let e = outcomeError(await tenant.apply([.removeDelivered([try parameter(context, "id")])])) { throw e }
        return Response(status: .noContent)
    }
    v1.delete("delivered") { request, context -> Response in
        let tenant = try context.current
        // With a device, only its own list (the shared deliveries are every device's).
        let input: TenantInput = try queryString(request, "device").map { .removeDelivered(device: $0) } ?? .removeDelivered(nil)
        if let e = outcomeError(await tenant.apply([input])) { throw e }
        return Response(status: .noContent)
    }

    // MARK: settings and categories
    v1.get("devices/:device/settings") { _, context -> Response in
        try await getSettings(tenant: context.current, device: parameter(context, "device"))
    }
    v1.put("devices/:device/settings") { request, context -> Response in
        try await putSettings(request, context: context, tenant: context.current, device: parameter(context, "device"))
    }
    // The same by a query parameter: the device id no path can carry, the empty one (the
    // device of fixes without `device`), whose settings could not be set (a helper's find).
    v1.get("settings") { request, context -> Response in
        try await getSettings(tenant: context.current, device: settingsDevice(request))
    }
    v1.put("settings") { request, context -> Response in
        try await putSettings(request, context: context, tenant: context.current, device: settingsDevice(request))
    }
    v1.get("categories") { _, context -> Response in
        let tenant = try context.current
        let categories = await tenant.withCenter { $0.notificationCategories() }
        return jsonResponse(.object(["categories": .array(categories.map(\.json))]))
    }
    v1.put("categories") { request, context -> Response in
        let tenant = try context.current
        return try await withJSONBody(request, context: context, tenant: tenant) { json in
            let list: [NotificationCategory]
            do throws(SettingsError) {
                list = try NotificationCategory.list(json: json)
            } catch {
                throw APIError(.unprocessableContent, "invalidCategories", error.reason)
            }
            if let e = outcomeError(await tenant.applyHere([.categories(list)])) { throw e }
            return jsonResponse(.object(["categories": .array(list.map(\.json))]))
        }
    }
    v1.post("responses") { request, context -> Response in
        let tenant = try context.current
        return try await withJSONBody(request, context: context, tenant: tenant) { json in
            let response: NotificationResponse
            do throws(SettingsError) {
                response = try NotificationResponse(json: json)
            } catch {
                throw APIError(.unprocessableContent, "invalidResponse", error.reason)
            }
            let outcomes = await tenant.applyHere([.respond(response)])
            if let e = outcomeError(outcomes) { throw e }
            guard case .responded(let outcome)? = outcomes.first else { throw APIError(.internalServerError, "internal", "no outcome") }
            return jsonResponse(outcome.json)
        }
    }
}

/// `?device=` of the settings routes (required; may be empty).
private func settingsDevice(_ request: Request) throws -> String {
    guard let device = try queryString(request, "device") else {
        throw APIError(.badRequest, "invalidRequest", "missing the query's device (?device= names the device \"\")")
    }
    return device
}

/// A device's settings; a device id over the bound is refused as a PUT refuses it (an
/// over-long id answered the default settings; a helper's find).
private func getSettings(tenant: Tenant, device: String) async throws -> Response {
    do throws(SettingsError) { try NotificationSettings.checkDevice(device) } catch {
        throw APIError(.unprocessableContent, "invalidSettings", error.reason)
    }
    return jsonResponse(await tenant.withCenter { $0.notificationSettings(forDevice: device) }.json)
}

/// Sets a device's settings from the request's JSON body.
private func putSettings(_ request: Request, context: ServeContext, tenant: Tenant, device: String) async throws -> Response {
    try await withJSONBody(request, context: context, tenant: tenant) { json in
        let settings: NotificationSettings
        do throws(SettingsError) {
            settings = try NotificationSettings(json: json)
        } catch {
            throw APIError(.unprocessableContent, "invalidSettings", error.reason)
        }
        if let e = outcomeError(await tenant.applyHere([.settings(device: device, settings)])) { throw e }
        return jsonResponse(settings.json)
    }
}
