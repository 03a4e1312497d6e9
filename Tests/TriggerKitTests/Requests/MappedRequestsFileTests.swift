import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A requests file is mapped, not copied; another process may shrink or rewrite it while it
/// is read. Without the guard, the first test ends the whole test process with SIGBUS.
@Suite("Mapped requests files")
struct MappedRequestsFileTests {
    static let options = ValidationOptions(now: Timestamp.date(millis: Timestamp.parseMillis("2026-11-21T06:00:00Z") ?? 0))

    /// A requests file of `count` circles (about 150 bytes each: many pages for 2,000).
    static func write(count: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tk-mapped-\(UUID().uuidString).ndjson").path
        var text = ""
        for i in 0..<count {
            text += #"{"identifier": "r-\#(i)", "content": {"title": "t"}, "trigger": {"type": "location", "#
                + #""region": {"identifier": "g-\#(i)", "center": {"latitude": 40.5, "longitude": -73.9}, "radius": 100.0}}}"# + "\n"
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        // An old modification time, so a rewrite within the same clock tick still moves it.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: path)
        return path
    }

    @Test func aFileShrunkWhileItIsReadIsRefusedNotACrash() throws {
        let path = try Self.write(count: 2_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: RequestsFileError.self) {
            try RequestsFile.load(path: path, options: Self.options, afterSplit: { #expect(truncate(path, 100) == 0) })
        }
        do throws(RequestsFileError) {
            _ = try RequestsFile.load(path: path, options: Self.options, afterSplit: { _ = truncate(path, 0) })
            Issue.record("a file emptied while it was read was accepted")
        } catch {
            #expect(error.reason.hasPrefix("the file changed while it was being read"))
            #expect(error.description.hasPrefix("cannot read requests file \(path): the file changed"))
        }
    }

    /// Emptied after its lines were found, each line reads as zeros: a syntax error whose
    /// column was found by reading back to the line's start, which zeros made the file's
    /// start (40,000 lines: 120 GB read, minutes on two cores).
    @Test(.timeLimit(.minutes(1)))
    func aFileEmptiedAfterItsLinesWereFoundIsRefusedPromptly() throws {
        let path = try Self.write(count: 40_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: RequestsFileError.self) {
            try RequestsFile.load(path: path, options: Self.options, afterSplit: { _ = truncate(path, 0) })
        }
    }

    @Test func readsPastTheNewEndSeeZerosAndAreReported() throws {
        let path = try Self.write(count: 2_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let mapped = try #require(MappedFile(path: path))
        #expect(mapped.bytes.count > 4 * 4096)
        #expect(mapped.bytes[mapped.bytes.count - 1] == 0x0A)
        #expect(truncate(path, 0) == 0)
        // Every page is now past the file's end: each read faults and is given zeros.
        var sum = 0
        for i in stride(from: 0, to: mapped.bytes.count, by: 1000) { sum += Int(mapped.bytes[i]) }
        #expect(sum == 0)
        #expect(mapped.finish() == false)
    }

    @Test func aFileRewrittenInPlaceIsRefused() throws {
        let path = try Self.write(count: 50)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let same = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "r-1", with: "x-1")
        #expect(throws: RequestsFileError.self) {
            try RequestsFile.load(path: path, options: Self.options, afterSplit: {
                // In place, same size: no fault, only the modification time tells.
                let handle = FileHandle(forWritingAtPath: path)!
                handle.write(same.data(using: .utf8)!)
                handle.closeFile()
            })
        }
    }

    @Test func anUnchangedFileLoadsAsItParsesAndReleasesItsGuard() throws {
        let path = try Self.write(count: 300)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let parsed = RequestsFile.parse(text, file: path, options: Self.options)
        // More loads than there are guard slots: each gives its slot back, so each maps.
        for _ in 0..<80 {
            let mapped = try #require(MappedFile(path: path))
            #expect(mapped.finish())
        }
        let loaded = try RequestsFile.load(path: path, options: Self.options)
        #expect(loaded.requests == parsed.requests)
        #expect(loaded.diagnostics == parsed.diagnostics)
        #expect(loaded.requests.count == 300)
    }
}
