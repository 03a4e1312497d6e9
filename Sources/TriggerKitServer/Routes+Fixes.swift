import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
@_spi(Engine) import TriggerKit

/// The most errors, and stale lines, a fix batch's answer lists (the first by line; the
/// counts of the others are given).
let listedPerBatch = 1_000

/// Fixes, the stream clock, counters, webhook dead letters and the event stream.
func addFixAndEventRoutes(to v1: RouterGroup<ServeContext>, stallLimit: Duration) {
    // MARK: fixes and time
    v1.post("fixes") { request, context -> Response in
        let tenant = try context.current
        let started = ContinuousClock.now
        // Parsed, applied and answered on the tenant's thread (``Tenant/work(_:)``).
        return try await withBody(request, context: context, tenant: tenant) { body in
        try await tenant.work { () async throws -> Response in
            let batch = FixBatch(body, on: tenant.thread)
            let outcomes = batch.inputs.isEmpty ? [] : await tenant.applyHere(batch.inputs)
            var accepted = 0
            // The lines the center refused (with its error, shared with `outcomes`), and the
            // stale ones, by line number.
            var refused: [(line: Int, error: APIError)] = []
            var stale: [Int] = []
            for (i, o) in outcomes.enumerated() {
                switch o {
                case .rejected(let e):
                    if e.status == .serviceUnavailable { throw e }
                    refused.append((batch.lines[i], e))
                case .stale:
                    accepted += 1
                    stale.append(batch.lines[i])
                default:
                    accepted += 1
                }
            }
            // Lines refused as written count among the refused fixes too (once the batch was
            // applied: a batch answered 503 counts nothing, so a client's retry counts once).
            if batch.errorCount > 0 { await tenant.centerHere { [n = batch.errorCount] in $0.countRejectedFixes(n) } }
            let rejected = batch.errorCount + refused.count
            tenant.metrics.fixes(tenant: tenant.id, accepted: accepted, rejected: rejected)
            let elapsed = ContinuousClock.now - started
            tenant.metrics.fixBatch(tenant: tenant.id, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            // The first ``listedPerBatch`` of each list, by line, and how many more: a body of
            // 2.8 million bad lines within the size limit was answered with 178 MB of errors
            // (a helper's find). `rejected` counts them all. The lines refused as written are
            // the first ones by line already (the batch keeps no more); the center's refusals
            // are merged in.
            refused.sort { $0.line < $1.line }
            var listed: [JSONValue] = []
            var p = 0, q = 0
            while listed.count < listedPerBatch && (p < batch.errors.count || q < refused.count) {
                if q == refused.count || (p < batch.errors.count && batch.errors[p].line < refused[q].line) {
                    listed.append(batch.errors[p].json)
                    p += 1
                } else {
                    let (line, e) = refused[q]
                    listed.append(FixBatch.Refusal(line: line, code: e.code, message: e.message).json)
                    q += 1
                }
            }
            stale.sort()
            var answer: [String: JSONValue] = ["accepted": .number(Double(accepted)), "rejected": .number(Double(rejected)),
                                               "errors": .array(listed),
                                               "stale": .array(stale.prefix(listedPerBatch).map { .number(Double($0)) })]
            if rejected > listedPerBatch { answer["errorsOmitted"] = .number(Double(rejected - listedPerBatch)) }
            if stale.count > listedPerBatch { answer["staleOmitted"] = .number(Double(stale.count - listedPerBatch)) }
            return jsonResponse(.object(answer), status: accepted == 0 && rejected > 0 ? .badRequest : .ok)
        }
        }
    }
    v1.post("clock") { request, context -> Response in
        let tenant = try context.current
        return try await withJSONBody(request, context: context, tenant: tenant) { json in
            guard case .object(let o) = json, o["t"] != nil else { throw APIError(.unprocessableContent, "invalidClock", "send {\"t\": date}") }
            // (The stream's reader of `t`: one rule for a clock line and this body.)
            let ms: Int64
            do throws(StreamLineError) {
                ms = try StreamLineParser.time(o["t"])
            } catch {
                throw APIError(.unprocessableContent, "invalidClock", error.reason)
            }
            if let e = outcomeError(await tenant.applyHere([.clock(Timestamp.date(millis: ms))])) { throw e }
            return jsonResponse(.object(["now": dateString(tenant.clock.now)]))
        }
    }
    v1.get("stats") { _, context -> Response in
        let tenant = try context.current
        let s = await tenant.withCenter { $0.statistics }
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
        let store = tenant.store
        let rows = try await tenant.thread.run { () throws -> [TenantStore.DeadLetter] in try store.deadLetters(limit: 1000) }
        return jsonResponse(.object(["dead": .array(rows.map { r in
            .object(["url": .string(r.url), "fromEvent": .number(Double(r.fromSeq)), "toEvent": .number(Double(r.toSeq)),
                     "attempts": .number(Double(r.attempts)), "reason": .string(r.reason),
                     "at": .string(Timestamp.string(millis: r.at))])
        })]))
    }

    // MARK: events (Server-Sent Events)
    // (The stored part of a stream: ``StoredEvents``.)
    v1.get("events") { request, context -> Response in
        let tenant = try context.current
        let device = try queryString(request, "device")
        let limit = try queryInteger(request, "limit", in: 1...Int.max, default: Int.max)
        // follow=false: end after the stored events (a poll) instead of waiting for new ones.
        let follow = try queryWord(request, "follow", of: ["true", "false"]) != "false"
        let from = try queryWord(request, "from", of: ["now"])
        // An event number, below the largest (`after + 1` is the first one sent).
        let numbers = 0...Int(Int64.max - 1)
        var after: Int64 = 0
        if let h = request.headers[lastEventIDField] {
            guard let v = Int64(h.trimmingCharacters(in: .whitespaces)), numbers.contains(Int(v)) else {
                throw APIError(.badRequest, "invalidRequest", "Last-Event-ID must be an event number (0...\(numbers.upperBound)), not \"\(h)\"")
            }
            after = v
        } else if try queryString(request, "after") != nil {
            after = Int64(try queryInteger(request, "after", in: numbers, default: 0))
        } else if from == "now" {
            let store = tenant.store
            after = await tenant.thread.run { (try? store.lastEventSeq()) ?? 0 }
        }
        // Subscribe first, then replay the outbox: nothing falls between the two. (A poll,
        // `follow=false`, needs no subscription.)
        let live = follow ? tenant.hub.subscribe(device: device) : nil
        if follow {
            guard live != nil else {
                throw APIError(.tooManyRequests, "tooManyEventStreams",
                               "the tenant has \(tenant.hub.maxSubscribers) event streams open, its limit (limits.maxEventStreams): close one, or poll with follow=false")
            }
        }
        let resumeAfter = after
        let store = tenant.store, thread = tenant.thread, tenantID = tenant.id, logger = context.logger
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // Leaves the hub however the stream ends (a subscription released unused leaves
            // it too).
            defer { live?.cancel() }
            // Every write is watched: one the client leaves untaken for `stallLimit` ends the
            // stream, closes the connection and frees its slot (``StalledWrites``).
            do {
                try await StalledWrites.watching(limit: stallLimit) { watch in
                    try await writeEvents(after: resumeAfter, limit: limit, live: live, request: request, put: { b in
                        try await watch.write { try await writer.write(b) }
                    }, page: { after, count in
                        await thread.run { (try? store.eventsPage(after: after, device: device, limit: count)) ?? ([], 0) }
                    })
                }
            } catch let stalled as StalledWrites.Stalled {
                logger.notice("event stream closed", metadata: ["tenant": "\(tenantID)", "reason": "\(stalled)"])
                throw stalled
            }
            try await writer.finish(nil)
        })
    }
}

