import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
@_spi(Engine) import TriggerKit

/// Delivers a tenant's events to its webhooks, at least once, from the durable outbox.
///
/// Per webhook: a cursor (the last event delivered, kept in the tenant's store), batches of
/// up to ``batchLimit`` events POSTed as `{"events": [...]}` (each event carries its
/// `eventId`: receivers deduplicate with it), signed `X-TriggerKit-Signature: sha256=<hex>`
/// (HMAC-SHA256 of the body with the webhook's secret). A batch that fails (no answer
/// within ``timeout``, or a status other than 2xx) is retried after ``baseDelay``, doubling up
/// to ``maxAttempts`` attempts; then it goes to the dead-letter list (`GET /v1/webhooks/dead`)
/// and the cursor moves past it. A restart resumes from the cursor. Ingestion never waits
/// for a webhook: a slow or dead receiver only delays its own deliveries.
///
/// The outbox is bounded (`outboxEvents`): events a webhook fell behind by more than that
/// were pruned before it got them. They cannot be delivered; the range is put on the
/// dead-letter list (0 attempts, the reason saying so) and the next batch carries
/// `"gap": {"from": a, "to": b}`, as an event stream gets a `gap` event. (They were skipped
/// silently, found by a helper.) ``timeout`` covers the whole attempt, the answer's body
/// too: a receiver that sends its headers and then stalls no longer holds the webhook.
final class WebhookDispatcher: Sendable {
    let webhooks: [WebhookConfiguration]
    let store: TenantStore
    /// The tenant's thread: the store is read and written there.
    let thread: TenantThread
    let tenant: String
    let metrics: ServerMetrics
    let baseDelay: Double
    let maxAttempts: Int
    let timeout: Double
    let batchLimit = 100

    init(tenant: String, webhooks: [WebhookConfiguration], store: TenantStore, thread: TenantThread, metrics: ServerMetrics,
         baseDelay: Double = 0.5, maxAttempts: Int = 8, timeout: Double = 10) {
        self.tenant = tenant
        self.webhooks = webhooks
        self.store = store
        self.thread = thread
        self.metrics = metrics
        self.baseDelay = baseDelay
        self.maxAttempts = max(1, maxAttempts)
        self.timeout = timeout
    }

    /// Delivers until cancelled (one loop per webhook; an idle loop looks at the outbox every
    /// ``idlePoll`` seconds).
    func run(client: HTTPClient) async {
        await withTaskGroup(of: Void.self) { group in
            for hook in webhooks {
                group.addTask { await self.deliver(hook, client: client) }
            }
        }
    }

    let idlePoll = 0.1

