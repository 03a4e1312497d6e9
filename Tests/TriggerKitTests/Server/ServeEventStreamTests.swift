import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// The live event streams: each event's SSE frame made once and shared, a connection's queued
/// events taken at once, bounded in events per connection and in connections per tenant.
/// (Each connection made and wrote its own frame per event, one write each: with 100
/// connections a step of 10,000 events held both cores for 4-8 s, and every tenant's calls and
/// `/healthz` waited behind it; 1,000 stalled connections held 4 GB. A helper's measurements.)
@Suite("serve: live event streams")
struct ServeEventStreamTests {
    static func event(_ seq: Int64, _ device: String?) -> EventHub.Event {
        EventHub.Event(seq: seq, device: device, body: Data(#"{"n":\#(seq)}"#.utf8))
    }

    @Test func aFrameIsMadeOnceAsSSEWritesIt() {
        #expect(String(buffer: Self.event(7, nil).frame) == "id: 7\nevent: delivered\ndata: {\"n\":7}\n\n")
    }

    @Test func aSubscriptionTakesItsQueueAtOnceSeesItsDeviceAndEndsPastItsBound() async throws {
        let hub = EventHub(bufferLimit: 3, maxSubscribers: 2)
        let all = try #require(hub.subscribe(device: nil))
        let d1 = try #require(hub.subscribe(device: "d1"))
        // The bound on connections.
        #expect(hub.subscribe(device: nil) == nil)
        hub.publish([Self.event(1, "d1"), Self.event(2, "d2"), Self.event(3, nil)])
        #expect(await all.next()?.map(\.seq) == [1, 2, 3])
        #expect(await d1.next()?.map(\.seq) == [1, 3])
        // Four more for every device: past its three `all`'s stream ends at once, what it held
        // dropped (the client resumes from the outbox; it wrote the three first, so a slow
        // reader stayed connected long after falling behind: a helper's find); d1 sees only
        // the shared one. `all` keeps its slot until its connection is done with it (a client
        // that stopped reading is still a connection).
        hub.publish([Self.event(4, nil), Self.event(5, "d2"), Self.event(6, "d2"), Self.event(7, "d2")])
        #expect(hub.subscriberCount == 2)
        #expect(await all.next() == nil)
        #expect(hub.subscribe(device: nil) == nil)
        all.cancel()
        #expect(hub.subscriberCount == 1)
        #expect(await d1.next()?.map(\.seq) == [4])
        // A waiting reader is woken by the next publish.
        async let waiting = d1.next()
        try await Task.sleep(for: .milliseconds(50))
        hub.publish([Self.event(8, "d1")])
        #expect(await waiting?.map(\.seq) == [8])
        // A cancelled reader returns nil and its subscription ends.
        let reader = Task { await d1.next() }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        #expect(await reader.value == nil)
        #expect(await d1.next() == nil)
    }

    /// A quiet stream's reader is woken with an empty batch (the route writes `: ping`), so a
    /// peer gone without a word is found at that write and its slot freed.
    @Test func aQuietStreamBeats() async throws {
        let hub = EventHub(bufferLimit: 10, maxSubscribers: 2)
        let s = try #require(hub.subscribe(device: nil))
        let started = ContinuousClock.now
        #expect(await s.next(heartbeat: .milliseconds(50))?.isEmpty == true)
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        hub.publish([Self.event(1, nil)])
        #expect(await s.next(heartbeat: .milliseconds(50))?.map(\.seq) == [1])
        // Without a heartbeat, an iterator skips nothing and waits.
        hub.publish([Self.event(2, nil)])
        var it = s.makeAsyncIterator()
        #expect(await it.next()?.seq == 2)
    }

    /// Two readers of one subscription: the second one's wait ends the first's (it waited for
    /// ever). Connections subscribing at once never pass the bound (two could).
    @Test func aSecondReaderEndsTheFirstAndTheBoundHoldsUnderRaces() async throws {
        let hub = EventHub(bufferLimit: 10, maxSubscribers: 4)
        let s = try #require(hub.subscribe(device: nil))
        let first = Task { await s.next() }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { await s.next() }
        #expect(await first.value == nil)
        hub.publish([Self.event(1, nil)])
        #expect(await second.value?.map(\.seq) == [1])
        s.cancel()
        for _ in 0..<50 {
            let got = await withTaskGroup(of: EventHub.Subscription?.self) { group in
                for _ in 0..<32 { group.addTask { hub.subscribe(device: nil) } }
                var all: [EventHub.Subscription] = []
                for await g in group { if let g { all.append(g) } }
                return all
            }
            #expect(got.count == 4 && hub.subscriberCount == 4, "\(got.count) admitted")
            for g in got { g.cancel() }
            #expect(hub.subscriberCount == 0)
        }
    }

    @Test func aReleasedSubscriptionLeavesTheHub() async throws {
        let hub = EventHub(bufferLimit: 10, maxSubscribers: 1)
        do {
            let held = hub.subscribe(device: nil)
            #expect(held != nil && hub.subscriberCount == 1)
            #expect(hub.subscribe(device: nil) == nil)
        }
        #expect(hub.subscriberCount == 0)
        #expect(hub.subscribe(device: nil) != nil)
    }

    /// Past `limits.maxEventStreams` a following stream is refused with 429; a poll
    /// (`follow=false`) holds no connection open and is still answered.
    @Test func theStreamsOfATenantAreBounded() async throws {
        var limits = TenantLimits()
        limits.maxEventStreams = 2
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        try await serve.run { c, state in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:02:00Z"}"#).status == 200)
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            let open = [acme.hub.subscribe(device: nil), acme.hub.subscribe(device: "d1")]
            #expect(open.allSatisfy { $0 != nil })
            let refused = try await c.call(.get, "/v1/events")
            #expect(refused.status == 429 && refused.errorCode == "tooManyEventStreams", "\(refused)")
            #expect(refused.body.contains("limits.maxEventStreams"), "\(refused.body)")
            let poll = try await c.call(.get, "/v1/events?follow=false")
            #expect(poll.status == 200)
            #expect(sseEvents(poll.body).map(\.id) == [1, 2])
            // The other tenant has its own bound.
            #expect(try await c.call(.get, "/v1/events?follow=false", token: Serve.tokenB).status == 200)
            for s in open { s?.cancel() }
            #expect(acme.hub.subscriberCount == 0)
        }
    }

    /// A client that stopped reading held its stream's slot for as long as it lived: a write
    /// to it waited for ever, and its handler with it. With `limits.maxEventStreams` such
    /// clients shut the tenant's streams out for good (noticed in the thirty-sixth pass). A
    /// write left untaken past the stall limit now closes the stream and frees the slot; a
    /// quiet stream, which waits in no write, stays open however long it is quiet.
    @Test(.timeLimit(.minutes(1)))
    func aStreamWhoseClientStoppedReadingIsClosedAndAQuietOneStays() async throws {
        var limits = TenantLimits()
        limits.maxEventStreams = 1
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        var tuning = TriggerKitServer.Tuning()
        tuning.streamStallLimit = .seconds(1)
        try await serve.run(tuning: tuning) { c, state in
            let port = try #require(c.port)
            // 10,000 events of about 2 KB (20 MB): far more than the socket buffers hold
            // (the server's send buffer grows to 4 MiB here, `net.ipv4.tcp_wmem`; the client's
            // receive buffer is 4 KB), so the stream's writes back up. (With 3,000 they
            // sometimes all fitted, and the stream then waited for events, not in a write.)
            let id = "big-" + String(repeating: "i", count: 1_000), device = String(repeating: "d", count: 1_000)
            let request = #"{"identifier":"\#(id)","device":"\#(device)","content":{"title":"t"},"addedAt":"\#(Serve.t0)","trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#
            #expect(try await c.call(.post, "/v1/requests", body: request).status == 201)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-30T06:40:00Z"}"#).status == 200)
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            let bolt = try #require(state.tenants.first { $0.id == "bolt" })
            let stalled = try ServeStopTests.stalledRequest(port: port, "GET /v1/events?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Serve.tokenA)\r\n\r\n")
            let quiet = try ServeStopTests.stalledRequest(port: port, "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Serve.tokenB)\r\n\r\n")
            defer { close(stalled); close(quiet) }
            // Both streams open (their slots taken), then the stalled one let go.
            for _ in 0..<100 where acme.hub.subscriberCount + bolt.hub.subscriberCount < 2 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(acme.hub.subscriberCount == 1 && bolt.hub.subscriberCount == 1)
            for _ in 0..<400 where acme.hub.subscriberCount > 0 { try await Task.sleep(for: .milliseconds(25)) }
            #expect(acme.hub.subscriberCount == 0, "the stalled stream still holds its slot")
            // Its connection is closed: draining it ends in the peer's close.
            // (Off the cooperative pool: the in-process server answers on it.)
            let (drained, closed) = await ServeUploadTests.offPool { () -> (Int, Bool) in
                var buffer = [UInt8](repeating: 0, count: 65_536), drained = 0
                var wait = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(stalled, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(stalled, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { return (drained, n == 0) }
                    drained += n
                }
            }
            #expect(closed && drained > 0, "drained \(drained) bytes without the server's close")
            // The slot is free: a new stream is served (its first event, then it ends).
            let next = try await c.call(.get, "/v1/events?after=0&limit=1")
            #expect(next.status == 200 && sseEvents(next.body).map(\.id) == [1], "\(next.status)")
            // The quiet stream waited in no write: still open, still holding its slot.
            #expect(bolt.hub.subscriberCount == 1)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let open = buffer.withUnsafeMutableBytes { recv(quiet, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            #expect(open != 0, "the quiet stream was closed")
        }
    }

    /// The configuration names the limit and holds it to its range.
    @Test func theLimitIsReadAndChecked() throws {
        let read = try JSONDecoder().decode(TenantLimits.self, from: Data(#"{"maxEventStreams": 9}"#.utf8))
        #expect(read.maxEventStreams == 9)
        #expect(try JSONDecoder().decode(TenantLimits.self, from: Data("{}".utf8)).maxEventStreams == 256)
        var bad = TenantLimits()
        bad.maxEventStreams = 0
        #expect(throws: ConfigurationError.self) { try bad.validate(field: "limits") }
    }
}
