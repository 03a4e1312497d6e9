import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HummingbirdTesting
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// Request bodies are bounded in size, time and, all of a tenant's together, memory; a refused
/// body is not read on (``Uploads``). A helper found a body trickled one byte a minute held
/// its connection for ever, a hundred bodies held one byte short of the limit 830 MB, a
/// declared length past the limit answered only after 8 MB had come and then read on to the
/// declared 2^62, and an unauthenticated body read to its end.
@Suite("serve: request bodies and connections")
struct ServeUploadTests {
    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Blocking socket reads, on a thread of their own: on the cooperative pool they held
    /// its threads (two here), and the in-process server, which answers on them, with them.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in Thread { c.resume(returning: work()) }.start() }
    }

    static func answer(_ fd: Int32, within seconds: Int = 5) async -> (status: Int, head: String, body: String, rest: String)? {
        await offPool { readAnswer(fd, within: seconds) }
    }

    /// Whether the server closes the connection within `seconds` with nothing more said
    /// (a stray second answer followed a 413 when the connection was closed for reading
    /// while the body came: a helper's find).
    static func closed(_ fd: Int32, within seconds: Int = 5) async -> Bool {
        await offPool { readToClose(fd, within: seconds) }
    }

    /// The answer's head (status line and fields, lower-cased) and body, and what came after
    /// it in the same reads, read within `seconds`; nil if none came.
    static func readAnswer(_ fd: Int32, within seconds: Int) -> (status: Int, head: String, body: String, rest: String)? {
        var wait = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let text = String(decoding: got, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = String(text[..<end.lowerBound]).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                let body = Array(text[end.upperBound...].utf8)
                if body.count >= length {
                    let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                    return (status, head, String(decoding: body[..<length], as: UTF8.self), String(decoding: body[length...], as: UTF8.self))
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            got += buffer[0..<n]
        }
    }

    static func readToClose(_ fd: Int32, within seconds: Int) -> Bool {
        var wait = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    static func post(_ path: String, length: Int, token: String? = Serve.tokenA) -> String {
        post(path, declared: "\(length)", token: token)
    }

    static func post(_ path: String, declared length: String, token: String? = Serve.tokenA) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n"
            + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n"
    }

    /// (Lengths of 2^63 and more, up to 2^64 - 1, were read as no length and waited for: a
    /// helper's find.)
    @Test(.timeLimit(.minutes(1)), arguments: ["4611686018427387904", "9223372036854775808", "18446744073709551615"])
    func aDeclaredLengthPastTheLimitIsRefusedAtOnceAndTheBodyNotRead(_ declared: String) async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let port = try #require(c.port)
            let fd = try ServeStopTests.stalledRequest(port: port, Self.post("/v1/fixes", declared: declared))
            defer { close(fd) }
            let a = try #require(await Self.answer(fd), "no answer before the body")
            #expect(a.status == 413 && a.body.contains("payloadTooLarge"), "\(a)")
            #expect(a.head.contains("connection: close"), "\(a.head)")
            #expect(a.rest.isEmpty, "after the answer: \(a.rest)")
            #expect(await Self.closed(fd), "the connection stays open to read the declared 2^62 bytes")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anUnauthenticatedBodyIsNotRead() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let port = try #require(c.port)
            let fd = try ServeStopTests.stalledRequest(port: port, Self.post("/v1/requests", length: 10_000_000, token: nil))
            defer { close(fd) }
            let a = try #require(await Self.answer(fd))
            #expect(a.status == 401 && a.head.contains("connection: close"), "\(a)")
            #expect(a.rest.isEmpty, "after the answer: \(a.rest)")
            #expect(await Self.closed(fd), "the connection stays open to read 10 MB for nobody")
            // Without a body, a refused call keeps its connection (nothing is left to read).
            #expect(try await c.call(.get, "/v1/stats", token: nil).status == 401)
        }
    }

    /// A request sent behind a refused body on the same connection is not served: it was,
    /// after an answer that said `Connection: close` (a helper moved a tenant's clock so).
    @Test(.timeLimit(.minutes(1)))
    func aRequestBehindARefusedBodyIsNotServed() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let port = try #require(c.port)
            let later = #"{"t":"2027-01-01T00:00:00Z"}"#
            let fd = try ServeStopTests.stalledRequest(port: port, Self.post("/v1/clock", length: 2, token: nil) + "{}"
                                                       + Self.post("/v1/clock", length: later.utf8.count) + later)
            defer { close(fd) }
            let a = try #require(await Self.answer(fd))
            #expect(a.status == 401 && a.head.contains("connection: close"), "\(a)")
            #expect(a.rest.isEmpty, "after the answer: \(a.rest)")
            #expect(await Self.closed(fd))
            let stats = try await c.call(.get, "/v1/stats")
            #expect(stats.json?.objectValue?["clock"] == .string(Serve.t0), "\(stats.body)")
        }
    }

    /// A declared body past the limit is refused at once on a route that reads none too: it
    /// was read to its declared end (a reviewer's find).
    @Test(.timeLimit(.minutes(1)))
    func aDeclaredBodyPastTheLimitIsRefusedOnEveryRoute() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let port = try #require(c.port)
            let fd = try ServeStopTests.stalledRequest(
                port: port, "GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(1 << 62)\r\nAuthorization: Bearer \(Serve.tokenA)\r\n\r\n")
            defer { close(fd) }
            let a = try #require(await Self.answer(fd))
            #expect(a.status == 413 && a.body.contains("payloadTooLarge") && a.head.contains("connection: close"), "\(a)")
            #expect(await Self.closed(fd))
            // Outside /v1 no route takes a body: `GET /healthz` read one on at full speed.
            let health = try ServeStopTests.stalledRequest(
                port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(1 << 62)\r\n\r\n")
            defer { close(health) }
            let h = try #require(await Self.answer(health))
            #expect(h.status == 413 && h.body.contains("takes no body") && h.head.contains("connection: close"), "\(h)")
            #expect(await Self.closed(health))
            #expect(try await c.call(.get, "/healthz", token: nil).status == 200)
        }
    }

    /// A body that stops coming gets its 408 before the connection is closed as idle: the two
    /// timeouts were equal, and the idle one, started earlier, closed it without an answer (a
    /// reviewer's find).
    @Test func theBodyTimeoutIsShorterThanTheIdleOne() {
        #expect(TriggerKitServer.Tuning().bodyTimeout < TriggerKitServer.Tuning().idleTimeout)
    }

    @Test(.timeLimit(.minutes(1)))
    func aBodyThatDoesNotArriveInTimeIsRefused() async throws {
        let serve = Serve()
        defer { serve.remove() }
        var tuning = TriggerKitServer.Tuning()
        tuning.bodyTimeout = .seconds(1)
        try await serve.run(tuning: tuning) { c, state in
            let port = try #require(c.port)
            let acme = try #require(state.tenants.first { $0.id == "acme" })
            let fd = try ServeStopTests.stalledRequest(port: port, Self.post("/v1/requests", length: 100) + "[{\"ident")
            defer { close(fd) }
            let a = try #require(await Self.answer(fd), "no answer to a body that stopped coming")
            #expect(a.status == 408 && a.body.contains("bodyTimeout"), "\(a)")
            #expect(await Self.closed(fd))
            #expect(acme.uploads.inFlight == 0)
            // A body that comes in time is read as before.
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
        }
    }

    /// Under an open-file limit below its reserve plus 16 connections, `serve` refuses to
    /// start and names the limit: at `ulimit -n` 10-16 it stopped with SIGILL while starting
    /// (a helper's find), and at 100 it held 16 connections on descriptors its reserve counts.
    @Test(arguments: [16, 100, 151])
    func serveRefusesAnOpenFileLimitBelowItsReserve(limit: Int) throws {
        let binary = try #require(ServeKillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-nofile-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLIMannersTests.shell("ulimit -n \(limit) && exec timeout 30 \"$0\" serve --port 0 --data-dir \"$1\" --clock stream --tenant \"$2\"",
                                          [binary, dir, "acme=\(tokenHash(Serve.tokenA))"])
        #expect(r.status == 1, "status \(r.status): \(r.err)")
        #expect(r.err.contains("error: the open-file limit (ulimit -n) is \(limit): serve needs at least 152 here "
            + "(128, 8 per tenant and per webhook, and 16 connections)"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/acme.sqlite"), "a tenant was opened")
    }

    /// At most the open-file limit less a reserve (128, and 8 per tenant) of connections are
    /// held: one more waits in the backlog until one closes. Connections took every file
    /// descriptor, and then the accept loop spun a core, `/healthz` went unanswered, and a
    /// runtime thread that could not open a file crashed the process (two helpers' finds).
    /// (The binary, under `ulimit -n 200`: the in-process test server drops the cap.)
    @Test(.timeLimit(.minutes(1)))
    func connectionsPastTheCapWaitUntilOneCloses() async throws {
        let binary = try #require(ServeKillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cap-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServeKillNineTests.Server(binary: binary, directory: dir, openFiles: 200)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        // 200 - (128 + 8) = 64 connections; 70 opened.
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<70 { idle.append(try ServeStopTests.stalledRequest(port: server.port, "")) }
        try await Task.sleep(for: .milliseconds(500))
        let waiting = try ServeStopTests.stalledRequest(port: server.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        defer { close(waiting) }
        #expect(await Self.answer(waiting, within: 1) == nil, "a connection past the cap was served")
        #expect(server.process.isRunning)
        #expect(server.log.contains("connections at the limit"), "\(server.log)")
        for fd in idle.prefix(20) { close(fd) }
        idle.removeFirst(20)
        let served = await Self.answer(waiting, within: 10)
        #expect(served?.status == 200, "the waiting connection was not served once others closed")
    }

    /// With `--admin-port`, `/healthz` and `/metrics` are answered on a port of their own
    /// while clients hold every connection of the main port (there a probe waited in the
    /// backlog), and the admin port serves nothing else.
    @Test(.timeLimit(.minutes(1)))
    func theAdminPortAnswersWhileTheMainPortIsFull() async throws {
        let binary = try #require(ServeKillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-admin-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServeKillNineTests.Server(binary: binary, directory: dir, openFiles: 200, extra: ["--admin-port", "0"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let admin = try #require(server.adminPort)
        #expect(admin != server.port)
        // 200 - (128 + 8 + 16) = 48 connections on the main port; 60 opened.
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<60 { idle.append(try ServeStopTests.stalledRequest(port: server.port, "")) }
        try await Task.sleep(for: .milliseconds(500))
        let probe = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let waiting = try ServeStopTests.stalledRequest(port: server.port, probe)
        defer { close(waiting) }
        #expect(await Self.answer(waiting, within: 1) == nil, "the main port was not full")
        let health = try ServeStopTests.stalledRequest(port: admin, probe)
        defer { close(health) }
        let answer = await Self.answer(health, within: 5)
        #expect(answer?.status == 200)
        #expect(answer?.body.contains(#""status":"ok""#) == true, "\(String(describing: answer))")
        let metrics = try ServeStopTests.stalledRequest(port: admin, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        defer { close(metrics) }
        #expect(await Self.answer(metrics, within: 5)?.status == 200)
        // Only those two: a tenant's route is not on the admin port.
        let other = try ServeStopTests.stalledRequest(port: admin, "GET /v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Serve.tokenA)\r\n\r\n")
        defer { close(other) }
        #expect(await Self.answer(other, within: 5)?.status == 404)
        #expect(server.process.isRunning)
    }

    /// An admin port already taken stops the start with an error naming that port (it said
    /// only `bind(): Address already in use`; a reviewer's find).
    @Test(.timeLimit(.minutes(1)))
    func aTakenAdminPortIsNamed() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = 0
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
            bind(fd, p, size) == 0 && listen(fd, 1) == 0 && getsockname(fd, p, &size) == 0
        } }
        #expect(bound)
        let taken = Int(UInt16(bigEndian: a.sin_port))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-taken-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLIMannersTests.run(["serve", "--port", "0", "--admin-port", "\(taken)", "--data-dir", dir, "--clock", "stream",
                                         "--start", Serve.t0, "--tenant", "acme=\(tokenHash(Serve.tokenA))"])
        #expect(r.status == 1)
        #expect(r.err.contains("error: the admin port (127.0.0.1:\(taken)): "), "\(r.err)")
    }

    /// A server whose tenants take bodies of at most 1,000 bytes (a budget of 16,000), with
    /// the test client, the port and the tenant `acme`.
    static func withSmallBodies(_ body: @Sendable (any TestClientProtocol, Int, Tenant) async throws -> Void) async throws {
        var limits = TenantLimits()
        limits.maxBodyBytes = 1_000
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        try await serve.run { c, state in
            try await body(c, try #require(c.port), try #require(state.tenants.first { $0.id == "acme" }))
        }
    }

    /// Bodies that have arrived count until their work is done: given back on arrival, bodies
    /// waiting for a busy tenant's thread were bounded by nothing (128 bodies of 8 MiB took
    /// 5.3 GB; a reviewer's find).
    @Test(.timeLimit(.minutes(1)))
    func bodiesWaitingForTheirTenantCountToo() async throws {
        try await Self.withSmallBodies { _, port, acme in
            // The tenant's thread busy for a while: every body waits for it.
            let busy = Task { await acme.thread.run { usleep(3_000_000) } }
            try await Task.sleep(for: .milliseconds(100))
            var fds: [Int32] = []
            defer { fds.forEach { close($0) } }
            let whole = Self.post("/v1/fixes", length: 1_000) + String(repeating: " ", count: 999) + "\n"
            for _ in 0..<20 { fds.append(try ServeStopTests.stalledRequest(port: port, whole)) }
            for _ in 0..<200 where acme.uploads.inFlight < 16 * 1_000 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(acme.uploads.inFlight == 16 * 1_000)
            _ = await busy.value
            var statuses: [Int] = []
            for fd in fds { statuses.append(await Self.answer(fd)?.status ?? 0) }
            #expect(statuses.filter { $0 == 429 }.count == 4, "\(statuses)")
            #expect(statuses.filter { $0 == 200 }.count == 16, "\(statuses)")
            for _ in 0..<300 where acme.uploads.inFlight > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(acme.uploads.inFlight == 0)
        }
    }

    /// A tenant's bodies being received hold at most 16 times its `maxBodyBytes`: past that
    /// a body is refused (429 `tooManyUploads`); the budget comes back as bodies end, however
    /// they end.
    @Test(.timeLimit(.minutes(1)))
    func theBodiesOfATenantTogetherAreBounded() async throws {
        try await Self.withSmallBodies { c, port, acme in
            #expect(acme.uploads.limit == 16_000)
            // Twenty bodies of 1,000 bytes, each held one byte short.
            var fds: [Int32] = []
            defer { fds.forEach { close($0) } }
            for _ in 0..<20 {
                let fd = try ServeStopTests.stalledRequest(port: port, Self.post("/v1/fixes", length: 1_000) + String(repeating: " ", count: 999))
                fds.append(fd)
                // One at a time, so that each arrives whole before the next.
                for _ in 0..<200 where acme.uploads.inFlight % 999 != 0 || acme.uploads.inFlight / 999 < min(fds.count, 16) {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            #expect(acme.uploads.inFlight == 16 * 999)
            var refused = 0
            for fd in fds[16...] {
                if let a = await Self.answer(fd), a.status == 429, a.body.contains("tooManyUploads"), a.head.contains("connection: close"),
                   a.head.contains("retry-after: 1") { refused += 1 }
            }
            #expect(refused == 4)
            // The other tenant has its own budget.
            #expect(try await c.call(.post, "/v1/fixes", token: Serve.tokenB, body: #"{"t":"2026-11-23T08:00:01Z"}"#).status == 200)
            // Clients gone, the budget is back.
            for fd in fds { close(fd) }
            fds = []
            for _ in 0..<300 where acme.uploads.inFlight > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(acme.uploads.inFlight == 0)
            #expect(try await c.call(.post, "/v1/fixes", body: #"{"t":"2026-11-23T08:00:01Z"}"#).status == 200)
        }
    }
}
