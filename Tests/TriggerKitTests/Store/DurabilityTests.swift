import Foundation
import Testing
@_spi(StreamFastPath) @_spi(Engine) @testable import TriggerKit
@_spi(StreamFastPath) @_spi(Engine) @testable import TriggerKitStore

/// Issue 8: `run --state` never records an unwritten event as delivered, never resumes on
/// other input or options, never lets two writers interleave, and its readers write nothing.
@Suite("Durable state: locks, resume checks, read-only readers")
struct DurabilityTests {
    @Test func aSecondWriterIsRefusedNamingTheHolder() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let first = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        do {
            _ = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            Issue.record("two writers on one state file")
        } catch {
            guard case .locked(_, let holder) = error as? StateStoreError else { Issue.record("\(error)"); return }
            #expect(holder.contains("pid \(getpid())"))
        }
        _ = first
    }

    @Test func aResumeWithOtherOptionsIsRefusedNamingThem() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        do {
            let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            _ = try feedDurable(run, storeTestStream(count: 20, seed: 2)[...])
            try run.commit()
        }
        var options = StreamOptions()
        options.margin = 5
        do {
            _ = try DurableRun(evaluator: makeEvaluator(options: options), store: StateStore(path: tmp.path))
            Issue.record("resumed with another margin")
        } catch {
            guard case .optionsChanged(_, let diff) = error as? StateStoreError else { Issue.record("\(error)"); return }
            #expect(diff.count == 1)
            #expect(diff.first?.hasPrefix("margin") == true)
        }
        // Said as the command line says it: --catch-up coalesce, not the engine's names.
        var coalescing = StreamOptions()
        coalescing.catchUp = .coalesced
        coalescing.deviceSettings["alex"] = NotificationSettings(authorizationStatus: .denied)
        do {
            _ = try DurableRun(evaluator: makeEvaluator(options: coalescing), store: StateStore(path: tmp.path))
            Issue.record("resumed with another catch-up")
        } catch {
            guard case .optionsChanged(_, let diff) = error as? StateStoreError else { Issue.record("\(error)"); return }
            #expect(diff == ["settings: the --settings file or its devices' settings differ", "catch-up: every then, coalesce now"])
        }
    }

    /// Feeds lines through the byte API as `triggerkit run` does (digest included).
    static func feedBytes(_ run: DurableRun, _ lines: ArraySlice<String>) throws {
        var events: [FiredEvent] = []
        for line in lines {
            var l = line
            l.withUTF8 { b in
                do throws(StreamLineError) { try run.process(lineBytes: b, into: &events) } catch { run.skipLine(bytes: b) }
            }
        }
    }

    /// Hands lines a saved state already covers to ``DurableRun/resume(lineBytes:)``.
    static func resume(_ run: DurableRun, _ lines: ArraySlice<String>) throws {
        for line in lines {
            var l = line
            var failure: StateStoreError?
            l.withUTF8 { b in
                do throws(StateStoreError) { try run.resume(lineBytes: b) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    @Test func aResumeOnOtherInputIsRefused() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let lines = storeTestStream(count: 50, seed: 5)
        do {
            let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            try Self.feedBytes(run, lines[..<30])
            try run.commit()
        }
        // Same input: accepted.
        do {
            let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            #expect(run.resumePosition == 30)
            try Self.resume(run, lines[..<30])
            try Self.feedBytes(run, lines[30...])
            try run.finishInput()
            try run.commit()
        }
        // Other input (one line changed inside the consumed prefix): refused.
        var other = lines
        other[3] = other[4]
        let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        var refused = false
        do {
            try Self.resume(run, other[...])
        } catch {
            guard case .inputChanged? = error as? StateStoreError else { Issue.record("\(error)"); return }
            refused = true
        }
        #expect(refused)
    }

    @Test func aShorterInputThanConsumedIsRefused() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let lines = storeTestStream(count: 40, seed: 6)
        do {
            let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            try Self.feedBytes(run, lines[...])
            try run.commit()
        }
        let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        try Self.resume(run, lines[..<10])
        #expect(throws: StateStoreError.self) { try run.finishInput() }
    }

    @Test func readersWriteNothingAndCreateNoFiles() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let lines = storeTestStream(count: 300, seed: 7)
        do {
            let run = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
            try Self.feedBytes(run, lines[...])
            try run.commit()
            try run.store.closeCleanly()
        }
        let dir = tmp.directory.path
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: tmp.path))
        #expect(before == ["state.db"] || before.allSatisfy { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        let reader = try StateStore(readingAt: tmp.path)
        #expect(try !reader.pendingRequestsJSON().isEmpty)
        #expect(try !reader.deliveredLog().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tmp.path)) == bytes)
        // A reader beside a writer that holds the lock reads its committed state.
        let writer = try DurableRun(evaluator: makeEvaluator(), store: StateStore(path: tmp.path))
        #expect(try StateStore(readingAt: tmp.path).inputPosition() == writer.resumePosition)
    }
}

