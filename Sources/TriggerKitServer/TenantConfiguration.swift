import Foundation
import TriggerKit

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
    /// SSE connections (`GET /v1/events` following) open at once (default 256, at most
    /// 100,000): one more is refused with 429 `tooManyEventStreams`. Each holds at most
    /// ``sseBufferEvents`` references to frames every connection shares.
    public var maxEventStreams: Int = 256
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

    enum CodingKeys: String, CodingKey, CaseIterable { case maxBodyBytes, maxRequests, maxDevices, sseBufferEvents, maxEventStreams, outboxEvents, maxClockJumpSeconds, maxStepFires }

    func validate(field: String) throws(ConfigurationError) {
        for (name, v, most) in [("maxBodyBytes", maxBodyBytes, 1 << 30), ("maxRequests", maxRequests, OptionRules.maxRequests),
                                ("maxDevices", maxDevices, OptionRules.maxDevices), ("sseBufferEvents", sseBufferEvents, 10_000_000),
                                ("maxEventStreams", maxEventStreams, 100_000),
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
        maxEventStreams = try c.decodeIfPresent(Int.self, forKey: .maxEventStreams) ?? d.maxEventStreams
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
        try c.encode(maxEventStreams, forKey: .maxEventStreams)
        try c.encode(outboxEvents, forKey: .outboxEvents)
        try c.encode(maxClockJump, forKey: .maxClockJumpSeconds)  // (nil as null: no limit)
        try c.encode(maxStepFires, forKey: .maxStepFires)
    }
}
