import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
@_spi(Engine) import TriggerKit

/// What the routes share: tenants by token hash, metrics.
struct ServerState: Sendable {
    var tenantsByTokenHash: [String: Tenant]
    var tenants: [Tenant]
    var metrics: ServerMetrics
    /// An event stream whose client leaves a write untaken this long is closed
    /// (``StalledWrites``; ``TriggerKitServer/Tuning/streamStallLimit``).
    var streamStallLimit: Duration = TriggerKitServer.Tuning().streamStallLimit
}

/// `triggerkit serve`: the engine as a multi-tenant HTTP service.
///
/// Start it with ``run(configuration:metrics:logger:onListening:)``: it opens every tenant's store
/// (restoring its snapshot and replaying its journal), serves the HTTP API, runs the
/// wall-clock ticks, webhooks and periodic snapshots, and on SIGTERM/SIGINT drains: the
/// event streams close, a snapshot of every tenant is saved, in-flight requests finish.
public enum TriggerKitServer: Sendable {
    /// The OpenAPI document of the HTTP API (JSON), as served at `/openapi.json`.
    public static var openAPIDocument: String { OpenAPIDocument.json }

    /// Knobs tests turn (webhook retry timing): the package's own, not users' (values out of
    /// range trapped in the webhook loop, found by a helper; the tests' are in range).
    package struct Tuning: Sendable {
        package var webhookBaseDelay: Double = 0.5
        package var webhookMaxAttempts: Int = 8
        package var webhookTimeout: Double = 10
        /// How long a graceful stop waits for requests and clients before closing connections.
        package var drainLimit: Duration = .seconds(10)
        /// How long a connection may stay idle (no request, or a request's head not yet
        /// complete) before it is closed: bare or trickling connections held file descriptors
        /// for ever (found by a helper). A request being answered (an event stream) is not idle.
        package var idleTimeout: Duration = .seconds(60)
        /// How long an event stream's write may wait for its client to read before the stream
        /// is closed and its slot freed (``StalledWrites``).
        package var streamStallLimit: Duration = .seconds(30)
        /// How long a request body may take to arrive (``Uploads``).
        package var bodyTimeout: Duration = Tenant.bodyTimeout
        /// The most connections held at once (``ConnectionCap``); nil: from the open-file limit.
        package var maxConnections: Int?
        package init() {}
    }

    /// Runs the server until SIGTERM/SIGINT (or until the surrounding task is cancelled).
    /// `onListening` gets the bound port (useful with port 0), and `onAdminListening` the
    /// admin port's (``ServerConfiguration/adminPort``), when there is one.
    ///
    /// - Throws: ``ConfigurationError`` for a configuration that does not validate, the
    ///   stores' and the HTTP server's errors (a port that cannot be bound is named).
    public static func run(configuration: ServerConfiguration, metrics registry: ServerMetricsRegistry = .init(),
                           logger: Logger = Logger(label: "triggerkit.serve"),
                           onListening: @escaping @Sendable (Int) async -> Void = { _ in },
                           onAdminListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await run(configuration: configuration, tuning: .init(), metrics: registry, logger: logger, onListening: onListening,
                      onAdminListening: onAdminListening)
    }

