import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// What a reader that falls behind the bounded outbox is told (found by a helper: webhooks
/// skipped pruned events silently; an event stream said so only at its start, and never
/// from event 0), and a webhook receiver that answers its headers and then stalls.
@Suite("serve: readers behind the outbox, stalled receivers")
struct ServeOutboxGapTests {
    /// 1,100 events in one step: with `outboxEvents` 20, the outbox is pruned once (it holds
    /// the last 20 and at most 1,023 more between prunings).
    static func recordManyEvents(_ c: any TestClientProtocol) async throws {
        #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
        #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-24T02:20:00Z"}"#).status == 200)
    }

    static var smallOutbox: TenantLimits {
        var l = TenantLimits()
        l.outboxEvents = 20
        return l
    }

    @Test(arguments: [[], [("Last-Event-ID", "0")]] as [[(String, String)]])
    func aStreamFromTheStartIsToldOfPrunedEvents(_ headers: [(String, String)]) async throws {
        let serve = Serve(limits: Self.smallOutbox)
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            try await Self.recordManyEvents(c)
            let text = try await c.call(.get, "/v1/events?follow=false", headers: headers).body
            let events = sseEvents(text)
            let first = try #require(events.first?.id)
            #expect(first > 1)
            #expect(text.contains("event: gap\ndata: {\"from\":1,\"to\":\(first - 1)}"), "\(text.prefix(200))")
            #expect(events.last?.id == 1_100)
        }
    }

    /// A reader that falls behind the pruning between two pages of stored events: the gap is
    /// said where it happened (the stream said it only before its first page).
    @Test func aReaderPrunedPastBetweenPagesIsToldWhere() async throws {
        final class Outbox: @unchecked Sendable {
            var rows = (1...50).map { TenantStore.OutboxRow(seq: Int64($0), device: nil, body: Data("\($0)".utf8)) }
            var reads = 0
        }
        let outbox = Outbox()
        var items: [StoredEvents.Item] = []
        try await StoredEvents.replay(after: 0, limit: .max, pageSize: 10, page: { after, count in
            outbox.reads += 1
            // After the second page, events 21-35 are pruned (new ones keep coming: 51-55).
            if outbox.reads == 3 {
                outbox.rows.removeAll { $0.seq <= 35 }
                outbox.rows += (51...55).map { TenantStore.OutboxRow(seq: Int64($0), device: nil, body: Data()) }
            }
            return (Array(outbox.rows.filter { $0.seq > after }.prefix(count)), outbox.rows.first?.seq ?? 0)
        }, emit: { items.append($0) })
        let seqs = items.compactMap { if case .event(let s, _) = $0 { s } else { nil } }
        #expect(seqs == Array(1...20) + Array(36...55))
        #expect(items[20] == .gap(from: 21, to: 35))
        #expect(items.filter { if case .gap = $0 { true } else { false } }.count == 1)
        // From event 0 with the first events pruned: a gap first; none when nothing is gone.
        items = []
        try await StoredEvents.replay(after: 0, limit: 3, page: { after, count in
            (Array(outbox.rows.filter { $0.seq > after }.prefix(count)), outbox.rows.first?.seq ?? 0)
        }, emit: { items.append($0) })
        #expect(items.first == .gap(from: 1, to: 35))
        #expect(items.count == 4)
        items = []
        try await StoredEvents.replay(after: 40, limit: .max, page: { after, count in
            (Array(outbox.rows.filter { $0.seq > after }.prefix(count)), outbox.rows.first?.seq ?? 0)
        }, emit: { items.append($0) })
        #expect(items.count == 15)
        #expect(!items.contains { if case .gap = $0 { true } else { false } })
    }

    /// A receiver that records every batch's events and gap.
    final class Receiver: Sendable {
        let state = Mutex<(calls: Int, eventIds: [String], gaps: [(Int64, Int64)])>((0, [], []))
        let failFirst: Bool
        init(failFirst: Bool) { self.failFirst = failFirst }

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.post("hook") { request, _ -> HTTPResponse.Status in
                let body = try await request.body.collect(upTo: 1 << 22)
                let json = try JSONValue.parse(String(buffer: body)).objectValue
                let first = self.state.withLock { s -> Bool in
                    s.calls += 1
                    return s.calls == 1
                }
                if first && self.failFirst {
                    // Long enough for the step to record and prune meanwhile.
                    try await Task.sleep(for: .milliseconds(300))
                    return .internalServerError
                }
                let ids = json?["events"]?.arrayValue?.compactMap { $0.objectValue?["eventId"]?.stringValue } ?? []
                let gap = json?["gap"]?.objectValue
                self.state.withLock { s in
                    s.eventIds += ids
                    if case .number(let a)? = gap?["from"], case .number(let b)? = gap?["to"] { s.gaps.append((Int64(a), Int64(b))) }
                }
                return .noContent
            }
            return router
        }
    }

    @Test func aWebhookBehindTheOutboxIsToldAndTheGapIsDeadLettered() async throws {
        let receiver = Receiver(failFirst: true)
        let hookApp = Application(router: receiver.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await hookApp.test(.live) { hook in
            let port = try #require(hook.port)
            let serve = Serve(limits: Self.smallOutbox, webhooks: [WebhookConfiguration(url: "http://127.0.0.1:\(port)/hook", secret: "s")])
            defer { serve.remove() }
            var tuning = TriggerKitServer.Tuning()
            tuning.webhookBaseDelay = 0.05
            tuning.webhookMaxAttempts = 5
            try await serve.run(tuning: tuning) { c, _ async throws in
                try await Self.recordManyEvents(c)
                // Bounded wait: until the receiver has accounted for every event.
                func accounted() -> Int {
                    receiver.state.withLock { s in s.eventIds.count + s.gaps.reduce(0) { $0 + Int($1.1 - $1.0 + 1) } }
                }
                for _ in 0..<400 where accounted() < 1_100 { try await Task.sleep(for: .milliseconds(25)) }
                let s = receiver.state.withLock { $0 }
                #expect(accounted() == 1_100)
                #expect(Set(s.eventIds).count == s.eventIds.count)
                // The gap is said to the receiver and kept in the dead-letter list.
                let gap = try #require(s.gaps.first)
                let dead = try await c.call(.get, "/v1/webhooks/dead").json?.objectValue?["dead"]?.arrayValue ?? []
                let entry = try #require(dead.first?.objectValue)
                #expect(entry["attempts"] == .number(0))
                #expect(entry["fromEvent"] == .number(Double(gap.0)), "\(entry)")
                #expect(entry["toEvent"] == .number(Double(gap.1)), "\(entry)")
                #expect(entry["reason"]?.stringValue?.contains("pruned") == true)
            }
        }
    }

    /// A receiver that refuses connections (nothing listens) failed each attempt only at its
    /// timeout: the HTTP client retried the connection until then, so a batch took 144 s to
    /// dead-letter, said to be "no complete answer within 10.0 s" (a helper's find). Each
    /// attempt fails at once now, named.
    /// (A host name connects another way: its refusal was named only for an address, a
    /// reviewer's find.)
    @Test(arguments: ["127.0.0.1", "localhost"])
    func aRefusedConnectionFailsTheAttemptAtOnce(host: String) async throws {
        // (Polled for 5 s: two attempts waiting out their 3 s timeout would not be there.)
        let entry = try await Self.deadLetterOfOneFire(webhookPort: try ServerSocketProbe.freePort(), host: host, timeout: 3)
        #expect(entry["attempts"] == .number(2))
        #expect(entry["reason"]?.stringValue?.hasPrefix("connection failed: connection refused (errno 111)") == true, "\(entry)")
    }

    /// The dead letter of the one event a request firing once makes, for a webhook at
    /// `host`:`webhookPort` given two attempts of `timeout` seconds each.
    static func deadLetterOfOneFire(webhookPort port: Int, host: String = "127.0.0.1", timeout: Double) async throws -> [String: JSONValue] {
        let serve = Serve(webhooks: [WebhookConfiguration(url: "http://\(host):\(port)/hook", secret: "s")])
        defer { serve.remove() }
        var tuning = TriggerKitServer.Tuning()
        tuning.webhookBaseDelay = 0.01
        tuning.webhookMaxAttempts = 2
        tuning.webhookTimeout = timeout
        let entry = Mutex<[String: JSONValue]>([:])
        try await serve.run(tuning: tuning) { c, _ async throws in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:02:00Z"}"#).status == 200)
            let dead = try #require(try await c.deadLetters().first?.objectValue)
            entry.withLock { $0 = dead }
        }
        return entry.withLock { $0 }
    }

    /// A receiver that sends `200` and a `Content-Length` and then never the body held its
    /// webhook for ever (no retry, no dead letter): the timeout now covers the whole answer.
    @Test func aReceiverThatStallsItsBodyTimesOut() async throws {
        let router = Router()
        router.post("hook") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentLength] = "100"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "{"))
                try await Task.sleep(for: .seconds(3))
            })
        }
        let hookApp = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await hookApp.test(.live) { hook in
            let entry = try await Self.deadLetterOfOneFire(webhookPort: try #require(hook.port), timeout: 0.3)
            #expect(entry["attempts"] == .number(2))
            #expect(entry["reason"] == .string("no complete answer within 0.3 s"))
        }
    }
}

/// A TCP port on 127.0.0.1 nobody listens on (bound, read, closed).
enum ServerSocketProbe {
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
