import Foundation
import TriggerKit

/// What `triggerkit serve` runs with: from a JSON config file, then command-line flags.
///
/// ```json
/// {"host": "127.0.0.1", "port": 8080, "dataDirectory": "triggerkit-data", "clock": "wall",
///  "tenants": [{"id": "acme", "tokenHashes": ["<sha256 hex of the token>"],
///               "webhooks": [{"url": "http://127.0.0.1:9000/hook", "secret": "s3cret"}]}]}
/// ```
public struct ServerConfiguration: Sendable, Codable {
    /// Address to listen on (default 127.0.0.1).
    public var host: String = "127.0.0.1"
    /// Port (default 8080; 0 picks a free one, printed at start).
    public var port: Int = 8080
    /// Where each tenant's SQLite file lives (created if missing).
    public var dataDirectory: String = "triggerkit-data"
    /// What moves time: the wall clock (default), or the data (`stream`: fixes' `t` and
    /// `POST /v1/clock`, the same events as `triggerkit run`).
    public var clock: ClockMode = .wall
    /// Stream mode only: the clock before the first input (default: the wall clock at the
    /// first start). Requests without `addedAt` are added at the clock's time.
    public var start: Date?
    /// The tenants (at least one), each with its tokens' hashes.
    public var tenants: [TenantConfiguration] = []
    /// Limits for tenants that do not set their own.
    public var limits: TenantLimits = .init()
    /// A snapshot is saved once this much was journaled since the last one (and at
    /// shutdown), counted in fixes, a change of requests, settings or categories counting as
    /// 100, plus one per 4 bytes of its body past 4 KiB (a large category list bounds the
    /// journal by its replay time too); what a restart replayed counts too. So it bounds what a restart replays: the
    /// default, 5,000,000, is 5M fixes (about 4.5 s of replay, `tools/serve-restart.py`) or
    /// 50,000 added requests (about 0.4 s). A snapshot costs O(requests): the center is held while its value is taken
    /// (about 1.5 s at a million requests), then it is serialized (about 1 s) and written
    /// beside ingestion.
    public var snapshotEvery: Int = 5_000_000
    /// At start, tenants are restored side by side (up to 4, and the cores); each holds its
    /// snapshot's bytes and what decoding them takes (about 1.3 times as much) until it is
    /// ready. The snapshots restored at once add up to at most this many MiB: a tenant waits
    /// while the others in flight would pass it, and one larger than the budget restores alone.
    public var restoreBudgetMiB: Int = 1024
    /// The center's settings for every tenant (margin, dwell, history bound, ...).
    /// Hysteresis for circles, metres (as `run --margin`).
    public var margin: Double = 0
    /// Seconds a crossing must hold before it is confirmed (as `run --dwell`).
    public var dwell: TimeInterval = 0
    /// Fixes less accurate than this many metres are ignored (as `run --max-accuracy`).
    public var maxAccuracy: Double?
    /// Delivered notifications kept per device in a tenant's history (default 100).
    public var deliveredLimitPerDevice: Int = 100
    /// The zone floating calendar triggers (no `timeZone` of their own) follow, as `run
    /// --time-zone`; nil: UTC. The config file's `timeZone` is an IANA name; `triggerkit
    /// serve --time-zone` overrides it (not `TZ`, which `run` reads: a service's zone is its
    /// configuration). A change moves every tenant's floating triggers from the next
    /// restart on (a restored queued fire keeps its date).
    public var floatingTimeZone: TimeZone?