    private func deliver(_ hook: WebhookConfiguration, client: HTTPClient) async {
        let log = Logger(label: "triggerkit.webhooks")
        let store = self.store
        var cursor = await thread.run { (try? store.webhookCursor(url: hook.url)) ?? 0 }
        while !Task.isCancelled {
            let after = cursor, limit = batchLimit
            guard let (rows, oldest) = await thread.run({ try? store.eventsPage(after: after, device: nil, limit: limit) }),
                  let firstSeq = rows.first?.seq, let last = rows.last?.seq else {
                try? await Task.sleep(for: .milliseconds(Int64(idlePoll * 1000)))
                continue
            }
            // Events after the cursor pruned before this webhook got them (the page then starts
            // at the oldest kept): recorded once, and said in this batch; the cursor moves with
            // the batch, so a restart before it is delivered says it again.
            var gap: (from: Int64, to: Int64)?
            if oldest > cursor + 1 {
                let lost = (from: cursor + 1, to: oldest - 1)
                gap = lost
                // Counted and logged once per event: a restart before the gap's batch is
                // delivered finds the range again (extended by what was pruned since).
                // (A record that fails is counted whole and logged: the events are lost
                // whether or not the list says so.)
                let recorded = await thread.run {
                    (try? store.recordPruned(url: hook.url, from: lost.from, to: lost.to,
                                             reason: "pruned from the outbox before delivery (the webhook fell more than outboxEvents behind)",
                                             at: Timestamp.millis(Date()))) ?? (lost.to - lost.from + 1)
                }
                if recorded > 0 {
                    metrics.webhookPruned(tenant: tenant, events: Int(recorded))
                    log.warning("webhook fell behind the outbox: events pruned before delivery",
                                metadata: ["tenant": "\(tenant)", "url": "\(hook.url)", "from": "\(lost.from)", "to": "\(lost.to)"])
                }
            }
            var body = Data("{\"events\":[".utf8)
            for (i, r) in rows.enumerated() {
                if i > 0 { body.append(0x2C) }
                body.append(r.body)
            }
            body.append(0x5D)
            if let g = gap { body.append(contentsOf: Array(",\"gap\":{\"from\":\(g.from),\"to\":\(g.to)}".utf8)) }
            body.append(0x7D)
            let signature = Self.signature(body: body, secret: hook.secret)
            var attempt = 0
            var lastError = ""
            var delivered = false
            while attempt < maxAttempts && !Task.isCancelled {
                attempt += 1
                var request = HTTPClientRequest(url: hook.url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.headers.add(name: "X-TriggerKit-Signature", value: "sha256=" + signature)
                request.headers.add(name: "X-TriggerKit-Tenant", value: tenant)
                request.headers.add(name: "X-TriggerKit-Events", value: "\(firstSeq)-\(last)")
                request.body = .bytes(ByteBuffer(bytes: body))
                do {
                    let status = try await Self.post(request, client: client, timeout: timeout)
                    if (200..<300).contains(status) {
                        delivered = true
                        break
                    }
                    lastError = "status \(status)"
                } catch {
                    lastError = Self.reason(error)
                }
                metrics.webhook(tenant: tenant, result: "failed")
                guard attempt < maxAttempts else { break }
                let delay = baseDelay * pow(2, Double(attempt - 1))
                try? await Task.sleep(for: .milliseconds(Int64(min(delay, 300) * 1000)))
            }
            if Task.isCancelled && !delivered { return }
            if delivered {
                metrics.webhook(tenant: tenant, result: "ok")
                await thread.run { _ = try? store.setWebhookCursor(url: hook.url, seq: last) }
            } else {
                metrics.webhook(tenant: tenant, result: "dead")
                log.warning("webhook batch dead-lettered", metadata: ["tenant": "\(tenant)", "url": "\(hook.url)", "reason": "\(lastError)"])
                let attempts = attempt, reason = lastError, batch = body
                await thread.run {
                    _ = try? store.deadLetter(url: hook.url, from: firstSeq, to: last, attempts: attempts, reason: reason,
                                              at: Timestamp.millis(Date()), body: batch)
                }
            }
            cursor = last
        }
    }

    /// One attempt: the request sent and its answer read (up to 64 KiB of body), all within
    /// `timeout` seconds, else ``AttemptTimedOut`` (the attempt is cancelled).
    static func post(_ request: HTTPClientRequest, client: HTTPClient, timeout: Double) async throws -> UInt {
        try await withThrowingTaskGroup(of: UInt.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
                _ = try? await response.body.collect(upTo: 64 * 1024)  // (a longer body: read no further)
                return response.status.code
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                throw AttemptTimedOut(seconds: timeout)
            }
            defer { group.cancelAll() }
            guard let status = try await group.next() else { throw AttemptTimedOut(seconds: timeout) }
            return status
        }
    }

    /// An attempt's failure as the dead-letter list says it: a system error by its name
    /// (NIO said `connection reset (error set): Connection refused) (errno: 111)` of a port
    /// nobody listens on, and for a host name `Connection errors: SingleConnectionFailure(...)`),
    /// a name that does not resolve as such.
    static func reason(_ error: any Error) -> String {
        func system(_ e: IOError) -> String {
            "\(String(cString: strerror(e.errnoCode)).lowercased()) (errno \(e.errnoCode))"
        }
        if let e = error as? IOError { return "connection failed: " + system(e) }
        if let e = error as? NIOConnectionError {
            if let first = e.connectionErrors.first {
                let why = (first.error as? IOError).map(system) ?? "\(first.error)"
                return "connection failed: \(why) (\(e.host):\(e.port))"
            }
            if e.dnsAError != nil || e.dnsAAAAError != nil { return "connection failed: \(e.host) does not resolve" }
        }
        return "\(error)"
    }

    /// No answer (headers and body) within the timeout.
    struct AttemptTimedOut: Error, CustomStringConvertible {
        var seconds: Double
        var description: String { "no complete answer within \(seconds) s" }
    }

    /// Lowercase hex HMAC-SHA256 of `body` under `secret`.
    static func signature(body: Data, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8)))
        return hex(mac)
    }
}

/// Lowercase hex of bytes.
func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// SHA-256 of a token, lowercase hex: what the configuration stores instead of the token.
package func tokenHash(_ token: String) -> String {
    hex(SHA256.hash(data: Data(token.utf8)))
}
