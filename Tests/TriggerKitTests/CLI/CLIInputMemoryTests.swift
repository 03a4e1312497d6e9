import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `run`'s input memory: a chunk holds at most 65,536 lines, and a chunk grown for a long line
/// goes back to its size. Each line costs about 100 bytes beside its text, so a chunk of a
/// million blank lines held 100 MB: `run` peaked at 445 MB on 8 MiB of them, and at 2.3 GB on
/// a 16 MiB line followed by 32 MiB of them (every read after the line filled the grown
/// buffer). A helper's find.
@Suite("CLI: input memory")
struct CLIInputMemoryTests {
    /// Runs the binary with stdin from `input` and stdout to /dev/null; its exit status and
    /// peak resident memory (MiB): the largest `VmHWM` of /proc/PID/status read while it runs
    /// (the peak of its own memory since its exec; wait4's `ru_maxrss` would give the test
    /// process's, which a spawned child starts with).
    static func peak(_ args: [String], input: String) throws -> (status: Int32, mib: Int) {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        // Until it exits (a zombie's status has no memory lines; it is not reaped before).
        var kib = 0
        while let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) {
            kib = max(kib, Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0)
            usleep(2_000)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, kib / 1024)
    }

    static func file(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cli-memory-\(UUID().uuidString).ndjson").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let requests = Fixture.root.appendingPathComponent("demo/requests.ndjson").path
    static let clock = Array(#"{"t":"2026-11-23T08:03:00Z"}"#.utf8) + [0x0A]

    /// 8 MiB of blank lines, then a clock line: 445 MB before, about 70 now (both readers;
    /// the bound leaves room for a debug build).
    @Test(arguments: [[], ["--single-thread"]])
    func blankLinesCostLittle(options: [String]) throws {
        let input = try Self.file([UInt8](repeating: 0x0A, count: 8 << 20) + Self.clock)
        defer { try? FileManager.default.removeItem(atPath: input) }
        let r = try Self.peak(["run", "--requests", Self.requests] + options, input: input)
        #expect(r.status == 0)
        #expect(r.mib < 160, "peak \(r.mib) MiB")
    }

    /// A 16 MiB line, then 32 MiB of blank lines: 2.3 GB before (the chunks stayed grown),
    /// about 230 MB now (single thread: 355, now about 90).
    @Test(arguments: [[], ["--single-thread"]])
    func aLongLineDoesNotLeaveTheChunksGrown(options: [String]) throws {
        let line = Array(#"{"t":"2026-11-23T08:00:00Z","pad":""#.utf8) + [UInt8](repeating: 0x78, count: 16 << 20) + Array("\"}\n".utf8)
        let input = try Self.file(line + [UInt8](repeating: 0x0A, count: 32 << 20) + Self.clock)
        defer { try? FileManager.default.removeItem(atPath: input) }
        let r = try Self.peak(["run", "--requests", Self.requests] + options, input: input)
        #expect(r.status == 0)
        #expect(r.mib < 500, "peak \(r.mib) MiB")
    }

    /// Lines past a chunk's 65,536 are carried to the next chunk whole: every line is read
    /// once, in order, numbered right, at the end of a file or a pipe and with a last line
    /// without a newline, by both readers.
    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func linesPastAChunksLimitAreAllRead(singleThread: Bool, pipe: Bool) throws {
        let every = #"{"identifier": "a", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        let requests = try CLIMannersTests.file(every + "\n")
        defer { try? FileManager.default.removeItem(atPath: requests) }
        var text = #"{"t":"2026-11-23T08:00:00Z"}"# + String(repeating: "\n", count: 150_001)
        text += #"{"t":"2026-11-23T08:02:00Z"}"# + String(repeating: "\n", count: 150_001)
        text += "x" + String(repeating: "\n", count: 100_001) + #"{"t":"2026-11-23T08:03:00Z"}"#
        let input = try CLIMannersTests.file(text)
        defer { try? FileManager.default.removeItem(atPath: input) }
        let options = singleThread ? " --single-thread" : ""
        let r = try CLIMannersTests.shell((pipe ? "cat \"$0\" | " : "") + "\"$1\" run --requests \"$2\" --format ids\(options)" + (pipe ? "" : " < \"$0\""),
                                          [input, try #require(KillNineTests.binary), requests])
        #expect(r.status == 0)
        #expect(r.out.split(separator: "\n").count == 3, "\(r.out)")
        #expect(r.err.contains("error: line 300003: not valid JSON"), "\(r.err)")
        #expect(r.err.contains("errors 1, fires 3"), "\(r.err)")
    }
}