    /// The defaults above, with no tenant yet.
    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, dataDirectory, clock, start, tenants, limits, snapshotEvery, restoreBudgetMiB, margin, dwell, maxAccuracy, deliveredLimitPerDevice
        case timeZone
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = ServerConfiguration()
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? d.host
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port
        dataDirectory = try c.decodeIfPresent(String.self, forKey: .dataDirectory) ?? d.dataDirectory
        clock = try c.decodeIfPresent(ClockMode.self, forKey: .clock) ?? d.clock
        start = try c.decodeIfPresent(Date.self, forKey: .start)
        tenants = try c.decodeIfPresent([TenantConfiguration].self, forKey: .tenants) ?? []
        limits = try c.decodeIfPresent(TenantLimits.self, forKey: .limits) ?? d.limits
        snapshotEvery = try c.decodeIfPresent(Int.self, forKey: .snapshotEvery) ?? d.snapshotEvery
        restoreBudgetMiB = try c.decodeIfPresent(Int.self, forKey: .restoreBudgetMiB) ?? d.restoreBudgetMiB
        margin = try c.decodeIfPresent(Double.self, forKey: .margin) ?? 0
        dwell = try c.decodeIfPresent(Double.self, forKey: .dwell) ?? 0
        maxAccuracy = try c.decodeIfPresent(Double.self, forKey: .maxAccuracy)
        deliveredLimitPerDevice = try c.decodeIfPresent(Int.self, forKey: .deliveredLimitPerDevice) ?? d.deliveredLimitPerDevice
        if let name = try c.decodeIfPresent(String.self, forKey: .timeZone) {
            // IANA names only: Foundation reads `UTC+3` east, POSIX (`--time-zone`) west.
            guard TimeZone.knownTimeZoneIdentifiers.contains(name), let zone = ZoneNames.zone(named: name) else {
                throw DecodingError.dataCorruptedError(forKey: .timeZone, in: c, debugDescription: "unknown time zone \"\(name)\" (an IANA name such as Europe/Paris)")
            }
            floatingTimeZone = zone
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(host, forKey: .host)
        try c.encode(port, forKey: .port)
        try c.encode(dataDirectory, forKey: .dataDirectory)
        try c.encode(clock, forKey: .clock)
        try c.encodeIfPresent(start, forKey: .start)
        try c.encode(tenants, forKey: .tenants)
        try c.encode(limits, forKey: .limits)
        try c.encode(snapshotEvery, forKey: .snapshotEvery)
        try c.encode(restoreBudgetMiB, forKey: .restoreBudgetMiB)
        try c.encode(margin, forKey: .margin)
        try c.encode(dwell, forKey: .dwell)
        try c.encodeIfPresent(maxAccuracy, forKey: .maxAccuracy)
        try c.encode(deliveredLimitPerDevice, forKey: .deliveredLimitPerDevice)
        try c.encodeIfPresent(floatingTimeZone?.identifier, forKey: .timeZone)
    }

