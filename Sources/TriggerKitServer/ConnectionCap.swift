#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HummingbirdCore
import Logging

/// The most connections `serve` holds at once: its open-file limit less a reserve for its own
/// files (each tenant's SQLite files, webhooks' connections, the event loops'). At the cap it
/// stops accepting; further clients wait in the listening socket's backlog (or are refused by
/// the kernel when that is full) until a connection closes.
///
/// Without it the connections took every file descriptor: the accept loop then spun a core
/// on `EMFILE`, `/healthz` went unanswered, and a runtime thread that could not open a file
/// crashed the process (`SIGILL` in libdispatch, every tenant down), found by two helpers.
struct ConnectionCap: AvailableConnectionsDelegate {
    let limit: Int
    private var open = 0
    private var full = false
    private let logger: Logger
    /// Which port's connections (named in the log).
    private let listener: String

    init(limit: Int, logger: Logger, listener: String = "main") {
        self.limit = Swift.max(1, limit)
        self.logger = logger
        self.listener = listener
    }

    /// Files kept for the server's own use: 128, 8 more per tenant and per webhook, and the
    /// admin port's connections (`admin`).
    static func reserve(tenants: Int, webhooks: Int, admin: Int = 0) -> Int { 128 + 8 * (tenants + webhooks) + admin }

    /// The cap for the process's open-file limit (its soft limit, at most 1,048,576): that
    /// less ``reserve(tenants:webhooks:admin:)``, at least ``minimumConnections`` (the server
    /// refuses to start with fewer: `TriggerKitServer.checkOpenFiles`).
    static func limit(tenants: Int, webhooks: Int, admin: Int = 0) -> Int {
        Swift.max(minimumConnections, (OpenFileLimit.soft ?? 1024) - reserve(tenants: tenants, webhooks: webhooks, admin: admin))
    }

    static let minimumConnections = 16

    mutating func connectionOpened() {
        open += 1
        if open >= limit && !full {
            full = true
            logger.notice("connections at the limit: new ones wait until one closes",
                          metadata: ["listener": "\(listener)", "connections": "\(open)", "limit": "\(limit)"])
        }
    }

    mutating func connectionClosed() {
        open -= 1
        if full && open < limit * 3 / 4 { full = false }
    }

    func isAcceptingNewConnections() -> Bool { open < limit }
}

/// The process's limit of open files (`RLIMIT_NOFILE`), read and raised the same way on Linux
/// and macOS.
package enum OpenFileLimit {
    #if canImport(Glibc)
    private static let resource = Int32(RLIMIT_NOFILE.rawValue)
    /// The most the soft limit is raised to.
    private static let ceiling: rlim_t = 1 << 20
    #else
    private static let resource = RLIMIT_NOFILE
    /// Darwin refuses a soft limit above `OPEN_MAX` whatever the hard limit says.
    private static let ceiling: rlim_t = rlim_t(OPEN_MAX)
    #endif

    /// The soft limit, at most 1,048,576 (`RLIM_INFINITY` is the largest value); nil when it
    /// cannot be read.
    package static var soft: Int? {
        var l = rlimit()
        guard getrlimit(resource, &l) == 0 else { return nil }
        return Int(Swift.min(l.rlim_cur, 1 << 20))
    }

    /// Raises the soft limit to the hard one (at most 1,048,576; on Darwin at most `OPEN_MAX`).
    package static func raiseToHard() {
        var l = rlimit()
        guard getrlimit(resource, &l) == 0 else { return }
        let wanted = Swift.min(l.rlim_max, ceiling)
        guard l.rlim_cur < wanted else { return }
        l.rlim_cur = wanted
        _ = setrlimit(resource, &l)
    }
}