/// The same promises through the real binary.
@Suite("run --state: output failures, concurrent writers", .serialized)
struct DurableCLITests {
    static func runBinary(_ args: [String], input: String, stdout: FileHandle?, wait: Bool = true) throws -> (Process, Pipe) {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        let err = Pipe()
        p.standardError = err
        if let stdout { p.standardOutput = stdout }
        try p.run()
        if wait { p.waitUntilExit() }
        return (p, err)
    }

    static func files(_ dir: TempStorePath) throws -> (requests: String, input: String) {
        let requests = dir.directory.appendingPathComponent("requests.ndjson").path
        let input = dir.directory.appendingPathComponent("fixes.ndjson").path
        try storeTestRequests.write(toFile: requests, atomically: true, encoding: .utf8)
        try (storeTestStream(count: 20_000, seed: 11).joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        return (requests, input)
    }

    static func delivered(_ state: String) throws -> [String] {
        let binary = try #require(KillNineTests.binary)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["delivered", "--state", state]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func stdoutOnAFullDiskRecordsNothingAndFails() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let (requests, input) = try Self.files(dir)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let (p, err) = try Self.runBinary(["run", "--requests", requests, "--state", dir.path], input: input, stdout: full)
        #expect(p.terminationStatus == 3)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("writing events to standard output failed"))
        // Nothing reached stdout, so nothing may be recorded as delivered.
        #expect(try Self.delivered(dir.path).isEmpty)
    }

    @Test func aPipeClosedMidwayRecordsOnlyWhatWasRead() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let (requests, input) = try Self.files(dir)
        let pipe = Pipe()
        let (p, _) = try Self.runBinary(["run", "--requests", requests, "--state", dir.path], input: input,
                                        stdout: pipe.fileHandleForWriting, wait: false)
        try pipe.fileHandleForWriting.close()
        // Read a little, then close the reading end while the run is still writing. What the
        // pipe held unread when it closed (up to its capacity, F_GETPIPE_SZ) had been written:
        // the run may have recorded it. (Comparing the records with what was read alone
        // failed now and then under load, when a commit followed writes the reader had not
        // read yet.)
        let capacity = Int(fcntl(pipe.fileHandleForReading.fileDescriptor, 1032 /* F_GETPIPE_SZ */))
        let got = pipe.fileHandleForReading.readData(ofLength: 20_000)
        try pipe.fileHandleForReading.close()
        p.waitUntilExit()
        let recorded = try Self.delivered(dir.path)
        // Exit 0: it wrote everything before the pipe closed (all of it taken by write(2),
        // maybe not all read); else it stopped with status 3.
        #expect(p.terminationStatus == 0 || p.terminationStatus == 3)
        // What was recorded is the start of the run's output, in order, and no longer than
        // what was read plus what the pipe could hold unread: nothing that write(2) did not
        // take is recorded.
        let whole = dir.directory.appendingPathComponent("whole.ndjson")
        FileManager.default.createFile(atPath: whole.path, contents: nil)
        let (q, _) = try Self.runBinary(["run", "--requests", requests], input: input, stdout: FileHandle(forWritingTo: whole))
        #expect(q.terminationStatus == 0)
        let full = try String(contentsOf: whole, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(recorded == Array(full.prefix(recorded.count)), "the records are not the start of the output")
        if p.terminationStatus == 0 { #expect(recorded == full) }
        let recordedBytes = recorded.reduce(0) { $0 + $1.utf8.count + 1 }
        #expect(capacity > 0)
        #expect(recordedBytes <= got.count + capacity, "\(recordedBytes) bytes recorded, \(got.count) read, the pipe holds \(capacity)")
        #expect(Set(recorded).count == recorded.count)
    }

    /// `--strict` stops at a malformed line and leaves it unconsumed; the state's counters
    /// must not count it either: each rerun counted it once more ("errors 2", then 3).
    @Test func aStrictRerunCountsTheBadLineOnce() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let (requests, _) = try Self.files(dir)
        var lines = storeTestStream(count: 400, seed: 12)
        lines[199] = "garbage"
        let input = dir.directory.appendingPathComponent("bad.ndjson").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        func summary(_ args: [String]) throws -> (status: Int32, line: String) {
            let (p, err) = try Self.runBinary(args, input: input, stdout: FileHandle.nullDevice)
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (p.terminationStatus, text.split(separator: "\n").last { $0.hasPrefix("lines ") }.map(String.init) ?? "")
        }
        let strict = ["run", "--strict", "--requests", requests, "--state", dir.path]
        let first = try summary(strict), second = try summary(strict)
        #expect(first.status == 1 && second.status == 1)
        #expect(first.line.contains("errors 1,"), "\(first.line)")
        #expect(second.line == first.line, "a rerun's summary: \(second.line), the first: \(first.line)")
        // Then without --strict: the same summary as one run without a state file.
        let resumed = try summary(["run", "--requests", requests, "--state", dir.path])
        let once = try summary(["run", "--requests", requests])
        #expect(resumed.status == 0)
        #expect(resumed.line == once.line, "resumed: \(resumed.line), once: \(once.line)")
    }

    /// A live input that pauses: what its lines wrote is committed while it waits (it was
    /// committed only when more input came, so a crash in the pause wrote it all again).
    @Test(.timeLimit(.minutes(1))) func aPausedPipeHasItsOutputRecorded() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let (requests, _) = try Self.files(dir)
        let binary = try #require(KillNineTests.binary)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", "--requests", requests, "--state", dir.path]
        let feed = Pipe(), out = Pipe()
        p.standardInput = feed
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        feed.fileHandleForWriting.write(Data((storeTestStream(count: 300, seed: 13).joined(separator: "\n") + "\n").utf8))
        // Read the events as they come (the run flushes per chunk), then wait for the records.
        let reader = out.fileHandleForReading
        var written = 0
        var recorded = 0
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            written = (try? Self.delivered(dir.path).count) ?? 0
            if written > 0 { recorded = written; break }
        }
        try feed.fileHandleForWriting.close()
        let all = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").count
        p.waitUntilExit()
        #expect(recorded > 0, "nothing recorded while the input paused")
        #expect(recorded == all, "recorded during the pause: \(recorded), written in all: \(all)")
    }

    @Test func aSecondRunOnTheSameStateIsRefused() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let (requests, _) = try Self.files(dir)
        // The first run reads from a pipe we keep open: it holds the lock until we close it.
        let feed = Pipe()
        let binary = try #require(KillNineTests.binary)
        let first = Process()
        first.executableURL = URL(fileURLWithPath: binary)
        first.arguments = ["run", "--requests", requests, "--state", dir.path]
        first.standardInput = feed
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }
        feed.fileHandleForWriting.write(Data(#"{"t": "2026-11-27T09:00:00Z"}"#.utf8 + [0x0A]))
        // Wait until it holds the lock (its holder row is written right after). Generous: a
        // loaded CI machine running the other suites in parallel can take seconds to start it.
        var locked = false
        let deadline = Date().addingTimeInterval(60)
        while !locked && Date() < deadline {
            usleep(20_000)
            locked = (try? StateStore(readingAt: dir.path).dbQueue.read { db in
                try String.fetchOne(db, sql: "SELECT holder FROM meta WHERE id = 1") }) ?? nil != nil
        }
        try #require(locked, "the first run never took the lock")
        let empty = dir.directory.appendingPathComponent("empty").path
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        let (second, err) = try Self.runBinary(["run", "--requests", requests, "--state", dir.path], input: empty, stdout: FileHandle.nullDevice)
        #expect(second.terminationStatus == 2)
        #expect(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("in use by another run (pid \(first.processIdentifier)"))
        try feed.fileHandleForWriting.close()
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
    }
}

@Suite("Delivered log: eventIds stored implicitly")
struct DeliveredLogTests {
    @Test func stripThenRestoreGivesBackTheLinesWritten() {
        var w = JSONWriter()
        let events = [
            DeliveredEvent(eventId: EventID.make(identifier: "a\"\n\u{1F}", device: "d\u{E9}", event: "enter", date: 1_795_770_000_123),
                           identifier: "a\"\n\u{1F}", date: 1_795_770_000_123, trigger: .location, event: .enter, device: "d\u{E9}",
                           region: "r", presentation: [.alert]),
            DeliveredEvent(eventId: EventID.make(identifier: "t", device: nil, event: "timeInterval", date: -5),
                           identifier: "t", date: -5, trigger: .timeInterval, event: nil, device: nil, region: nil, presentation: []),
        ]
        for e in events { e.write(to: &w) }
        let stripped = DeliveredLog.strip(w.bytes)
        #expect(stripped.count == w.bytes.count - 2 * (DeliveredLog.suffixLength - 1))  // `"}` closes the line again
        #expect(DeliveredLog.restore(stripped) == w.bytes)
        // A log written with its eventIds (before schema 2) reads back unchanged.
        #expect(DeliveredLog.restore(w.bytes) == w.bytes)
    }
}