/// An event stream's items after event `after`, at most `limit` events, each written through
/// `put`: the stored ones (``StoredEvents``, pages from `page`), then, with a subscription
/// `live`, the live ones until the client goes (`request`'s inbound closes) or the hub ends it.
private func writeEvents(after resumeAfter: Int64, limit: Int, live: EventHub.Subscription?, request: Request,
                         put: (ByteBuffer) async throws -> Void,
                         page: (Int64, Int) async -> ([TenantStore.OutboxRow], Int64)) async throws {
    var sent = 0
    var last = resumeAfter
    try await put(ByteBuffer(string: ": triggerkit events\n\n"))
    try await StoredEvents.replay(after: resumeAfter, limit: limit, page: page, emit: { item in
        switch item {
        case .gap(let from, let to):
            try await put(ByteBuffer(string: "event: gap\ndata: {\"from\":\(from),\"to\":\(to)}\n\n"))
            last = to
        case .event(let seq, let body):
            var b = ByteBuffer(string: "id: \(seq)\nevent: delivered\ndata: ")
            b.writeBytes(body)
            b.writeString("\n\n")
            try await put(b)
            last = seq
            sent += 1
        }
    })
    guard sent < limit, let live else { return }
    try await request.body.consumeWithCancellationOnInboundClose { _ in
        // Everything queued at once, the frames made at publishing copied into writes of up to
        // 64 KiB: a write waits while the client does not read, so a stalled connection holds
        // one such write, and references to the rest.
        var out = ByteBufferAllocator().buffer(capacity: EventHub.writeBytes)
        while sent < limit, let batch = await live.next(heartbeat: EventHub.heartbeat) {
            if batch.isEmpty {
                try await put(ByteBuffer(string: ": ping\n\n"))
                continue
            }
            for e in batch where e.seq > last && sent < limit {
                out.writeImmutableBuffer(e.frame)
                last = e.seq
                sent += 1
                if out.readableBytes >= EventHub.writeBytes {
                    try await put(out)
                    out = ByteBufferAllocator().buffer(capacity: EventHub.writeBytes)
                }
            }
            if out.readableBytes > 0 {
                try await put(out)
                out = ByteBufferAllocator().buffer(capacity: EventHub.writeBytes)
            }
        }
    }
}

/// The stored part of an event stream: the outbox after a position, a page at a time. The
/// outbox may be pruned while a slow reader goes through it: each page is read with the
/// outbox's oldest event (``TenantStore/eventsPage(after:device:limit:)``), and where events
/// after the last one sent are gone a `gap` item says which, before the events that follow.
/// (It was said only at the start, and only when resuming after an event above 0; found by a
/// helper.)
enum StoredEvents {
    enum Item: Equatable {
        case gap(from: Int64, to: Int64)
        case event(seq: Int64, body: Data)
    }

    /// Emits the items after event `after`, at most `limit` events, from `page(after, count)`
    /// (the rows after a position and the oldest event held, 0 when none).
    static func replay(after: Int64, limit: Int, pageSize: Int = 1000,
                       page: (Int64, Int) async -> ([TenantStore.OutboxRow], Int64),
                       emit: (Item) async throws -> Void) async throws {
        var last = after, sent = 0
        while sent < limit {
            let (rows, oldest) = await page(last, min(pageSize, limit - sent))
            if oldest > last + 1 {
                try await emit(.gap(from: last + 1, to: oldest - 1))
                last = oldest - 1
            }
            if rows.isEmpty { break }
            for r in rows {
                try await emit(.event(seq: r.seq, body: r.body))
                last = r.seq
                sent += 1
            }
        }
    }
}
