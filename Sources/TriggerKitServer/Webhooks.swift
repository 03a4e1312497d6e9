import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
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
            guard let rows = await thread.run({ try? store.events(after: after, device: nil, limit: limit) }),
                  let firstSeq = rows.first?.seq, let last = rows.last?.seq else {
                try? await Task.sleep(for: .milliseconds(Int64(idlePoll * 1000)))
                continue
            }
            var body = Data("{\"events\":[".utf8)
            for (i, r) in rows.enumerated() {
                if i > 0 { body.append(0x2C) }
                body.append(r.body)
            }
            body.append(contentsOf: Array("]}".utf8))
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
                    let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    if (200..<300).contains(response.status.code) {
                        delivered = true
                        break
                    }
                    lastError = "status \(response.status.code)"
                } catch {
                    lastError = "\(error)"
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
