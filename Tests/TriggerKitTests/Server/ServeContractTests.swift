import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// Issue 10: the OpenAPI document against the routes, webhooks against a receiver that fails
/// then succeeds, and `serve --clock stream` against `run`'s engine on the same input.
@Suite("serve: OpenAPI, webhooks, equivalence with run")
struct ServeContractTests {
    @Test func theOpenAPIDocumentDescribesEveryRouteAndDocsHoldTheSameText() throws {
        let doc = try #require(try JSONValue.parse(OpenAPIDocument.json).objectValue)
        let paths = try #require(doc["paths"]?.objectValue)
        let state = ServerState(tenantsByTokenHash: [:], tenants: [], metrics: ServerMetrics())
        let routes = buildRouter(server: state).routes
        #expect(routes.count >= 20)
        for r in routes {
            // Hummingbird's ":id" is OpenAPI's "{id}".
            let path = "\(r.path)".split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            let p = path.hasPrefix("/") ? path : "/" + path
            #expect(paths[p]?.objectValue?[r.method.rawValue.lowercased()] != nil, "\(r.method) \(p) is not in the OpenAPI document")
        }
        // And nothing in the document that is not served.
        let served = Set(routes.map { r in
            "\(r.method.rawValue.lowercased()) /" + "\(r.path)".split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
        })
        for (p, v) in paths {
            for m in v.objectValue?.keys ?? [:].keys { #expect(served.contains("\(m) \(p)"), "\(m) \(p) is documented but not served") }
        }
        // Every operation named once, so that clients can be generated and links resolve.
        var operationIds: [String] = []
        for (_, v) in paths {
            for (_, op) in v.objectValue ?? [:] { operationIds.append(op.objectValue?["operationId"]?.stringValue ?? "") }
        }
        #expect(!operationIds.contains(""), "an operation without operationId")
        #expect(Set(operationIds).count == operationIds.count, "operationIds repeat: \(operationIds.sorted())")
        let added = try #require(paths["/v1/requests"]?.objectValue?["post"]?.objectValue?["responses"]?.objectValue?["201"]?.objectValue)
        let links = try #require(added["links"]?.objectValue)
        #expect(links.count == 3)
        for (name, link) in links {
            #expect(operationIds.contains(link.objectValue?["operationId"]?.stringValue ?? ""), "link \(name) names no operation")
        }
        // The settings schema is what the engine reads: its fields (those it writes back), the
        // one required, and nothing else.
        let settings = try #require(doc["components"]?.objectValue?["schemas"]?.objectValue?["Settings"]?.objectValue)
        let written = try #require(NotificationSettings(authorizationStatus: .authorized).json.objectValue)
        #expect(Set(settings["properties"]?.objectValue?.keys.map { $0 } ?? []) == Set(written.keys))
        #expect(settings["required"]?.arrayValue?.compactMap(\.stringValue) == ["authorizationStatus"])
        #expect(settings["additionalProperties"] == .bool(false))
        let link = Fixture.root.deletingLastPathComponent().appendingPathComponent("docs/openapi.json")
        // A link, not a copy: an edit made in place (`sed -i`) replaced it with a copy once,
        // which the next change to the document would leave behind (a reviewer's find).
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "../Sources/TriggerKitServer/openapi.json")
        let docs = try String(contentsOf: link, encoding: .utf8)
        #expect(docs.trimmingCharacters(in: .whitespacesAndNewlines) == OpenAPIDocument.json.trimmingCharacters(in: .whitespacesAndNewlines),
                "docs/openapi.json must stay a link to Sources/TriggerKitServer/openapi.json")
    }

    /// A receiver that answers 500 to its first `failures` POSTs, then 204; it records what it
    /// accepted and checks each signature.
    final class Receiver: Sendable {
        let failures: Int
        let secret: String
        let state = Mutex<(calls: Int, accepted: [String], badSignatures: Int)>((0, [], 0))
        init(failures: Int, secret: String) {
            self.failures = failures
            self.secret = secret
        }

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.post("hook") { request, _ -> HTTPResponse.Status in
                let body = try await request.body.collect(upTo: 1 << 20)
                let data = Data(buffer: body)
                let signature = request.headers[HTTPField.Name("X-TriggerKit-Signature")!] ?? ""
                let good = signature == "sha256=" + WebhookDispatcher.signature(body: data, secret: self.secret)
                let call = self.state.withLock { s -> Int in
                    s.calls += 1
                    if !good { s.badSignatures += 1 }
                    return s.calls
                }
                if call <= self.failures { return .internalServerError }
                let events = (try? JSONValue.parse(String(decoding: data, as: UTF8.self)))?.objectValue?["events"]?.arrayValue ?? []
                self.state.withLock { s in s.accepted += events.compactMap { $0.objectValue?["eventId"]?.stringValue } }
                return .noContent
            }
            return router
        }
    }

    @Test func webhooksRetryUntilTheReceiverSucceedsThenDeadLetter() async throws {
        let receiver = Receiver(failures: 2, secret: "s3cret")
        try await Self.withWebhook(to: receiver, baseDelay: 0.02, attempts: 5) { c in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:05:00Z"}"#).status == 200)
            let events = sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body)
            #expect(events.count == 5)
            // Bounded wait: the dispatcher retries with 20, 40 ms... then delivers.
            for _ in 0..<200 where receiver.state.withLock({ $0.accepted.count }) < 5 {
                try await Task.sleep(for: .milliseconds(25))
            }
            let s = receiver.state.withLock { $0 }
            #expect(s.calls >= 3)
            #expect(s.badSignatures == 0)
            let ids = events.compactMap { (try? JSONValue.parse($0.data))?.objectValue?["eventId"]?.stringValue }
            #expect(Set(s.accepted) == Set(ids))
            #expect(try await c.call(.get, "/v1/webhooks/dead").json?.objectValue?["dead"] == .array([]))
        }
        // A receiver that never succeeds: the batch is dead-lettered after the last attempt.
        let never = Receiver(failures: .max, secret: "s3cret")
        try await Self.withWebhook(to: never, baseDelay: 0.01, attempts: 3) { c in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:02:00Z"}"#).status == 200)
            let dead = try await c.deadLetters()
            #expect(dead.first?.objectValue?["attempts"] == .number(3))
            #expect(dead.first?.objectValue?["reason"] == .string("status 500"))
            #expect(never.state.withLock { $0.calls } == 3)
        }
    }

    /// A server whose tenant "acme" has one webhook to `receiver` (a live app on its own
    /// port), retrying after `baseDelay` doubling, `attempts` times.
    static func withWebhook(to receiver: Receiver, baseDelay: Double, attempts: Int,
                            _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let hookApp = Application(router: receiver.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await hookApp.test(.live) { hook in
            let port = try #require(hook.port)
            let serve = Serve(webhooks: [WebhookConfiguration(url: "http://127.0.0.1:\(port)/hook", secret: receiver.secret)])
            defer { serve.remove() }
            var tuning = TriggerKitServer.Tuning()
            tuning.webhookBaseDelay = baseDelay
            tuning.webhookMaxAttempts = attempts
            try await serve.run(tuning: tuning) { c, _ in try await body(c) }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func streamClockGivesTheSameEventsAsRun(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        var requests: [String] = []
        for i in 0..<12 {
            let lat = 40.7 + Double(Int.random(in: 0..<4, using: &rng)) * 0.001
            switch i % 3 {
            case 0: requests.append(Sample.circle("c\(i)", lat: lat, radius: Double(Int.random(in: 60...200, using: &rng)),
                                                  device: Bool.random(using: &rng) ? "d\(i % 3)" : nil))
            case 1: requests.append(Sample.every("t\(i)", [60, 90, 300].randomElement(using: &rng)!))
            default:
                requests.append(#"{"identifier":"cal\#(i)","content":{"title":"c"},"addedAt":"\#(Serve.t0)","trigger":{"type":"calendar","dateMatching":{"second":\#([0, 15, 30].randomElement(using: &rng)!)},"repeats":true}}"#)
            }
        }
        var lines: [String] = []
        var t = Timestamp.parseMillis(Serve.t0)! + 1000
        for _ in 0..<300 {
            t += Int64(Int.random(in: 1...40, using: &rng)) * 1000
            let lat = 40.7 + Double(Int.random(in: 0..<6, using: &rng)) * 0.0007
            lines.append(#"{"device":"d\#(Int.random(in: 0..<3, using: &rng))","t":"\#(Timestamp.string(millis: t))","lat":\#(lat),"lon":-74}"#)
        }
        // `run`'s engine on the same input, rendered as `run` renders.
        let expected = try runReference(requests: requests, lines: lines)
        #expect(expected.count > 50)
        let serve = Serve()
        defer { serve.remove() }
        let requestsSent = requests, linesSent = lines, wanted = expected
        try await serve.run { c, _ in
            for r in requestsSent { #expect(try await c.call(.post, "/v1/requests", body: r).status == 201) }
            // In batches of 50 lines, as a client would post them.
            var i = 0
            while i < linesSent.count {
                let batch = linesSent[i..<min(linesSent.count, i + 50)].joined(separator: "\n")
                #expect(try await c.call(.post, "/v1/fixes", body: batch).json?.objectValue?["rejected"] == .number(0))
                i += 50
            }
            let got = sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body).map(\.data)
            #expect(got.sorted() == wanted.sorted())
        }
    }

    /// The one documented difference from `run`: a device inside, outside, inside and outside
    /// again at one `t` exits twice with one `eventId`; `run` writes both, `serve` delivers
    /// the id once, whether the fixes come in one batch or one per batch (a helper found the
    /// docs claimed the same events; the outbox is keyed by `eventId`).
    @Test(arguments: [false, true])
    func aRepeatedEventIdIsDeliveredOnce(onePerBatch: Bool) async throws {
        let t = "2026-11-23T08:05:00Z"
        let lines = [40.7, 40.71, 40.7, 40.71].map { #"{"device":"d1","t":"\#(t)","lat":\#($0),"lon":-74}"# }
        let requests = [Sample.circle("home")]
        let written = try runReference(requests: requests, lines: lines)
        #expect(written.count == 3 && written[0] == written[2], "\(written)")
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            #expect(try await c.call(.post, "/v1/requests", body: requests[0]).status == 201)
            for batch in onePerBatch ? lines : [lines.joined(separator: "\n")] {
                #expect(try await c.call(.post, "/v1/fixes", body: batch).json?.objectValue?["rejected"] == .number(0))
            }
            let got = sseEvents(try await c.call(.get, "/v1/events?after=0&follow=false").body).map(\.data)
            #expect(got == Array(written.prefix(2)))
        }
    }
}

@Suite("serve: configuration")
struct ServeConfigurationTests {
    /// `start` is read as `--start` reads a date: proleptic Gregorian (Foundation's ISO 8601
    /// decoding used the Julian calendar before 1582-10-15: "1582-10-10" started the clock on
    /// the 20th, "0001-01-01T00:00:00Z" was refused as outside years 1-9999), or seconds since
    /// 1970; and written back the same way.
    @Test(arguments: [(#""1582-10-10T00:00:00Z""#, Int64(-12_219_724_800_000)), (#""0001-01-01T00:00:00Z""#, -62_135_596_800_000),
                      (#""2026-11-23T09:00:00+01:00""#, 1_795_420_800_000), ("1795910400", 1_795_910_400_000),
                      (#""1795910400""#, 1_795_910_400_000), ("1795910400.0004", 1_795_910_400_000)])
    func startIsReadAsEveryOtherDate(_ start: String, _ millis: Int64) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("serve-start-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"clock": "stream", "start": \#(start), "tenants": [{"id": "acme", "tokenHashes": ["\#(tokenHash("t"))"]}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let c = try ServerConfiguration.load(path: path)
        #expect(c.start.map(Timestamp.millis) == millis)
        try c.validate()
        let written = try JSONEncoder().encode(c)
        #expect(try JSONDecoder().decode(ServerConfiguration.self, from: written).start == c.start)
        try #"{"start": "1582-13-10T00:00:00Z", "tenants": []}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let bad = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: path) }
        #expect(bad?.description.contains(#""start": "1582-13-10T00:00:00Z" is not an ISO 8601 date"#) == true, "\(String(describing: bad))")
    }

    @Test func aConfigFileIsReadAndEveryBadValueIsNamed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("serve-config-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good = #"{"port": 0, "adminPort": 9090, "clock": "stream", "start": "2026-11-23T08:00:00Z", "tenants": [{"id": "acme", "tokenHashes": ["\#(tokenHash("t"))"], "limits": {"maxRequests": 5}, "webhooks": [{"url": "http://127.0.0.1:9/hook", "secret": "s"}]}], "margin": 20, "timeZone": "America/New_York"}"#
        try good.write(toFile: path, atomically: true, encoding: .utf8)
        let c = try ServerConfiguration.load(path: path)
        #expect(c.clock == .stream)
        #expect(c.adminPort == 9090)
        #expect(c.tenants.first?.limits?.maxRequests == 5)
        #expect(c.tenants.first?.limits?.maxBodyBytes == TenantLimits().maxBodyBytes)
        #expect(c.margin == 20)
        #expect(c.floatingTimeZone?.identifier == "America/New_York")
        #expect(c.centerConfiguration.floatingTimeZone.identifier == "America/New_York")
        // The tenants bound their devices themselves (up to 100,000,000): their centers' own bound
        // is only the ceiling, never the center's default million.
        #expect(c.centerConfiguration.maxDevices == 100_000_000)
        // A name given twice is refused (`JSONDecoder` alone reads the last one).
        try #"{"port": 0, "port": 8080, "tenants": []}"#.write(toFile: path + ".twice", atomically: true, encoding: .utf8)
        let twice = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: path + ".twice") }
        #expect(twice?.description.contains(#"member name "port" appears twice"#) == true)
        try? FileManager.default.removeItem(atPath: path + ".twice")
        // IANA names only (Foundation reads `UTC+3` east, `--time-zone` reads it west).
        for name in ["Mars/Olympus", "UTC+3", "GMT-5", "BST", "IST"] {
            try "{\"timeZone\": \"\(name)\", \"tenants\": []}".write(toFile: path + ".bad", atomically: true, encoding: .utf8)
            let e = #expect(throws: ConfigurationError.self, "\(name)") { try ServerConfiguration.load(path: path + ".bad") }
            let said = name.count == 3 ? "\"\(name)\" is not an IANA time zone name" : "unknown time zone"
            #expect(e?.description.contains("\"timeZone\": \(said)") == true, "\(String(describing: e))")
        }
        // The zone database's names that Foundation's list leaves out (a helper: refused), where
        // the database is installed.
        for name in ["UTC", "Etc/UTC", "Zulu", "Asia/Kolkata"] where FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + name) {
            try "{\"timeZone\": \"\(name)\", \"tenants\": []}".write(toFile: path + ".alias", atomically: true, encoding: .utf8)
            let loaded = try ServerConfiguration.load(path: path + ".alias")
            #expect(loaded.floatingTimeZone != nil, "\(name)")
        }
        try? FileManager.default.removeItem(atPath: path + ".alias")
        // An unknown name anywhere, and a value of the wrong type, are named by their field: a
        // misspelt name was ignored silently, and a fraction was "not valid JSON" (found by a
        // helper).
        for (text, message) in [(#"{"snapshotEvry": 5}"#, #"unknown field "snapshotEvry""#),
                                (#"{"tenants": [{"id": "a", "tokenHashes": [], "limits": {"maxBodyByte": 1}}]}"#,
                                 #"unknown field "tenants[0].limits.maxBodyByte""#),
                                (#"{"tenants": [{"id": "a", "tokenHashes": [], "webhooks": [{"url": "u", "secret": "s", "x": 1}]}]}"#,
                                 #"unknown field "tenants[0].webhooks[0].x""#),
                                (#"{"deliveredLimitPerDevice": 1.5}"#, #""deliveredLimitPerDevice" must be a whole number, not 1.5"#),
                                (#"{"port": "x"}"#, #""port" must be a whole number"#),
                                (#"{"clock": "sundial"}"#, #""clock" must be "wall" or "stream", not "sundial""#),
                                (#"{"tenants": [{"tokenHashes": []}]}"#, #""tenants[0]": "id" is required"#)] {
            try text.write(toFile: path + ".bad", atomically: true, encoding: .utf8)
            let e = #expect(throws: ConfigurationError.self, "\(text)") { try ServerConfiguration.load(path: path + ".bad") }
            #expect(e?.description == "\(path).bad: " + message || e?.description.hasPrefix("\(path).bad: " + message) == true,
                    "\(String(describing: e))")
        }
        try? FileManager.default.removeItem(atPath: path + ".bad")
        try c.validate()
        let bad: [(String, (inout ServerConfiguration) -> Void)] = [
            ("port", { $0.port = 70_000 }),
            ("adminPort must be in", { $0.adminPort = -1 }),
            ("adminPort must differ", { $0.port = 9000; $0.adminPort = 9000 }),
            ("no tenants", { $0.tenants = [] }),
            ("tenant id", { $0.tenants[0].id = "a b" }),
            ("token hash", { $0.tenants[0].tokenHashes = ["xyz"] }),
            ("webhook url", { $0.tenants[0].webhooks = [WebhookConfiguration(url: "ftp://x", secret: "s")] }),
            ("limits.maxBodyBytes", { $0.limits.maxBodyBytes = 0 }),
            ("maxRequests", { $0.tenants[0].limits?.maxRequests = -1 }),
            ("margin", { $0.margin = .nan }),
            ("snapshotEvery", { $0.snapshotEvery = 0 }),
            ("snapshotEvery", { $0.snapshotEvery = .max }),
            ("dwell", { $0.dwell = 1e300 }),
            ("maxAccuracy", { $0.maxAccuracy = -.infinity }),
            ("deliveredLimitPerDevice", { $0.deliveredLimitPerDevice = 100_001 }),
            ("dataDirectory", { $0.dataDirectory = "" }),
            ("start", { $0.start = Date(timeIntervalSince1970: .nan) }),
            ("start", { $0.start = Date(timeIntervalSince1970: 1e12) }),
            ("appears twice", { $0.tenants[0].webhooks = [WebhookConfiguration(url: "http://127.0.0.1:9/h", secret: "s"),
                                                           WebhookConfiguration(url: "http://127.0.0.1:9/h", secret: "t")] }),
            ("empty secret", { $0.tenants[0].webhooks = [WebhookConfiguration(url: "http://127.0.0.1:9/h", secret: "")] }),
        ]
        for (field, change) in bad {
            var copy = c
            change(&copy)
            #expect(throws: ConfigurationError.self, "\(field)") { try copy.validate() }
            do { try copy.validate() } catch { #expect(error.description.contains(field), "\(error.description)") }
        }
        // A scheme in capitals is a scheme (RFC 3986: case-insensitive; it was refused).
        var capitals = c
        capitals.tenants[0].webhooks = [WebhookConfiguration(url: "HTTP://127.0.0.1:9/h", secret: "s"),
                                        WebhookConfiguration(url: "Https://127.0.0.1:9/h", secret: "s")]
        try capitals.validate()
        // The same ranges as `run` and the library's CenterConfiguration: an accuracy limit of
        // 0 (only exact fixes count) is accepted, as `run --max-accuracy 0` is.
        var exact = c
        exact.maxAccuracy = 0
        try exact.validate()
    }
}
