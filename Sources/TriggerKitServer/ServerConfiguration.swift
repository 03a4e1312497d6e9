import Foundation
@_spi(Engine) import TriggerKit

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
    /// A second port on ``host`` serving only `GET`/`HEAD` `/healthz` and `/metrics`
    /// (default none; 0 picks a free one, given to `run`'s `onAdminListening`; `triggerkit
    /// serve` prints it as `admin (healthz, metrics) on http://HOST:PORT`). Its
    /// connections are counted apart (at most ``adminConnectionLimit``), so a probe is
    /// answered while clients hold every connection of the main port.
    public var adminPort: Int?
    /// The most connections the admin port holds at once; more wait in its backlog.
    public static let adminConnectionLimit = 16
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
        case host, port, adminPort, dataDirectory, clock, start, tenants, limits, snapshotEvery, restoreBudgetMiB, margin, dwell, maxAccuracy, deliveredLimitPerDevice
        case timeZone
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = ServerConfiguration()
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? d.host
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port
        adminPort = try c.decodeIfPresent(Int.self, forKey: .adminPort)
        dataDirectory = try c.decodeIfPresent(String.self, forKey: .dataDirectory) ?? d.dataDirectory
        clock = try c.decodeIfPresent(ClockMode.self, forKey: .clock) ?? d.clock
        // Read as `--start`, fixes and requests read a date (proleptic Gregorian, UTC or an
        // offset; or seconds since 1970): `JSONDecoder`'s ISO 8601 reading used Foundation's
        // Julian-Gregorian calendar, so "1582-10-10T00:00:00Z" started the clock on the 20th,
        // and "0001-01-01T00:00:00Z" was refused (a helper's find).
        // (A number, or a string holding one, as `--start` takes it: seconds since 1970, to
        // the millisecond.)
        func seconds(_ s: Double) -> Date { s.isFinite && abs(s) < 1e15 ? Timestamp.date(millis: Int64((s * 1000).rounded())) : Date(timeIntervalSince1970: s) }
        if let text = try? c.decodeIfPresent(String.self, forKey: .start) {
            if let ms = Timestamp.parseMillis(text) {
                start = Timestamp.date(millis: ms)
            } else if let s = Double(text) {
                start = seconds(s)
            } else {
                throw DecodingError.dataCorruptedError(forKey: .start, in: c, debugDescription: "\"\(text)\" is not an ISO 8601 date (such as 2026-11-23T08:00:00Z) or a number of seconds since 1970")
            }
        } else if let s = try c.decodeIfPresent(Double.self, forKey: .start) {
            start = seconds(s)
        }
        tenants = try c.decodeIfPresent([TenantConfiguration].self, forKey: .tenants) ?? []
        limits = try c.decodeIfPresent(TenantLimits.self, forKey: .limits) ?? d.limits
        snapshotEvery = try c.decodeIfPresent(Int.self, forKey: .snapshotEvery) ?? d.snapshotEvery
        restoreBudgetMiB = try c.decodeIfPresent(Int.self, forKey: .restoreBudgetMiB) ?? d.restoreBudgetMiB
        margin = try c.decodeIfPresent(Double.self, forKey: .margin) ?? 0
        dwell = try c.decodeIfPresent(Double.self, forKey: .dwell) ?? 0
        maxAccuracy = try c.decodeIfPresent(Double.self, forKey: .maxAccuracy)
        deliveredLimitPerDevice = try c.decodeIfPresent(Int.self, forKey: .deliveredLimitPerDevice) ?? d.deliveredLimitPerDevice
        if let name = try c.decodeIfPresent(String.self, forKey: .timeZone) {
            // A zone name as a request's `timeZone` takes it (``ZoneNames``: IANA names and
            // their aliases, `UTC`, `Asia/Kolkata`; never ICU's legacy IDs, "BST" read as
            // Dhaka), but no offset name: Foundation reads `UTC+3` east, POSIX (`--time-zone`)
            // west. The same on every machine (no zone file is asked).
            let signedNumber = name.range(of: "[+-][0-9]", options: .regularExpression) != nil
            guard !signedNumber, let zone = ZoneNames.zone(named: name) else {
                throw DecodingError.dataCorruptedError(forKey: .timeZone, in: c, debugDescription: "\(ZoneNames.why(name)) (an IANA name such as Europe/Paris)")
            }
            floatingTimeZone = zone
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(host, forKey: .host)
        try c.encode(port, forKey: .port)
        try c.encodeIfPresent(adminPort, forKey: .adminPort)
        try c.encode(dataDirectory, forKey: .dataDirectory)
        try c.encode(clock, forKey: .clock)
        // As it is read, whatever the encoder's date strategy.
        try c.encodeIfPresent(start.flatMap(RequestLimits.millis).map(Timestamp.string(millis:)), forKey: .start)
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
        if let adminPort {
            guard (0...65535).contains(adminPort) else { throw ConfigurationError("adminPort must be in 0...65535, not \(adminPort)") }
            guard adminPort == 0 || adminPort != port else { throw ConfigurationError("adminPort must differ from port (\(port))") }
        }
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
                // Schemes are case-insensitive (RFC 3986 3.1): `HTTP://` was refused.
                guard let u = URL(string: w.url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host != nil else {
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
