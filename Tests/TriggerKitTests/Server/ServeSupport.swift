import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// A server on a temporary data directory, driven through HummingbirdTesting's live client
/// (a real HTTP connection on 127.0.0.1).
struct Serve {
    static let tokenA = "token-of-acme"
    static let tokenB = "token-of-bolt"
    static let t0 = "2026-11-23T08:00:00Z"

    let directory: URL
    var configuration: ServerConfiguration

    init(clock: ClockMode = .stream, limits: TenantLimits = .init(), webhooks: [WebhookConfiguration]? = nil) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        var c = ServerConfiguration()
        c.host = "127.0.0.1"
        c.port = 0
        c.dataDirectory = directory.path
        c.clock = clock
        c.start = Timestamp.date(millis: Timestamp.parseMillis(Self.t0)!)
        c.tenants = [TenantConfiguration(id: "acme", tokenHashes: [tokenHash(Self.tokenA)], limits: limits, webhooks: webhooks),
                     TenantConfiguration(id: "bolt", tokenHashes: [tokenHash(Self.tokenB)], limits: limits)]
        configuration = c
    }

    /// Runs `body` against a live server; the data directory outlives it (for restarts).
    func run(tuning: TriggerKitServer.Tuning = .init(), _ body: @Sendable (any TestClientProtocol, ServerState) async throws -> Void) async throws {
        var logger = Logger(label: "test.serve")
        logger.logLevel = .warning
        let (app, _, state) = try await TriggerKitServer.make(configuration: configuration, tuning: tuning, metrics: ServerMetrics(),
                                                              logger: logger, backgroundInApplication: true, onListening: { _ in })
        try await app.test(.live) { client in try await body(client, state) }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// One HTTP exchange's answer.
struct Answer {
    var status: Int
    var body: String
    var headers = HTTPFields()
    var json: JSONValue? { try? JSONValue.parse(body) }
    var errorCode: String? { json?.objectValue?["error"]?.objectValue?["code"]?.stringValue }
}

extension TestClientProtocol {
    func call(_ method: HTTPRequest.Method, _ uri: String, token: String? = Serve.tokenA, body: String? = nil,
              bytes: [UInt8]? = nil, headers extra: [(String, String)] = []) async throws -> Answer {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        for (k, v) in extra { headers[HTTPField.Name(k)!] = v }
        let buffer = bytes.map { ByteBuffer(bytes: $0) } ?? body.map { ByteBuffer(string: $0) }
        return try await execute(uri: uri, method: method, headers: headers, body: buffer) { r in
            Answer(status: Int(r.status.code), body: String(buffer: r.body), headers: r.headers)
        }
    }
}

extension TestClientProtocol {
    /// `GET /v1/webhooks/dead` once it lists something (a bounded wait: 5 s), else empty.
    func deadLetters() async throws -> [JSONValue] {
        var dead: [JSONValue] = []
        for _ in 0..<200 where dead.isEmpty {
            try await Task.sleep(for: .milliseconds(25))
            dead = try await call(.get, "/v1/webhooks/dead").json?.objectValue?["dead"]?.arrayValue ?? []
        }
        return dead
    }
}

/// Requests and fixes used by several tests.
enum Sample {
    static func circle(_ id: String, lat: Double = 40.7, lon: Double = -74, radius: Double = 100, device: String? = nil) -> String {
        let d = device.map { ",\"device\":\"\($0)\"" } ?? ""
        return #"{"identifier":"\#(id)","content":{"title":"\#(id)"}\#(d),"addedAt":"\#(Serve.t0)","trigger":{"type":"location","region":{"identifier":"\#(id)","center":{"latitude":\#(lat),"longitude":\#(lon)},"radius":\#(radius),"notifyOnEntry":true,"notifyOnExit":true},"repeats":true}}"#
    }

    static func every(_ id: String, _ seconds: Int, category: String? = nil) -> String {
        let c = category.map { ",\"categoryIdentifier\":\"\($0)\"" } ?? ""
        return #"{"identifier":"\#(id)","content":{"title":"\#(id)"\#(c)},"addedAt":"\#(Serve.t0)","trigger":{"type":"timeInterval","timeInterval":\#(seconds),"repeats":true}}"#
    }

    /// Device d walking in and out of the circle at 40.7,-74 (one fix per 30 s).
    static func fixes(device: String = "d1", from minute: Int = 0, count: Int) -> String {
        (0..<count).map { i in
            let s = (minute * 60) + i * 30
            let t = Timestamp.string(millis: Timestamp.parseMillis(Serve.t0)! + Int64(s) * 1000)
            let lat = i % 4 < 2 ? 40.7 : 40.71
            return #"{"device":"\#(device)","t":"\#(t)","lat":\#(lat),"lon":-74}"#
        }.joined(separator: "\n") + "\n"
    }
}

/// SSE frames: (id, data).
func sseEvents(_ text: String) -> [(id: Int64, data: String)] {
    var out: [(Int64, String)] = []
    for frame in text.components(separatedBy: "\n\n") {
        var id: Int64?, data: String?, event: String?
        for line in frame.split(separator: "\n") {
            if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
        }
        if let id, let data, event == "delivered" { out.append((id, data)) }
    }
    return out
}

/// `run`'s engine over the same requests and lines, each event rendered as `run` prints it.
func runReference(requests: [String], lines: [String]) throws -> [String] {
    let t0 = Timestamp.date(millis: Timestamp.parseMillis(Serve.t0)!)
    let set = RequestsFile.parse(requests.joined(separator: "\n"), options: ValidationOptions(now: t0))
    precondition(set.errorCount == 0, "reference requests must be valid")
    let evaluator = StreamEvaluator(requests: set.requests, options: StreamOptions(now: t0))
    var out: [String] = []
    var events: [FiredEvent] = []
    for l in lines {
        events.removeAll()
        try evaluator.process(StreamLineParser.parse(l), into: &events)
        for e in events {
            var w = JSONWriter()
            evaluator.write(e, format: .json, to: &w)
            out.append(String(decoding: w.bytes.dropLast(), as: UTF8.self))
        }
    }
    return out
}