    /// ``run(configuration:metrics:logger:onListening:onAdminListening:)`` with the package's tuning.
    package static func run(configuration: ServerConfiguration, tuning: Tuning, metrics registry: ServerMetricsRegistry,
                            logger: Logger, onListening: @escaping @Sendable (Int) async -> Void,
                            onAdminListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let (app, background, state) = try await make(configuration: configuration, tuning: tuning, metrics: registry.metrics,
                                                      logger: logger, backgroundInApplication: false, onListening: onListening)
        var services: [any Service] = []
        if let adminPort = configuration.adminPort {
            services.append(NamedListener(name: "the admin port (\(configuration.host):\(adminPort))", inner: Application(
                router: HeadAsGet(router: buildAdminRouter(server: state)),
                server: httpServer(tuning),
                configuration: .init(address: .hostname(configuration.host, port: adminPort), serverName: "triggerkit",
                                     availableConnectionsDelegate: ConnectionCap(limit: ServerConfiguration.adminConnectionLimit,
                                                                                 logger: logger, listener: "admin")),
                onServerRunning: { channel in await onAdminListening(channel.localAddress?.port ?? adminPort) },
                logger: logger)))
        }
        services.append(NamedListener(name: "the port (\(configuration.host):\(configuration.port))", inner: app))
        services.append(background)
        // Shutdown runs in reverse order: the background service first (event streams end,
        // snapshots are saved), then the HTTP server drains, then the admin port closes (so
        // probes and `/metrics` are answered during the drain).
        // A stop waits for in-flight requests and for event streams to flush at most
        // ``drainLimit``: then connections are closed (the snapshots are saved by then). A
        // client that stopped reading held the stop for ever (found by a helper).
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                           logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = tuning.drainLimit
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
    }

    /// Refuses to start under an open-file limit below the server's own reserve
    /// (``ConnectionCap/reserve(tenants:webhooks:admin:)``) plus 16 connections: with fewer,
    /// the process ran out of descriptors while starting (its tenants' SQLite files, the
    /// event loops) and the Swift runtime's thread pool stopped it with SIGILL (found by a
    /// helper at `ulimit -n` 10-16).
    static func checkOpenFiles(_ configuration: ServerConfiguration) throws {
        let reserve = ConnectionCap.reserve(tenants: configuration.tenants.count,
                                            webhooks: configuration.tenants.reduce(0) { $0 + ($1.webhooks ?? []).count },
                                            admin: configuration.adminPort == nil ? 0 : ServerConfiguration.adminConnectionLimit)
        let needed = reserve + ConnectionCap.minimumConnections
        if let soft = OpenFileLimit.soft, soft < needed {
            throw ConfigurationError("the open-file limit (ulimit -n) is \(soft): serve needs at least \(needed) here "
                + "(128, 8 per tenant and per webhook, \(configuration.adminPort == nil ? "" : "16 for the admin port, ")"
                + "and \(ConnectionCap.minimumConnections) connections)")
        }
    }

    /// Opens every tenant and builds the application (tests run it with HummingbirdTesting;
    /// with `backgroundInApplication` the ticks, webhooks and snapshots run as its service).
    static func make(configuration: ServerConfiguration, tuning: Tuning, metrics: ServerMetrics, logger: Logger,
                     backgroundInApplication: Bool,
                     onListening: @escaping @Sendable (Int) async -> Void) async throws
        -> (app: some ApplicationProtocol, background: BackgroundService, state: ServerState) {
        try configuration.validate()
        if tuning.maxConnections == nil { try checkOpenFiles(configuration) }
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let centerConfig = configuration.centerConfiguration
        let start = configuration.start
        var state = ServerState(tenantsByTokenHash: [:], tenants: [], metrics: metrics)
        state.streamStallLimit = tuning.streamStallLimit
        let opening = configuration.tenants.map { t in
            TenantOpening(id: t.id, limits: t.limits ?? configuration.limits, webhooks: t.webhooks ?? [],
                          path: configuration.dataDirectory + "/\(t.id).sqlite")
        }
        let opened = try await openTenants(opening, configuration: centerConfig, mode: configuration.clock, start: start,
                                           metrics: metrics, tuning: tuning, budgetBytes: configuration.restoreBudgetMiB << 20)
        let tenants = opened.map(\.tenant)
        let dispatchers = opened.compactMap(\.webhooks)
        for (t, tenant) in zip(configuration.tenants, tenants) {
            state.tenants.append(tenant)
            for h in t.tokenHashes { state.tenantsByTokenHash[h] = tenant }
            let held = await tenant.withCenter { $0.requestCount }
            logger.info("tenant ready", metadata: ["tenant": "\(t.id)", "requests": "\(held)"])
        }
        let connectionLimit = tuning.maxConnections
            ?? ConnectionCap.limit(tenants: configuration.tenants.count, webhooks: opening.reduce(0) { $0 + $1.webhooks.count },
                                   admin: configuration.adminPort == nil ? 0 : ServerConfiguration.adminConnectionLimit)
        let background = BackgroundService(tenants: state.tenants, dispatchers: dispatchers, snapshotEvery: configuration.snapshotEvery, logger: logger)
        let app = Application(
            router: HeadAsGet(router: buildRouter(server: state)),
            server: httpServer(tuning),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "triggerkit",
                                 availableConnectionsDelegate: ConnectionCap(limit: connectionLimit, logger: logger)),
            services: backgroundInApplication ? [background] : [],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
        return (app, background, state)
    }
}

