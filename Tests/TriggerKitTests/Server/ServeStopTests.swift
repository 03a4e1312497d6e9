import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Engine) import TriggerKit
import TriggerKitServer

/// SIGTERM with an event stream whose client stopped reading while stored events were being
/// sent: the stop saved the snapshots and then waited for that client for ever (found by a
/// helper). Now a stop waits at most 10 s, then closes the connections.
@Suite("serve: a stop does not wait on a client")
struct ServeStopTests {
    /// A connection that sends one request and then never reads.
    static func stalledRequest(port: Int, _ text: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CancellationError() }
        var rcv: Int32 = 4096  // a small receive buffer: the server's writes back up soon
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, socklen_t(MemoryLayout<Int32>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { close(fd); throw CancellationError() }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    @Test(.timeLimit(.minutes(2)))
    func aStopClosesAStreamWhoseClientStoppedReading() async throws {
        guard let binary = ServeKillNineTests.binary else {
            Issue.record("no .build/debug/triggerkit: build the package first")
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-stop-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServeKillNineTests.Server(binary: binary, directory: dir)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        // 3,000 events of about 2 KB (an identifier and a device of 1,000 bytes each): far
        // more than the socket buffers hold.
        let id = "big-" + String(repeating: "i", count: 1_000), device = String(repeating: "d", count: 1_000)
        let request = #"{"identifier":"\#(id)","device":"\#(device)","content":{"title":"t"},"addedAt":"\#(Serve.t0)","trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#
        #expect(try await server.call("POST", "/v1/requests", body: request).0 == 201)
        #expect(try await server.call("POST", "/v1/clock", body: #"{"t":"2026-11-25T10:00:00Z"}"#).0 == 200)
        let fd = try Self.stalledRequest(port: server.port, "GET /v1/events?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Serve.tokenA)\r\n\r\n")
        defer { close(fd) }
        try await Task.sleep(for: .seconds(1))
        let sent = Date()
        server.process.terminate()  // SIGTERM
        for _ in 0..<600 where server.process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!server.process.isRunning, "still running \(Date().timeIntervalSince(sent)) s after SIGTERM")
        #expect(Date().timeIntervalSince(sent) < 25)
        if !server.process.isRunning { #expect(server.process.terminationStatus == 0) }
    }

    /// A connection that sends nothing, or a request head that never ends, held a file
    /// descriptor for ever (a helper held 200 for minutes). Closed after the idle timeout; a
    /// request being answered (an event stream) is not idle and stays open.
    @Test(.timeLimit(.minutes(1)))
    func idleConnectionsAreClosedAndEventStreamsStay() async throws {
        let serve = Serve()
        defer { serve.remove() }
        var tuning = TriggerKitServer.Tuning()
        tuning.idleTimeout = .seconds(1)
        try await serve.run(tuning: tuning) { client, _ in
            let port = try #require(client.port)
            let bare = try Self.stalledRequest(port: port, "")
            let trickle = try Self.stalledRequest(port: port, "GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let stream = try Self.stalledRequest(port: port, "GET /v1/events?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Serve.tokenA)\r\n\r\n")
            defer { close(bare); close(trickle); close(stream) }
            try await Task.sleep(for: .seconds(3))
            // recv without waiting: 0 is the peer's close; -1 (EAGAIN) is open with nothing to
            // read; > 0 is open with data.
            func state(_ fd: Int32) -> Int {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var last = -1
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if n <= 0 { return n == 0 ? 0 : (last > 0 ? 1 : -1) }
                    last = n
                }
            }
            #expect(state(bare) == 0, "a connection that sent nothing is still open")
            #expect(state(trickle) == 0, "a request head that never ended is still open")
            #expect(state(stream) != 0, "an event stream was closed as idle")
        }
    }
}