    /// Reads a config file (JSON; dates ISO 8601).
    ///
    /// - Throws: ``ConfigurationError`` starting with `path`: the file cannot be read, is not
    ///   JSON, names a field the configuration does not have, or gives one a value of the
    ///   wrong type (named by its field).
    public static func load(path: String) throws(ConfigurationError) -> ServerConfiguration {
        var data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError("\(path): cannot be read (\(error.localizedDescription))")
        }
        // A leading UTF-8 byte order mark is skipped, as in every input.
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
        // Read first by the reader every other input goes through: a name given twice (which
        // `JSONDecoder` reads as its last value) and syntax errors are refused with their byte.
        let json: JSONValue
        do throws(JSONSyntaxError) {
            json = try JSONValue.parse(document: data)
        } catch {
            throw ConfigurationError("\(path): \(error)")
        }
        try ConfigurationNames.check(json, file: path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(ServerConfiguration.self, from: data)
        } catch let e as DecodingError {
            throw ConfigurationError("\(path): \(ConfigurationNames.describe(e))")
        } catch {
            throw ConfigurationError("\(path): \(error)")
        }
    }

    /// The center every tenant runs: this configuration's margin, dwell, accuracy limit and
    /// history bound; on the stream clock no fix is "from the future" and catch-up delivers
    /// every fire, as `run`.
    package var centerConfiguration: CenterConfiguration {
        var c = CenterConfiguration()
        if let floatingTimeZone { c.floatingTimeZone = floatingTimeZone }
        c.margin = margin
        c.dwell = dwell
        c.maxAccuracy = maxAccuracy
        c.deliveredLimitPerDevice = deliveredLimitPerDevice
        // The tenant bounds its requests and devices itself (`limits`, counting requests' devices
        // too, before anything is journaled); the center's own bound is only the ceiling, so a
        // replay never meets a refusal the live tenant did not.
        c.maxDevices = OptionRules.maxDevices
        c.maxRequests = OptionRules.maxRequests
        if clock == .stream {
            c.maxFixLead = .infinity
            c.catchUp = .everyFire
        }
        return c
    }

    /// Checks the configuration; the reason names the field.
    public func validate() throws(ConfigurationError) {
        guard (0...65535).contains(port) else { throw ConfigurationError("port must be in 0...65535, not \(port)") }
        guard !tenants.isEmpty else { throw ConfigurationError("no tenants: add one in the config file or with --tenant ID=SHA256") }
        guard !dataDirectory.isEmpty else { throw ConfigurationError("dataDirectory must not be empty") }
        if let start, !RequestLimits.isSupported(start) {
            throw ConfigurationError("start must be a date in years 1-9999, not \(start.timeIntervalSince1970) s since 1970")
        }
        // Above a billion a snapshot is never taken before shutdown, and the journal a
        // restart replays has no bound.
        guard (1...1_000_000_000).contains(snapshotEvery) else { throw ConfigurationError("snapshotEvery must be in 1...1000000000, not \(snapshotEvery)") }
        guard (1...(1 << 30)).contains(restoreBudgetMiB) else {
            throw ConfigurationError("restoreBudgetMiB must be in 1...\(1 << 30), not \(restoreBudgetMiB)")
        }
        // margin, dwell, maxAccuracy, deliveredLimitPerDevice: the center's own ranges, by the
        // same names.
        do throws(CenterError) { try centerConfiguration.validate() } catch { throw ConfigurationError(error.description) }
        try limits.validate(field: "limits")
        var ids = Set<String>(), hashes = Set<String>()
        for t in tenants {
            guard !t.id.isEmpty, t.id.utf8.count <= 64, t.id.utf8.allSatisfy({ $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw ConfigurationError("tenant id \"\(t.id)\" must be 1-64 letters, digits, '-' or '_'")
            }
            guard ids.insert(t.id).inserted else { throw ConfigurationError("tenant id \"\(t.id)\" appears twice") }
            try t.limits?.validate(field: "tenant \"\(t.id)\" limits")
            guard !t.tokenHashes.isEmpty else { throw ConfigurationError("tenant \"\(t.id)\" has no tokenHashes") }
            for h in t.tokenHashes {
                guard h.utf8.count == 64, h.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                    throw ConfigurationError("tenant \"\(t.id)\": a token hash must be 64 lowercase hex digits (sha256 of the token)")
                }
                guard hashes.insert(h).inserted else { throw ConfigurationError("a token hash is used twice (tenant \"\(t.id)\")") }
            }
            var urls = Set<String>()
            for w in t.webhooks ?? [] {
                guard let u = URL(string: w.url), u.scheme == "http" || u.scheme == "https", u.host != nil else {
                    throw ConfigurationError("tenant \"\(t.id)\": webhook url \"\(w.url)\" is not an http(s) URL")
                }
                // A webhook's cursor and dead letters are kept by URL: two entries would share them.
                guard urls.insert(w.url).inserted else { throw ConfigurationError("tenant \"\(t.id)\": webhook url \"\(w.url)\" appears twice") }
                guard !w.secret.isEmpty else { throw ConfigurationError("tenant \"\(t.id)\": webhook \"\(w.url)\" has an empty secret") }
            }
        }
    }
}

/// A configuration the server cannot start with.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the field.
    public var description: String
    init(_ d: String) { description = d }
}

/// One tenant: its id (used in its data file's name), the SHA-256 (hex) of each of its bearer
/// tokens, optional limits and webhooks.
public struct TenantConfiguration: Sendable, Codable {
    /// 1-64 letters, digits, `-` or `_`; the tenant's file is `<dataDirectory>/<id>.sqlite`.
    public var id: String
    /// The SHA-256 (64 lowercase hex digits) of each token that names this tenant.
    public var tokenHashes: [String]
    /// Its own limits; nil: the server's ``ServerConfiguration/limits``.
    public var limits: TenantLimits?
    /// Where its events are also POSTed; nil or empty: none.
    public var webhooks: [WebhookConfiguration]?

    /// A tenant with these tokens, limits and webhooks.
    public init(id: String, tokenHashes: [String], limits: TenantLimits? = nil, webhooks: [WebhookConfiguration]? = nil) {
        self.id = id
        self.tokenHashes = tokenHashes
        self.limits = limits
        self.webhooks = webhooks
    }
}

/// A webhook: events are POSTed to `url` as `{"events": [...]}`, signed with HMAC-SHA256 of
/// the body under `secret` (header `X-TriggerKit-Signature: sha256=<hex>`).
public struct WebhookConfiguration: Sendable, Codable {
    /// The endpoint (`http` or `https`).
    public var url: String
    /// The HMAC-SHA256 key of the signature header.
    public var secret: String
    /// A webhook to `url`, signed with `secret`.
    public init(url: String, secret: String) {
        self.url = url
        self.secret = secret
    }
}