/// What a tenant is opened from.
struct TenantOpening: Sendable {
    var id: String
    var limits: TenantLimits
    var webhooks: [WebhookConfiguration]
    /// Its SQLite file.
    var path: String
}

/// A tenant that could not be opened at start, and why (the server does not start).
struct TenantOpenError: Error, CustomStringConvertible {
    var tenant: String
    var underlying: any Error
    var description: String { "tenant \(tenant): \(TenantStore.describe(underlying))" }
}

extension TriggerKitServer {
    /// Restores at most this many tenants at a time (each holds its snapshot's bytes and one
    /// page of its journal while it restores), and never more than there are cores.
    static let restoreWidth = 4

    /// Opens the tenants' stores and restores them
    /// (``Tenant/open(id:limits:configuration:store:thread:mode:start:metrics:webhooks:)``) side by side,
    /// each on its own thread (``restoreWidth`` at a time, their snapshots adding up to at most
    /// `budgetBytes`: ``RestorePlan``); in the given order. The first failure stops the start,
    /// naming its tenant (``TenantOpenError``).
    static func openTenants(_ opening: [TenantOpening], configuration: CenterConfiguration, mode: ClockMode, start: Date?,
                            metrics: ServerMetrics, tuning: Tuning, budgetBytes: Int) async throws -> [(tenant: Tenant, webhooks: WebhookDispatcher?)] {
        var opened = [(tenant: Tenant, webhooks: WebhookDispatcher?)?](repeating: nil, count: opening.count)
        var plan = RestorePlan(width: min(restoreWidth, max(1, ProcessInfo.processInfo.activeProcessorCount)), budget: budgetBytes)
        // Each snapshot's size, read before any is restored (a query of one row each).
        let weights = opening.map { TenantStore.snapshotBytes(path: $0.path) }
        try await withThrowingTaskGroup(of: (Int, Tenant, WebhookDispatcher?).self) { group in
            var next = 0
            func startNext() {
                let i = next, o = opening[i]
                next += 1
                plan.start(weights[i])
                group.addTask {
                    let thread = TenantThread(tenant: o.id)
                    return try await thread.run { () async throws(TenantOpenError) -> (Int, Tenant, WebhookDispatcher?) in
                        do {
                            let store = try TenantStore(path: o.path, outboxLimit: o.limits.outboxEvents)
                            let hooks = o.webhooks.isEmpty ? nil : WebhookDispatcher(
                                tenant: o.id, webhooks: o.webhooks, store: store, thread: thread, metrics: metrics,
                                baseDelay: tuning.webhookBaseDelay, maxAttempts: tuning.webhookMaxAttempts, timeout: tuning.webhookTimeout)
                            let tenant = try await Tenant.open(id: o.id, limits: o.limits, configuration: configuration, store: store,
                                                               thread: thread, mode: mode, start: start, metrics: metrics, webhooks: hooks,
                                                               bodyTimeout: tuning.bodyTimeout)
                            return (i, tenant, hooks)
                        } catch {
                            throw TenantOpenError(tenant: o.id, underlying: error)
                        }
                    }
                }
            }
            while next < opening.count && plan.canStart(weights[next]) { startNext() }
            while let (i, tenant, hooks) = try await group.next() {
                opened[i] = (tenant, hooks)
                plan.finish(weights[i])
                while next < opening.count && plan.canStart(weights[next]) { startNext() }
            }
        }
        return opened.map { $0! }
    }
}

