import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

/// The contract's crash promise against the real binary: `triggerkit run --state` killed
/// with SIGKILL at random moments and restarted with the same state and full input emits
/// every event of an uninterrupted run at least once and nothing else. (The exact resume
/// point is checked in-process by ``DurableRunTests``; `make crash-test` runs the
/// 1,000,000-line version.)
@Suite("kill -9 and restart", .serialized)
struct KillNineTests {
    /// The debug binary `swift test` builds next to the test bundle.
    static var binary: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent(".build/debug/triggerkit").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Runs the binary; with `killAfter`, SIGKILLs it after that many seconds. Returns stdout.
    static func run(_ binary: String, _ args: [String], input: String, killAfter: Double? = nil) throws -> String {
        try runReporting(binary, args, input: input, killAfter: killAfter).out
    }

    /// ``run(_:_:input:killAfter:)``, also telling whether the process really died of the
    /// SIGKILL (it may have finished first). `killAfterBytes`: SIGKILL it as soon as it has
    /// written that much (mid-run by what it did, not by a clock that a loaded machine
    /// makes meaningless).
    static func runReporting(_ binary: String, _ args: [String], input: String, killAfter: Double? = nil,
                             killAfterBytes: Int? = nil) throws -> (out: String, killed: Bool) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        if let killAfter {
            DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        }
        var data = Data()
        while true {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data += chunk
            if let limit = killAfterBytes, data.count >= limit, p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        p.waitUntilExit()
        let killed = p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL
        return (String(decoding: data, as: UTF8.self), killed)
    }

    @Test func killedRunsEmitEveryEventAtLeastOnceAndNothingElse() throws {
        let binary = try #require(Self.binary, "the triggerkit binary is built by `swift test`")
        let dir = TempStorePath()
        defer { dir.cleanup() }
        let requests = dir.directory.appendingPathComponent("requests.ndjson").path
        let input = dir.directory.appendingPathComponent("fixes.ndjson").path
        try storeTestRequests.write(toFile: requests, atomically: true, encoding: .utf8)
        try (storeTestStream(count: 60_000, seed: 9).joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)

        let reference = try Self.run(binary, ["run", "--requests", requests], input: input)
        let referenceLines = reference.split(separator: "\n").map(String.init)
        #expect(referenceLines.count > 1000)

        var collected: [String] = []
        var rng = SeededGenerator(seed: 4)
        var killed = 0
        // Runs killed once they have written a random amount (up to a tenth of the whole
        // output), until one finishes; the last attempt is not killed.
        for attempt in 0..<12 {
            let limit: Int? = attempt < 11 ? 1 + Int(Double(reference.utf8.count / 10) * rng.unit()) : nil
            let run = try Self.runReporting(binary, ["run", "--requests", requests, "--state", dir.path], input: input, killAfterBytes: limit)
            // A killed process may leave its last line unfinished: only complete lines count.
            var lines = run.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeLast()
            collected += lines
            if run.killed { killed += 1 } else { break }
        }
        // What really happened, not what was planned: enough runs died mid-way for the test
        // to mean something.
        #expect(killed >= 3, "only \(killed) runs were killed before one finished")
        let known = Set(referenceLines)
        let seen = Set(collected)
        #expect(known.subtracting(seen).isEmpty, "events lost: \(known.subtracting(seen).prefix(3))")
        #expect(seen.subtracting(known).isEmpty, "events invented: \(seen.subtracting(known).prefix(3))")
        // What survived in the state file: every event recorded exactly once, in the
        // uninterrupted run's order, and nothing pending that the reference finished.
        let delivered = try Self.run(binary, ["delivered", "--state", dir.path], input: input)
        #expect(delivered.split(separator: "\n").map(String.init) == referenceLines)
    }
}