/// Per-tenant limits; beyond them the answer is 413 (body) or 429 (counts), with a JSON error.
public struct TenantLimits: Sendable, Codable {
    /// Largest request body, bytes (default 8 MiB).
    public var maxBodyBytes: Int = 8 << 20
    /// Requests a tenant may hold (default 1,000,000): its pending ones (a one-shot that
    /// fired, or a request that expired, no longer counts).
    public var maxRequests: Int = 1_000_000
    /// Devices a tenant may have (default 1,000,000).
    public var maxDevices: Int = 1_000_000
    /// Events an SSE connection may fall behind before it is closed (it resumes with
    /// `Last-Event-ID`; default 10,000).
    public var sseBufferEvents: Int = 10_000
    /// Events kept in the outbox for SSE resume and webhooks (default 1,000,000).
    public var outboxEvents: Int = 1_000_000
    /// `--clock stream`: a fix or `POST /v1/clock` dated more than this many seconds after
    /// the tenant's clock is refused (422), by `run --max-clock-jump`'s rule: default 604,800
    /// (7 days, `run`'s default); `nil` (JSON `null`): no limit, as `--max-clock-jump none`.
    /// 0, which earlier versions read as no limit, is refused by the configuration's check.
    /// Not before the tenant's first input: its clock starts at `--start`, which may be far
    /// from the data. The JSON key is `maxClockJumpSeconds`.
    public var maxClockJump: TimeInterval? = 604_800
    /// `--clock stream`: a fix or `POST /v1/clock` whose clock step would deliver more time
    /// fires than this at once is refused before anything changes (`POST /v1/clock` with 422,
    /// a fix line by line in its batch's answer): move the clock in smaller steps. So is an
    /// added request whose catch-up (an `addedAt` in the past), with its batch's other adds,
    /// would deliver more. Each fire within the catch-up window counts (older ones one per
    /// request). Default 100,000: such a step took 1.6 s and the server 106 MB (1,000
    /// requests repeating every minute, a step of 100 minutes). One step of 7 days with
    /// 1,000 requests repeating every minute (10 million fires) held the server for over
    /// 10 minutes and 6 GB. (The wall clock cannot be refused: after downtime it coalesces,
    /// one delivery per request.)
    public var maxStepFires: Int = 100_000

    /// The defaults above.
    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case maxBodyBytes, maxRequests, maxDevices, sseBufferEvents, outboxEvents, maxClockJumpSeconds, maxStepFires }

    func validate(field: String) throws(ConfigurationError) {
        for (name, v, most) in [("maxBodyBytes", maxBodyBytes, 1 << 30), ("maxRequests", maxRequests, OptionRules.maxRequests),
                                ("maxDevices", maxDevices, OptionRules.maxDevices), ("sseBufferEvents", sseBufferEvents, 10_000_000),
                                ("outboxEvents", outboxEvents, 1_000_000_000), ("maxStepFires", maxStepFires, 1_000_000_000)] {
            guard (1...most).contains(v) else { throw ConfigurationError("\(field).\(name) must be in 1...\(most), not \(v)") }
        }
        // 0 once meant "no limit" here: a config that says 0 is refused, not read as a limit
        // that refuses every later input (`run --max-clock-jump 0` is that limit).
        if maxClockJump == 0 {
            throw ConfigurationError("\(field).maxClockJumpSeconds is 0, which earlier versions read as no limit: write null for no limit, or a number of seconds > 0")
        }
        if let j = maxClockJump, !(j.isFinite && j > 0 && j <= 3_155_760_000) {
            throw ConfigurationError("\(field).maxClockJumpSeconds must be seconds in (0, 3155760000], or null for no limit, not \(j)")
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TenantLimits()
        maxBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? d.maxBodyBytes
        maxRequests = try c.decodeIfPresent(Int.self, forKey: .maxRequests) ?? d.maxRequests
        maxDevices = try c.decodeIfPresent(Int.self, forKey: .maxDevices) ?? d.maxDevices
        sseBufferEvents = try c.decodeIfPresent(Int.self, forKey: .sseBufferEvents) ?? d.sseBufferEvents
        outboxEvents = try c.decodeIfPresent(Int.self, forKey: .outboxEvents) ?? d.outboxEvents
        maxStepFires = try c.decodeIfPresent(Int.self, forKey: .maxStepFires) ?? d.maxStepFires
        // Absent: the default; null: no limit.
        if !c.contains(.maxClockJumpSeconds) {
            maxClockJump = d.maxClockJump
        } else if try c.decodeNil(forKey: .maxClockJumpSeconds) {
            maxClockJump = nil
        } else {
            maxClockJump = try c.decode(Double.self, forKey: .maxClockJumpSeconds)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxBodyBytes, forKey: .maxBodyBytes)
        try c.encode(maxRequests, forKey: .maxRequests)
        try c.encode(maxDevices, forKey: .maxDevices)
        try c.encode(sseBufferEvents, forKey: .sseBufferEvents)
        try c.encode(outboxEvents, forKey: .outboxEvents)
        try c.encode(maxClockJump, forKey: .maxClockJumpSeconds)  // (nil as null: no limit)
        try c.encode(maxStepFires, forKey: .maxStepFires)
    }
}