/// Which tenants restore side by side at start: in order, at most `width` at once, and a
/// tenant starts only while the snapshot bytes in flight, its own included, stay within
/// `budget`, except that one starts whenever none is in flight (so a snapshot larger than
/// the budget restores alone, and every tenant is restored).
struct RestorePlan {
    let width: Int
    let budget: Int
    private(set) var inFlight = 0
    private(set) var bytes = 0
    /// The most in flight at once, and the most bytes (tests check the bounds).
    private(set) var mostInFlight = 0
    private(set) var mostBytes = 0

    init(width: Int, budget: Int) {
        self.width = max(1, width)
        self.budget = budget
    }

    func canStart(_ weight: Int) -> Bool {
        inFlight == 0 || (inFlight < width && bytes + weight <= budget)
    }

    mutating func start(_ weight: Int) {
        inFlight += 1
        bytes += weight
        mostInFlight = max(mostInFlight, inFlight)
        mostBytes = max(mostBytes, bytes)
    }

    mutating func finish(_ weight: Int) {
        inFlight -= 1
        bytes -= weight
    }
}

/// The metrics registry a server reports into (served at `/metrics`).
public struct ServerMetricsRegistry: Sendable {
    let metrics: ServerMetrics
    /// A registry of its own (the server's counters, exported at `/metrics`).
    public init() { metrics = ServerMetrics() }

    /// Makes this registry the process's metrics backend, so Hummingbird's request counters
    /// and latency histograms are served at `/metrics` too. Once per process.
    public func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
    }
}

/// Ticks, webhooks and snapshots; on graceful shutdown it closes every event stream and
/// saves a snapshot of every tenant.
struct BackgroundService: Service {
    let tenants: [Tenant]
    let dispatchers: [WebhookDispatcher]
    let snapshotEvery: Int
    let logger: Logger

    func run() async throws {
        // A connection that cannot be made fails the attempt at once: the dispatcher's own
        // backoff retries it. (The client's default retried until the attempt's 10 s timeout,
        // so a receiver refusing connections took 144 s to dead-letter a batch, reported as
        // "no complete answer within 10.0 s"; a helper's find.)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let tenants = self.tenants, dispatchers = self.dispatchers, every = snapshotEvery
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for t in tenants { group.addTask { await t.runTicks() } }
                for d in dispatchers { group.addTask { await d.run(client: client) } }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        for t in tenants { await t.snapshotIfDue(every: every) }
                    }
                }
            }
        }
        for t in tenants {
            t.hub.finishAll()
            await t.snapshotIfDue(force: true, every: snapshotEvery)
        }
        try? await client.shutdown()
        logger.info("stopped: snapshots saved")
    }
}

extension TriggerKitServer {
    /// HTTP/1.1 with the tuning's idle timeout, for the main port and the admin port alike.
    static func httpServer(_ tuning: Tuning) -> HTTPServerBuilder {
        .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(tuning.idleTimeout / .nanoseconds(1)))))
    }
}

/// A listener whose failure names it (a port taken: `bind(): Address already in use` named
/// neither port, with two).
struct NamedListener<Inner: Service>: Service {
    let name: String
    let inner: Inner

    func run() async throws {
        do {
            try await inner.run()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ListenerError(listener: name, underlying: error)
        }
    }
}

/// A listener's failure, naming it.
struct ListenerError: Error, CustomStringConvertible {
    var listener: String
    var underlying: any Error
    var description: String { "\(listener): \(underlying)" }
}
