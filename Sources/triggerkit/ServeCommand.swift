import ArgumentParser
import Foundation
import Logging
@_spi(Engine) import TriggerKit
import TriggerKitServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the engine as a multi-tenant HTTP service.",
        discussion: """
        Settings come from --config (JSON), then the flags below. Each tenant has its own \
        requests, devices, categories, events and SQLite file in the data directory, and is \
        named by the SHA-256 of its bearer tokens (print one with --hash-token). A restart \
        restores every tenant (snapshot + journal) and resumes event streams and webhooks. \
        SIGTERM or SIGINT drains: event streams close, snapshots are saved, in-flight \
        requests finish; 10 s after the signal the remaining connections are closed (what \
        they sent and was accepted is journaled). The API is described at /openapi.json (and docs/openapi.json); \
        metrics at /metrics.

        Config file: {"host": "127.0.0.1", "port": 8080, "adminPort": 8081, "dataDirectory": "triggerkit-data", \
        "clock": "wall", "tenants": [{"id": "acme", "tokenHashes": ["<sha256 hex>"], \
        "limits": {"maxBodyBytes": 8388608, "maxRequests": 1000000, "maxDevices": 1000000, \
        "sseBufferEvents": 10000, "outboxEvents": 1000000}, \
        "webhooks": [{"url": "http://127.0.0.1:9000/hook", "secret": "s3cret"}]}], \
        "snapshotEvery": 5000000, "margin": 0, "dwell": 0, "deliveredLimitPerDevice": 100}
        """
    )

    @Option(help: ArgumentHelp("JSON configuration file.", valueName: "FILE"))
    var config: String?

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "Port (default 8080; 0 picks a free port, printed at start).")
    var port: Int?

    @Option(name: .customLong("admin-port"), help: ArgumentHelp("A second port serving only /healthz and /metrics, with connections of its own (at most 16), so probes are answered while clients hold every connection of --port. 0 picks a free port, printed at start ('admin (healthz, metrics) on http://HOST:PORT'). Default: none.", valueName: "PORT"))
    var adminPort: Int?

    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Directory of the tenants' SQLite files (default triggerkit-data).", valueName: "DIR"))
    var dataDirectory: String?

    @Option(help: "wall: time triggers fire on the wall clock. stream: time moves with the fixes' t (tests, replays; same events as `run`).")
    var clock: ClockMode?

    @Option(help: ArgumentHelp("--clock stream: the clock before the first input (ISO 8601 or seconds since 1970).", valueName: "DATE"))
    var start: String?

    @Option(help: ArgumentHelp("A tenant and the SHA-256 (hex) of one of its tokens; repeatable.", valueName: "ID=SHA256"))
    var tenant: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Hysteresis for circles, metres.", valueName: "METERS"))
    var margin: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Dwell before a crossing is confirmed, seconds.", valueName: "SECONDS"))
    var dwell: Double?

    @Option(name: .customLong("max-accuracy"), parsing: .unconditional, help: ArgumentHelp("Fixes less accurate than this many metres are ignored, as run's --max-accuracy (default: none; the config file's maxAccuracy).", valueName: "METERS"))
    var maxAccuracy: Double?

    @Option(name: .customLong("time-zone"), help: ArgumentHelp("The zone floating calendar triggers follow (read as run's --time-zone). Default: the config file's timeZone, else UTC (not the TZ variable).", valueName: "TZ"))
    var timeZone: String?

    @Option(name: .customLong("snapshot-every"), help: ArgumentHelp("Save a snapshot once this many fixes were journaled since the last one, a change counting as 100 plus one per 4 bytes of its body past 4 KiB (default 5000000).", valueName: "N"))
    var snapshotEvery: Int?

    @Option(name: .customLong("restore-budget"), help: ArgumentHelp("At start, restore at most this many MiB of tenants' snapshots at once (default 1024; a larger one restores alone).", valueName: "MIB"))
    var restoreBudget: Int?

    @Option(name: .customLong("hash-token"), help: ArgumentHelp("Print the SHA-256 of a token (for the config) and exit.", valueName: "TOKEN"))
    var hashToken: String?

    @Flag(name: .customLong("print-openapi"), help: "Print the OpenAPI document of the HTTP API and exit.")
    var printOpenAPI = false

    /// The values read without a file, checked before the command runs (a bad one gets this
    /// command's usage line).
    func validate() throws {
        // The print-and-exit modes read nothing else.
        if printOpenAPI || hashToken != nil { return }
        if let start { _ = try parseDateArgument(start, option: "--start") }
        if let timeZone, TimeZoneName.zone(timeZone) == nil { throw ValidationError("--time-zone: \(ZoneNames.why(timeZone, quote: "'"))") }
        for t in tenant where t.split(separator: "=", maxSplits: 1).count != 2 { throw ValidationError("--tenant: expected ID=SHA256, not '\(t)'") }
    }

    func run() async throws {
        if printOpenAPI {
            print(TriggerKitServer.openAPIDocument)
            return
        }
        if let hashToken {
            print(tokenHash(hashToken))
            return
        }
        var c = ServerConfiguration()
        if let config {
            do { c = try ServerConfiguration.load(path: config) } catch {
                printError("error: \(error)")
                throw ExitCode(2)
            }
        }
        if let host { c.host = host }
        if let port { c.port = port }
        if let adminPort { c.adminPort = adminPort }
        if let dataDirectory { c.dataDirectory = dataDirectory }
        if let clock { c.clock = clock }
        if let start { c.start = try parseDateArgument(start, option: "--start") }
        if let margin { c.margin = margin }
        if let dwell { c.dwell = dwell }
        if let maxAccuracy { c.maxAccuracy = maxAccuracy }
        // Read as `run` reads it. Not from TZ: a service's zone is its configuration (an
        // environment variable would move every tenant's floating triggers on a restart).
        if let timeZone {
            guard let z = TimeZoneName.zone(timeZone) else { throw ValidationError("--time-zone: \(ZoneNames.why(timeZone, quote: "'"))") }
            c.floatingTimeZone = z
        }
        if let snapshotEvery { c.snapshotEvery = snapshotEvery }
        if let restoreBudget { c.restoreBudgetMiB = restoreBudget }
        for t in tenant {
            let parts = t.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--tenant: expected ID=SHA256, not '\(t)'") }
            if let i = c.tenants.firstIndex(where: { $0.id == parts[0] }) {
                c.tenants[i].tokenHashes.append(parts[1])
            } else {
                c.tenants.append(TenantConfiguration(id: parts[0], tokenHashes: [parts[1]]))
            }
        }
        do { try c.validate() } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        let registry = ServerMetricsRegistry()
        registry.bootstrapMetricsSystem()
        var logger = Logger(label: "triggerkit.serve")
        logger.logLevel = .info
        let host = c.host
        Self.raiseOpenFileLimit()
        do {
            try await TriggerKitServer.run(configuration: c, metrics: registry, logger: logger, onListening: { port in
                printError("listening on http://\(host):\(port)")
            }, onAdminListening: { port in
                printError("admin (healthz, metrics) on http://\(host):\(port)")
            })
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}

extension ServeCommand {
    /// Raises the soft limit of open files to the hard one (at most 1,048,576): every
    /// connection holds one, and a server kept at a login shell's or a service manager's
    /// usual 1,024 ran out at about a thousand clients (then, a helper found, its accept loop
    /// spun a core until they left).
    static func raiseOpenFileLimit() { OpenFileLimit.raiseToHard() }
}

extension ClockMode: ExpressibleByArgument {}