/// The names a config file may use, checked before it is decoded: an unknown one is refused,
/// as in every other input (a misspelt `snapshotEvry` was ignored silently, and the server
/// ran with the default), and a value of the wrong type is named by its field.
enum ConfigurationNames {
    static let top = Set(ServerConfiguration.CodingKeys.allCases.map(\.rawValue))
    static let limits = Set(TenantLimits.CodingKeys.allCases.map(\.rawValue))
    static let tenant: Set<String> = ["id", "tokenHashes", "limits", "webhooks"]
    static let webhook: Set<String> = ["url", "secret"]
    static let wholeNumbers: Set<String> = ["port", "snapshotEvery", "restoreBudgetMiB", "deliveredLimitPerDevice", "maxBodyBytes",
                                            "maxRequests", "maxDevices", "sseBufferEvents", "outboxEvents", "maxStepFires"]

    /// Refuses a name the configuration does not have, naming where it is.
    static func check(_ json: JSONValue, file: String) throws(ConfigurationError) {
        func names(_ v: JSONValue?, _ known: Set<String>, _ at: String) throws(ConfigurationError) {
            guard case .object(let o)? = v else { return }
            for key in o.keys.sorted() {
                guard known.contains(key) else {
                    throw ConfigurationError("\(file): unknown field \"\(at)\(DiagnosticText.escaped(key))\" (expected one of \(known.sorted().joined(separator: ", ")))")
                }
                // (Foundation's decoder calls a fraction in a whole-number field "not valid JSON".)
                if wholeNumbers.contains(key), case .number(let x)? = o[key], x.rounded() != x {
                    throw ConfigurationError("\(file): \"\(at)\(key)\" must be a whole number, not \(x)")
                }
            }
        }
        try names(json, top, "")
        guard case .object(let o) = json else { return }
        try names(o["limits"], limits, "limits.")
        if case .array(let tenants)? = o["tenants"] {
            for (i, t) in tenants.enumerated() {
                try names(t, tenant, "tenants[\(i)].")
                guard case .object(let to) = t else { continue }
                try names(to["limits"], limits, "tenants[\(i)].limits.")
                if case .array(let hooks)? = to["webhooks"] {
                    for (j, h) in hooks.enumerated() { try names(h, webhook, "tenants[\(i)].webhooks[\(j)].") }
                }
            }
        }
    }

    /// A decoding error as a sentence naming the field (Foundation's names the type).
    static func describe(_ e: DecodingError) -> String {
        func field(_ c: DecodingError.Context) -> String {
            let path = c.codingPath.map { k in k.intValue.map { "[\($0)]" } ?? "." + k.stringValue }.joined()
            return path.isEmpty ? "the file" : "\"" + String(path.drop { $0 == "." }) + "\""
        }
        switch e {
        case .typeMismatch(let type, let c): return "\(field(c)) must be \(describe(type)): \(c.debugDescription)"
        case .valueNotFound(let type, let c): return "\(field(c)) must be \(describe(type)), not null"
        case .keyNotFound(let key, let c):
            let at = field(c)
            return "\(at == "the file" ? "" : at + ": ")\"\(key.stringValue)\" is required"
        case .dataCorrupted(let c): return "\(field(c)): \(c.debugDescription)"
        @unknown default: return "\(e)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}
