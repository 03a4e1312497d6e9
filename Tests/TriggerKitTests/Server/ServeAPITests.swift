import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import HummingbirdTesting
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// Issue 10: `triggerkit serve` through a real HTTP connection: every route, auth, tenant
/// isolation, bad bodies, SSE resume.
@Suite("serve: HTTP API")
struct ServeAPITests {
    @Test func everyRouteAnswers() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            #expect(try await c.call(.get, "/healthz", token: nil).status == 200)
            // Requests: add (201), replace (200), list, get, next, upcoming, delete.
            var a = try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60, category: "REMINDER"))
            #expect(a.status == 201)
            #expect(a.json?.objectValue?["warnings"]?.arrayValue?.count == 1)  // unknown category: a warning
            a = try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60, category: "REMINDER"))
            #expect(a.status == 200)
            #expect(a.json?.objectValue?["replaced"] == .bool(true))
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("home", device: "d1")).status == 201)
            a = try await c.call(.get, "/v1/requests")
            #expect(a.json?.objectValue?["requests"]?.arrayValue?.compactMap { $0.objectValue?["identifier"]?.stringValue } == ["tick", "home"])
            #expect(try await c.call(.get, "/v1/requests?device=d2").json?.objectValue?["requests"]?.arrayValue?.count == 1)
            a = try await c.call(.get, "/v1/requests/home")
            #expect(a.json?.objectValue?["device"] == .string("d1"))
            a = try await c.call(.get, "/v1/requests/tick/next")
            #expect(a.json?.objectValue?["next"] == .string("2026-11-23T08:01:00Z"))
            a = try await c.call(.get, "/v1/upcoming?limit=3")
            #expect(a.json?.objectValue?["fires"]?.arrayValue?.count == 3)
            #expect(try await c.call(.get, "/v1/upcoming?limit=0").status == 400)
            // Categories, settings.
            a = try await c.call(.put, "/v1/categories", body: #"[{"identifier":"REMINDER","actions":[{"identifier":"cancel","title":"Cancel","options":["destructive"],"effect":"removeRequest"}]}]"#)
            #expect(a.status == 200)
            a = try await c.call(.get, "/v1/categories")
            #expect(a.json?.objectValue?["categories"]?.arrayValue?.first?.objectValue?["actions"]?.arrayValue?.first?.objectValue?["effect"] == .string("removeRequest"))
            a = try await c.call(.put, "/v1/devices/d1/settings", body: #"{"authorizationStatus":"provisional"}"#)
            #expect(a.status == 200)
            #expect(try await c.call(.get, "/v1/devices/d1/settings").json?.objectValue?["authorizationStatus"] == .string("provisional"))
            // Fixes and time (stream clock): the circle fires enter and exit, the interval fires.
            a = try await c.call(.post, "/v1/fixes", body: Sample.fixes(count: 8))
            #expect(a.status == 200)
            #expect(a.json?.objectValue?["accepted"] == .number(8))
            a = try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:10:00Z"}"#)
            #expect(a.json?.objectValue?["now"] == .string("2026-11-23T08:10:00Z"))
            a = try await c.call(.get, "/v1/delivered?device=d1")
            let delivered = a.json?.objectValue?["delivered"]?.arrayValue ?? []
            #expect(delivered.contains { $0.objectValue?["event"] == .string("enter") })
            #expect(delivered.contains { $0.objectValue?["identifier"] == .string("tick") })
            // Responses: "cancel" removes the repeating reminder.
            a = try await c.call(.post, "/v1/responses", body: #"{"identifier":"tick","action":"cancel"}"#)
            #expect(a.json?.objectValue?["applied"] == .bool(true))
            #expect(try await c.call(.get, "/v1/requests/tick").status == 404)
            // Delivered removal, request removal.
            #expect(try await c.call(.delete, "/v1/delivered/tick").status == 204)
            #expect(try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue?.contains { $0.objectValue?["identifier"] == .string("tick") } == false)
            #expect(try await c.call(.delete, "/v1/delivered").status == 204)
            #expect(try await c.call(.delete, "/v1/requests/home").status == 204)
            #expect(try await c.call(.delete, "/v1/requests/home").status == 404)
            // Stats, metrics, the OpenAPI document, dead letters.
            a = try await c.call(.get, "/v1/stats")
            #expect(a.json?.objectValue?["fixes"] == .number(8))
            a = try await c.call(.get, "/metrics", token: nil)
            #expect(a.body.contains("triggerkit_fixes_total"))
            #expect(try await c.call(.get, "/openapi.json", token: nil).json?.objectValue?["openapi"] != nil)
            #expect(try await c.call(.get, "/v1/webhooks/dead").json?.objectValue?["dead"] == .array([]))
        }
    }

    /// `GET /v1/requests` is rendered and sent a part at a time (``listingPartBytes``): over
    /// several parts the answer is still one JSON object, every request in the order added,
    /// the same bytes as the whole list written through its JSON tree; with a device, only
    /// that device's requests.
    @Test func aListingOfManyPartsIsTheWholeListInOrder() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, state async throws in
            let count = 3 * listingPartBytes / 250
            var added: [String] = []
            for start in stride(from: 0, to: count, by: 1000) {
                let ids = (start..<min(count, start + 1000)).map { "r\($0)" }
                added += ids
                let body = "[" + ids.enumerated().map { k, id in Sample.circle(id, lat: 40 + Double(k) * 1e-4, device: k % 3 == 0 ? "d1" : "d2") }
                    .joined(separator: ",") + "]"
                #expect(try await c.call(.post, "/v1/requests", body: body).status == 200)
            }
            let listed = try await c.call(.get, "/v1/requests")
            #expect(listed.status == 200)
            #expect(listed.body.utf8.count > 2 * listingPartBytes)
            let ids = listed.json?.objectValue?["requests"]?.arrayValue?.compactMap { $0.objectValue?["identifier"]?.stringValue }
            #expect(ids?.count == added.count)
            #expect(ids == added, "the identifiers listed are not those added, in order")
            let tenant = try #require(state.tenants.first)
            let whole = await tenant.withCenter { c in
                var w = JSONWriter()
                w.value(.object(["requests": .array(c.pendingRequests().map(\.json))]))
                return String(decoding: w.bytes, as: UTF8.self)
            }
            #expect(listed.body == whole)
            let d1 = try await c.call(.get, "/v1/requests?device=d1")
            let d1ids = d1.json?.objectValue?["requests"]?.arrayValue?.compactMap { $0.objectValue?["identifier"]?.stringValue }
            let expected = added.enumerated().filter { ($0.offset % 1000) % 3 == 0 }.map(\.element)
            #expect(d1ids?.count == expected.count)
            #expect(d1ids == expected, "device d1's listing is not its requests, in order")
        }
    }

    @Test func aTokenNeverSeesOrChangesAnotherTenantsData() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, state in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("secret-place", device: "d1")).status == 201)
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(count: 4)).status == 200)
            let b = Serve.tokenB
            #expect(try await c.call(.get, "/v1/requests", token: b).json?.objectValue?["requests"] == .array([]))
            #expect(try await c.call(.get, "/v1/requests/secret-place", token: b).status == 404)
            #expect(try await c.call(.delete, "/v1/requests/secret-place", token: b).status == 404)
            #expect(try await c.call(.get, "/v1/delivered", token: b).json?.objectValue?["delivered"] == .array([]))
            #expect(try await c.call(.delete, "/v1/delivered", token: b).status == 204)
            #expect(sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false", token: b).body).isEmpty)
            #expect(!sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body).isEmpty)
            // Tenant A still has everything.
            #expect(try await c.call(.get, "/v1/requests/secret-place").status == 200)
            #expect(try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue?.isEmpty == false)
            // Separate stores.
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            let bolt = try #require(state.tenants.first { $0.id == "bolt" })
            #expect(try acme.store.lastEventSeq() > 0)
            #expect(try bolt.store.lastEventSeq() == 0)
        }
    }

    /// One-shots that fired no longer count toward the request limit (they locked a tenant
    /// out, found by a helper); a fired one is gone from the API as from the listing, and a
    /// restart keeps it so.
    @Test func firedOneShotsFreeTheirPlaceUnderTheLimit() async throws {
        var limits = TenantLimits()
        limits.maxRequests = 3
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        // Added at the tenant's clock (no addedAt): "fresh", added at 08:05, fires at 08:05:30.
        let once: @Sendable (String) -> String = { id in
            #"{"identifier":"\#(id)","content":{"title":"t"},"trigger":{"type":"timeInterval","timeInterval":30}}"#
        }
        try await serve.run { c, _ in
            for i in 1...3 {
                let added = try await c.call(.post, "/v1/requests", body: once("once\(i)"))
                #expect(added.status == 201)
            }
            #expect(try await c.call(.post, "/v1/requests", body: once("early")).status == 429)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:05:00Z"}"#).status == 200)
            #expect(try await c.call(.get, "/v1/requests/once1").status == 404)
            #expect(try await c.call(.post, "/v1/requests", body: once("fresh")).status == 201)
        }
        try await serve.run { c, _ in
            let listed = try await c.call(.get, "/v1/requests").json?.objectValue?["requests"]?.arrayValue
            #expect(listed?.compactMap { $0.objectValue?["identifier"]?.stringValue } == ["fresh"])
            #expect(try await c.call(.post, "/v1/requests", body: once("two")).status == 201)
        }
    }

    @Test func badBodiesGetAClear4xxAndChangeNothing() async throws {
        var limits = TenantLimits()
        limits.maxBodyBytes = 4096
        limits.maxRequests = 2
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        try await serve.run { c, state in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("one", 60)).status == 201)
            let cases: [(String, [UInt8], Int, String, String?)] = [
                ("/v1/requests", Array("{not json".utf8), 400, "invalidJSON", nil),
                ("/v1/requests", [0x7B, 0xFF, 0xFE, 0x7D], 400, "invalidJSON", nil),
                ("/v1/requests", Array(#"{"identifier":7,"content":{"title":"x"},"trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#.utf8), 422, "invalidRequest", "identifier"),
                ("/v1/requests", Array(#"{"identifier":"x","content":{"title":"x"},"trigger":{"type":"timeInterval","timeInterval":10,"repeats":true}}"#.utf8), 422, "invalidTrigger", "trigger.timeInterval"),
                ("/v1/categories", Array(#"{"identifier":"x"}"#.utf8), 422, "invalidCategories", nil),
                ("/v1/responses", Array(#"{"identifier":3}"#.utf8), 422, "invalidResponse", nil),
                ("/v1/clock", Array(#"{"t":"yesterday"}"#.utf8), 422, "invalidClock", nil),
            ]
            for (path, body, status, code, field) in cases {
                let method: HTTPRequest.Method = path == "/v1/categories" ? .put : .post
                let a = try await c.call(method, path, bytes: body)
                #expect(a.status == status, "\(path) \(String(decoding: body.prefix(40), as: UTF8.self))")
                #expect(a.errorCode == code, "\(path): \(a.body)")
                // A request's refusal names its field (`error.field`); the others name none.
                let named = a.json?.objectValue?["error"]?.objectValue?["field"]
                #expect(named == field.map(JSONValue.string), "\(path): \(a.body)")
            }
            // A byte order mark opening a JSON body is skipped, as a requests file's is (the
            // same bytes from a file were refused as invalid JSON; a helper's find).
            let marked = [0xEF, 0xBB, 0xBF] + Array(#"{"identifier":"bom","content":{"title":"x"},"trigger":{"type":"timeInterval","timeInterval":7200}}"#.utf8)
            #expect(try await c.call(.post, "/v1/requests", bytes: marked).status == 201)
            #expect(try await c.call(.delete, "/v1/requests/bom").status == 204)
            // A body past the limit: 413, and the connection closed (the rest is not read), so
            // on a connection of its own (the test client would reuse this one).
            let port = try #require(c.port)
            let fd = try ServeStopTests.stalledRequest(port: port, ServeUploadTests.post("/v1/requests", length: 5000) + String(repeating: " ", count: 5000))
            defer { close(fd) }
            let large = try #require(await ServeUploadTests.answer(fd))
            #expect(large.status == 413 && large.body.contains("payloadTooLarge") && large.head.contains("connection: close"), "\(large)")
            // The request limit: 429 for a new identifier, a replacement still works.
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("two", 60)).status == 201)
            let full = try await c.call(.post, "/v1/requests", body: Sample.every("three", 60))
            #expect(full.status == 429)
            #expect(full.errorCode == "tooManyRequests")
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("two", 120)).status == 200)
            // Fixes: per-line errors, the good lines are applied.
            let lines = Sample.fixes(count: 2) + "{\"device\":\"d1\",\"t\":\"2026-11-23T08:05:00Z\",\"lat\":91,\"lon\":0}\nnot json\n"
            let a = try await c.call(.post, "/v1/fixes", body: lines)
            #expect(a.json?.objectValue?["accepted"] == .number(2))
            #expect(a.json?.objectValue?["errors"]?.arrayValue?.compactMap { $0.objectValue?["line"]?.numberValue } == [3, 4])
            let bad = try await c.call(.post, "/v1/fixes", bytes: [0xFF, 0x0A])
            #expect(bad.status == 400)
            // A BOM opening the body is skipped, as `run` skips one (its first line was refused).
            let bom = try await c.call(.post, "/v1/fixes", bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"t":"2026-11-23T08:06:00Z"}"#.utf8) + [0x0A])
            #expect(bom.status == 200, "\(bom.body)")
            #expect(bom.json?.objectValue?["accepted"] == .number(1), "\(bom.body)")
            // Nothing else changed: two requests, the one settings default, no categories.
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            #expect(await acme.withCenter { $0.requestCount } == 2)
            #expect(await acme.withCenter { $0.notificationCategories() }.isEmpty)
            #expect(await acme.withCenter { $0.statistics }.fixes == 2)
        }
    }

    /// A batch's answer lists the first 1,000 errors and stale lines by line, and counts the
    /// rest (2.8 million bad lines within the body limit were answered with 178 MB: a
    /// helper's find).
    @Test func aFixBatchAnswerListsAThousandOfEachAndCountsTheRest() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            #expect(try await c.call(.post, "/v1/fixes", body: #"{"device":"d1","t":"2026-11-23T08:00:10Z","lat":40,"lon":-74}"#).status == 200)
            let bad = String(repeating: "{}\n", count: 1_500)
                + String(repeating: #"{"device":"d1","t":"2026-11-23T08:00:00Z","lat":40,"lon":-74}"# + "\n", count: 1_200)
            let a = try await c.call(.post, "/v1/fixes", body: bad)
            let o = try #require(a.json?.objectValue, "\(a.body.prefix(200))")
            #expect(o["rejected"] == .number(1_500) && o["errorsOmitted"] == .number(500))
            #expect(o["errors"]?.arrayValue?.count == 1_000)
            #expect(o["errors"]?.arrayValue?.last?.objectValue?["line"] == .number(1_000))
            #expect(o["accepted"] == .number(1_200) && o["stale"]?.arrayValue?.count == 1_000 && o["staleOmitted"] == .number(200))
            #expect(o["stale"]?.arrayValue?.first == .number(1_501))
            // A small batch's answer is as it was: no counts of omitted lines.
            let small = try await c.call(.post, "/v1/fixes", body: "{}\n")
            #expect(small.json?.objectValue?["errorsOmitted"] == nil && small.json?.objectValue?["errors"]?.arrayValue?.count == 1)
        }
    }

    /// The lines refused as written and the ones the center refused are listed together by
    /// line, the first 1,000 of both; only those are kept as they are read (every refused line
    /// was kept as JSON before the cut: an 8 MiB body of bad lines peaked at 2 GB, a helper's
    /// find; `Benchmarks/RESULTS.md`, thirty-seventh pass).
    @Test func aFixBatchListsBothKindsOfRefusalByLine() async throws {
        var limits = TenantLimits()
        limits.maxDevices = 1
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        try await serve.run { c, _ in
            // Line 1 takes the tenant's one device; then a bad line and a new device's fix
            // (refused by the center: `tooManyDevices`) in turn, 1,200 of each.
            var body = #"{"device":"d1","t":"2026-11-23T08:00:00Z","lat":40,"lon":-74}"# + "\n"
            for k in 0..<1_200 {
                body += "{}\n" + #"{"device":"n\#(k)","t":"2026-11-23T08:00:01Z","lat":40,"lon":-74}"# + "\n"
            }
            let a = try await c.call(.post, "/v1/fixes", body: body)
            let o = try #require(a.json?.objectValue, "\(a.body.prefix(200))")
            #expect(a.status == 200 && o["accepted"] == .number(1))
            #expect(o["rejected"] == .number(2_400) && o["errorsOmitted"] == .number(1_400))
            let listed = try #require(o["errors"]?.arrayValue)
            #expect(listed.compactMap { $0.objectValue?["line"]?.numberValue } == (2...1_001).map(Double.init))
            #expect(listed.prefix(4).compactMap { $0.objectValue?["code"]?.stringValue }
                        == ["invalidLine", "tooManyDevices", "invalidLine", "tooManyDevices"])
        }
    }

    @Test func sseResumesFromLastEventID() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:10:00Z"}"#).status == 200)
            let first = sseEvents(try await c.call(.get, "/v1/events?limit=4").body)
            #expect(first.map(\.id) == [1, 2, 3, 4])
            let resumed = sseEvents(try await c.call(.get, "/v1/events?limit=3", headers: [("Last-Event-ID", "4")]).body)
            #expect(resumed.map(\.id) == [5, 6, 7])
            #expect(resumed.first?.data.contains("\"date\":\"2026-11-23T08:05:00Z\"") == true)
            // Every event has its eventId; the outbox never repeats one.
            let all = sseEvents(try await c.call(.get, "/v1/events?limit=10&after=0").body)
            #expect(all.count == 10)
            #expect(Set(all.map { $0.data }).count == 10)
            #expect(try await c.call(.get, "/v1/events", headers: [("Last-Event-ID", "x")]).status == 400)
        }
    }

    @Test func aRestartedServerResumesWhereItStopped() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let added = try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60))
            #expect(added.status == 201)
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("home", device: "d1")).status == 201)
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(count: 6)).status == 200)
        }
        // Restart on the same data directory (no snapshot was due: the journal is replayed).
        try await serve.run { c, _ in
            #expect(try await c.call(.get, "/v1/requests").json?.objectValue?["requests"]?.arrayValue?.count == 2)
            let before = sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body)
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(from: 3, count: 6)).status == 200)
            let after = sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body)
            // Nothing delivered twice; numbering continues.
            #expect(Set(after.map(\.data)).count == after.count)
            #expect(after.count > before.count)
            #expect(Array(after.prefix(before.count)).map(\.id) == before.map(\.id))
        }
    }

    @Test func aStreamClockResumesAtTheDataTimeNotTheWallClock() async throws {
        var serve = Serve()
        serve.configuration.start = Timestamp.date(millis: Timestamp.parseMillis("2020-01-01T00:00:00Z")!)
        defer { serve.remove() }
        try await serve.run { c, _ in
            let moved = try await c.call(.post, "/v1/clock", body: #"{"t":"2020-06-01T00:00:00Z"}"#)
            #expect(moved.json?.objectValue?["now"] == .string("2020-06-01T00:00:00Z"))
        }
        // Restarted without a start date (from its snapshot): the 2020 replay goes on in 2020.
        serve.configuration.start = nil
        try await serve.run { c, _ in
            let stats = try await c.call(.get, "/v1/stats")
            #expect(stats.json?.objectValue?["clock"] == .string("2020-06-01T00:00:00Z"))
        }
    }

    @Test func anArrayOfRequestsIsAddedInOneStepEachWithItsResult() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, state in
            let body = "[" + [Sample.every("a", 60), #"{"identifier":"bad","content":{"title":"x"},"trigger":{"type":"timeInterval","timeInterval":5,"repeats":true}}"#,
                              #"{"identifier":3}"#, Sample.circle("b", device: "d1")].joined(separator: ",") + "]"
            let a = try await c.call(.post, "/v1/requests", body: body)
            #expect(a.status == 200)
            #expect(a.json?.objectValue?["accepted"] == .number(2))
            let results = a.json?.objectValue?["results"]?.arrayValue ?? []
            // Each item with the status a single add answers: 201 new, 200 replaced (all were
            // 200; found by a helper).
            #expect(results.map { $0.objectValue?["status"]?.numberValue ?? 0 } == [201, 422, 422, 201])
            #expect(results[1].objectValue?["error"]?.objectValue?["code"] == .string("invalidTrigger"))
            // Each refusal names its field for a program (`error.field`), where it names one.
            #expect(results[1].objectValue?["error"]?.objectValue?["field"] == .string("trigger.timeInterval"))
            #expect(results[2].objectValue?["error"]?.objectValue?["field"] == .string("identifier"))
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            #expect(await acme.withCenter { $0.requestCount } == 2)
            #expect(results.map { $0.objectValue?["replaced"] } == [.bool(false), nil, nil, .bool(false)])
            // Each accepted item says whether it replaced a held request or an earlier item of
            // its batch (it did not say; a single add does).
            let again = "[" + [Sample.every("a", 120), Sample.every("c", 60), Sample.every("c", 90)].joined(separator: ",") + "]"
            let b = try await c.call(.post, "/v1/requests", body: again)
            #expect(b.json?.objectValue?["results"]?.arrayValue?.map { $0.objectValue?["replaced"] } == [.bool(true), .bool(false), .bool(true)], "\(b.body)")
            #expect(b.json?.objectValue?["results"]?.arrayValue?.map { $0.objectValue?["status"]?.numberValue ?? 0 } == [200, 201, 200])
            // The reader's warnings too, as a single add answers them (the batch dropped them).
            let odd = #"[{"identifier":"w","content":{"title":"x","colour":"red"},"trigger":{"type":"timeInterval","timeInterval":60}}]"#
            let w = try await c.call(.post, "/v1/requests", body: odd)
            #expect(w.json?.objectValue?["results"]?.arrayValue?.first?.objectValue?["warnings"]
                    == .array([.string(#"unknown field "content.colour" ignored"#)]), "\(w.body)")
        }
    }

    @Test func staleFixesAreReportedByLine() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            #expect(try await c.call(.post, "/v1/fixes", body: #"{"device":"d1","t":"2026-11-23T08:10:00Z","lat":40.7,"lon":-74}"#).status == 200)
            // Line 2 is older than d1's latest: accepted, changed nothing, reported.
            let lines = #"{"device":"d2","t":"2026-11-23T08:01:00Z","lat":40.7,"lon":-74}"# + "\n" + #"{"device":"d1","t":"2026-11-23T08:05:00Z","lat":40.7,"lon":-74}"#
            let a = try await c.call(.post, "/v1/fixes", body: lines)
            #expect(a.json?.objectValue?["accepted"] == .number(2))
            #expect(a.json?.objectValue?["stale"] == .array([.number(2)]))
            #expect(try await c.call(.get, "/v1/stats").json?.objectValue?["staleFixes"] == .number(1))
        }
    }

    /// `rejectedFixes` counts every fix refused, however: a malformed line, a value the
    /// center refuses, one past the tenant's device limit or its clock-jump bound (it counted
    /// only the center's refusals, while the `triggerkit_fixes_total` metric counted them
    /// all). Kept across a restart (the center's counters are saved).
    static func fix(_ d: String, _ t: String, lat: String = "40.7") -> String { #"{"device":"\#(d)","t":"\#(t)","lat":\#(lat),"lon":-74}"# + "\n" }

    @Test func everyRefusedFixIsCountedInStats() async throws {
        var limits = TenantLimits()
        limits.maxDevices = 1
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        let body = Self.fix("d1", "2026-11-23T08:00:00Z") + "{not json\n" + Self.fix("d1", "2026-11-23T08:00:01Z", lat: "91")
            + Self.fix("d2", "2026-11-23T08:00:02Z") + Self.fix("d1", "2030-01-01T00:00:00Z")
        try await serve.run { c, _ in
            let a = try await c.call(.post, "/v1/fixes", body: body)
            #expect(a.json?.objectValue?["accepted"] == .number(1), "\(a.body)")
            #expect(a.json?.objectValue?["rejected"] == .number(4), "\(a.body)")
            #expect(try await c.call(.get, "/v1/stats").json?.objectValue?["rejectedFixes"] == .number(4))
        }
        try await serve.run { c, _ async throws in
            #expect(try await c.call(.get, "/v1/stats").json?.objectValue?["rejectedFixes"] == .number(4))
        }
    }

    @Test func onTheWallClockTimeTriggersFireWithoutAnyFix() async throws {
        var serve = Serve(clock: .wall)
        serve.configuration.start = nil
        defer { serve.remove() }
        try await serve.run { c, _ in
            // Added 59.5 s ago, every 60 s: due half a second from now.
            let added = Timestamp.string(millis: Timestamp.millis(Date()) - 59_500)
            let r = #"{"identifier":"tick","content":{"title":"t"},"addedAt":"\#(added)","trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#
            #expect(try await c.call(.post, "/v1/requests", body: r).status == 201)
            // Stream-clock-only routes refuse.
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2030-01-01T00:00:00Z"}"#).status == 409)
            var delivered: [JSONValue] = []
            for _ in 0..<100 where delivered.isEmpty {  // at most 5 s
                try await Task.sleep(for: .milliseconds(50))
                delivered = try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue ?? []
            }
            #expect(delivered.count == 1)
            #expect(sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body).count == 1)
        }
    }
}
