import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
@_spi(Engine) import TriggerKit
import TriggerKitServer

/// Issue 10: the real `triggerkit serve` binary, killed with SIGKILL while fixes stream in,
/// then restarted on the same data directory: every acknowledged fix was applied, no event
/// is lost or duplicated, SSE resumes from an event number, and once the client re-sends
/// what was not acknowledged the events are exactly `run`'s.
@Suite("serve: kill -9 and restart")
struct ServeKillNineTests {
    static var binary: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent(".build/debug/triggerkit").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// A running server process and its port.
    final class Server: Sendable {
        let process: Process
        let port: Int
        /// Its log so far.
        private final class Log: Sendable { let text = Mutex("") }
        private let seen = Log()
        var log: String { seen.text.withLock { $0 } }

        /// The admin port, when started with one (`--admin-port 0` among `extra`).
        let adminPort: Int?

        /// `openFiles`: run under that limit of open files (soft and hard); `extra`: more options.
        init(binary: String, directory: String, openFiles: Int? = nil, extra: [String] = []) throws {
            let p = Process()
            let arguments = ["serve", "--port", "0", "--data-dir", directory, "--clock", "stream", "--start", Serve.t0,
                             "--tenant", "acme=\(tokenHash(Serve.tokenA))", "--snapshot-every", "2000"] + extra
            if let openFiles {
                p.executableURL = URL(fileURLWithPath: "/bin/sh")
                p.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", binary] + arguments
            } else {
                p.executableURL = URL(fileURLWithPath: binary)
                p.arguments = arguments
            }
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            let seen = self.seen
            err.fileHandleForReading.readabilityHandler = { h in
                let d = h.availableData
                seen.text.withLock { $0 += String(decoding: d, as: UTF8.self) }
            }
            try p.run()
            process = p
            var port: Int?, adminPort: Int?
            let wantsAdmin = extra.contains("--admin-port")
            for _ in 0..<600 where port == nil || (wantsAdmin && adminPort == nil) {
                Thread.sleep(forTimeInterval: 0.05)
                let text = seen.text.withLock { $0 }
                if let r = text.range(of: "listening on http://127.0.0.1:") {
                    port = Int(text[r.upperBound...].prefix { $0.isNumber })
                }
                if let r = text.range(of: "admin (healthz, metrics) on http://127.0.0.1:") {
                    adminPort = Int(text[r.upperBound...].prefix { $0.isNumber })
                }
            }
            guard let port, !wantsAdmin || adminPort != nil else {
                p.terminate()
                throw CancellationError()
            }
            self.port = port
            self.adminPort = adminPort
        }

        func kill9() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        func call(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) async throws -> (Int, String) {
            var r = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            r.httpMethod = method
            r.setValue("Bearer \(Serve.tokenA)", forHTTPHeaderField: "Authorization")
            for (k, v) in headers { r.setValue(v, forHTTPHeaderField: k) }
            r.httpBody = body.map { Data($0.utf8) }
            r.timeoutInterval = 30
            let (data, response) = try await URLSession.shared.data(for: r)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
    }

    @Test func killedDuringIngestionThenRestartedLosesNothing() async throws {
        let binary = try #require(Self.binary, "the triggerkit binary is built by `swift test`")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-kill-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let requests = (0..<20).map { i in
            i % 4 == 0 ? Sample.every("t\(i)", 60 * (1 + i % 3)) : Sample.circle("c\(i)", lat: 40.7 + Double(i % 5) * 0.0008, radius: 80)
        }
        var rng = SeededGenerator(seed: 42)
        var t = Timestamp.parseMillis(Serve.t0)! + 1000
        let batches: [[String]] = (0..<40).map { _ in
            (0..<250).map { _ in
                t += Int64(Int.random(in: 1...3, using: &rng)) * 1000
                let lat = 40.7 + Double(Int.random(in: 0..<8, using: &rng)) * 0.0006
                return #"{"device":"d\#(Int.random(in: 0..<20, using: &rng))","t":"\#(Timestamp.string(millis: t))","lat":\#(lat),"lon":-74}"#
            }
        }
        let first = try Server(binary: binary, directory: dir)
        for r in requests { #expect(try await first.call("POST", "/v1/requests", body: r).0 == 201) }
        // Post batches one after another; SIGKILL lands while batch 12 is in flight.
        var acknowledged = 0
        for (i, b) in batches.enumerated() {
            if i == 12 {
                let body = b.joined(separator: "\n")
                let inFlight = Task { try? await first.call("POST", "/v1/fixes", body: body) }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...3, using: &rng)))
                first.kill9()
                if let (status, _) = await inFlight.value, status == 200 { acknowledged = 13 }
                break
            }
            let (status, _) = try await first.call("POST", "/v1/fixes", body: b.joined(separator: "\n"))
            #expect(status == 200)
            acknowledged = i + 1
        }
        #expect(acknowledged >= 12)

        let second = try Server(binary: binary, directory: dir)
        defer { second.kill9() }
        let (status, stream) = try await second.call("GET", "/v1/events?after=0&follow=false")
        #expect(status == 200)
        let recovered = sseEvents(stream)
        let eventIds = recovered.compactMap { (try? JSONValue.parse($0.data))?.objectValue?["eventId"]?.stringValue }
        #expect(Set(eventIds).count == eventIds.count, "an event was recorded twice")
        let withAcknowledged = try runReference(requests: requests, lines: Array(batches.prefix(acknowledged).joined()))
        let withInFlight = try runReference(requests: requests, lines: Array(batches.prefix(13).joined()))
        #expect(withAcknowledged.count > 50)
        let got = recovered.map(\.data).sorted()
        // The in-flight batch is one transaction: applied whole or not at all.
        #expect(got == withAcknowledged.sorted() || got == withInFlight.sorted())
        #expect(recovered.map(\.id) == Array(1...Int64(recovered.count)))

        // Resume from an event number: exactly the later ones.
        let k = recovered.count / 2
        let (_, rest) = try await second.call("GET", "/v1/events?follow=false", headers: ["Last-Event-ID": "\(k)"])
        #expect(sseEvents(rest).map(\.id) == recovered.map(\.id).filter { $0 > Int64(k) })

        // The client re-sends what was not acknowledged, then the rest: the events are
        // exactly run's over the whole input (a re-sent fix is stale: no second event).
        for b in batches[acknowledged...] {
            let (s, _) = try await second.call("POST", "/v1/fixes", body: b.joined(separator: "\n"))
            #expect(s == 200)
        }
        let (_, all) = try await second.call("GET", "/v1/events?after=0&follow=false")
        let everything = try runReference(requests: requests, lines: Array(batches.joined()))
        #expect(sseEvents(all).map(\.data).sorted() == everything.sorted())
    }
}
