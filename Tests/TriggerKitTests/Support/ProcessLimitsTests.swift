import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// SQLite reports a write past `ulimit -f` only as `disk I/O error`, and an open past
/// `ulimit -n` as `unable to open database file`: the stores' messages name the limit.
@Suite("Process limits named in file errors")
struct ProcessLimitsTests {
    /// A durable run past the file-size limit said `state file error: disk I/O error` and
    /// nothing of the limit behind it.
    @Test func aStateFilePastTheFileSizeLimitNamesIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fsize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 5,000 devices: their state outgrows 100 KiB.
        let fixes = (0..<5000).map { "{\"device\": \"device-\($0)\", \"t\": \"2026-01-01T00:00:00Z\", \"lat\": 1, \"lon\": 1}" }
        let input = dir.appendingPathComponent("fixes.ndjson")
        try (fixes.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let state = dir.appendingPathComponent("s.sqlite").path
        // (`ulimit -f` counts 512-byte blocks in dash, 1,024-byte ones in bash.)
        let r = try CLIMannersTests.shell("ulimit -f 100 && exec \"$0\" run --requests /dev/null --state \"$1\" < \"$2\"",
                                          [binary, state, input.path])
        #expect(r.status == 2, "\(r.err)")
        #expect(r.err.contains("state file error: disk I/O error (the file-size limit (ulimit -f) is 51200 bytes)")
            || r.err.contains("state file error: disk I/O error (the file-size limit (ulimit -f) is 102400 bytes)"), "\(r.err)")
    }

    /// The open files counted are this process's: opening files counts them, closing them
    /// uncounts them; the limit is the soft one.
    @Test func openFilesAreCountedAgainstTheSoftLimit() throws {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let held = (0..<20).map { _ in open("/dev/null", O_RDONLY) }
        let during = try #require(ProcessLimits.openFileUse)
        held.forEach { close($0) }
        #expect(during.limit == Int(clamping: limit.rlim_cur))
        #expect(during.open >= 20 + 3)
        // Other tests open and close files meanwhile: only the lower bound holds exactly.
        let hint = ProcessLimits.hint(ioError: false, cannotOpen: true)
        #expect(hint.isEmpty == (ProcessLimits.openFileUse.map { $0.open + 8 < $0.limit } ?? true))
    }
}
