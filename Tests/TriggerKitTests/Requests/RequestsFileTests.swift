import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Requests files")
struct RequestsFileTests {
    static let options = ValidationOptions(now: Timestamp.date(millis: Timestamp.parseMillis("2026-11-21T06:00:00Z") ?? 0))

    /// Every error code of the contract, with its line number, matches the hand-checked listing.
    @Test(arguments: ["every-error.ndjson", "every-error.json"])
    func diagnosticsMatchTheHandCheckedListing(name: String) throws {
        let set = RequestsFile.parse(try Fixture.text("invalid/\(name)"), file: name, options: Self.options)
        let printed = set.diagnostics.map(\.description) + [set.summary]
        let expected = try Fixture.text("invalid/\(name).expected.txt").split(separator: "\n").map(String.init)
        #expect(printed == expected)
    }

    @Test func everyErrorCodeIsExercised() throws {
        var seen = Set<RequestErrorCode>()
        for name in ["every-error.ndjson", "every-error.json"] {
            let set = RequestsFile.parse(try Fixture.text("invalid/\(name)"), file: name, options: Self.options)
            seen.formUnion(set.diagnostics.compactMap(\.code))
        }
        // notificationsNotAllowed needs device settings, which requests files do not carry;
        // tooManyRequests and tooManyDevices are a center's bounds (RequestBoundTests,
        // DeviceBoundTests) and `add` lines' (CLIMannersTests), not a file's.
        #expect(seen == Set(RequestErrorCode.allCases).subtracting([.notificationsNotAllowed, .tooManyRequests, .tooManyDevices]))
    }

    @Test func goodRequestsSurviveBadOnes() throws {
        let set = RequestsFile.parse(try Fixture.text("invalid/every-error.ndjson"), file: "f", options: Self.options)
        #expect(set.requests.map(\.identifier) == ["ok-2", "ok-1"])
        #expect(set.locations == [.line(12), .line(13)])
        #expect(set.requests.last?.content.title == "replacement")
    }

    @Test func replacementKeepsTheLaterRequestInItsPlace() {
        let text = """
        {"identifier": "a", "content": {"title": "1"}}
        {"identifier": "b", "content": {"title": "2"}}
        {"identifier": "a", "content": {"title": "3"}}
        """
        let set = RequestsFile.parse(text, file: "r")
        #expect(set.requests.map(\.content.title) == ["2", "3"])
        #expect(set.warningCount == 1)
        #expect(set.diagnostics.first?.description == "warning: r:3: a: replaces the request with the same identifier at line 1")
        #expect(set.summary == "3 requests: 3 ok, 0 errors, 1 warnings")
    }

    @Test func ndjsonSkipsBlankAndCommentLinesAndCRLF() {
        let text = "\u{FEFF}# comment\r\n\r\n   \n{\"identifier\": \"a\", \"content\": {\"title\": \"1\"}}\r\n  # indented comment\n{\"identifier\": \"b\", \"content\": {\"title\": \"2\"}}"
        let set = RequestsFile.parse(text, file: "r")
        #expect(set.requests.map(\.identifier) == ["a", "b"])
        #expect(set.locations == [.line(4), .line(6)])
        #expect(set.diagnostics.isEmpty)
    }

    /// A JSON error's column counts from the line's first character: on line 1 of a file with
    /// a UTF-8 BOM, after the BOM (the parallel decoding once counted the BOM's 3 bytes).
    @Test func jsonErrorColumnsIgnoreTheBOM() {
        for prefix in ["", "\u{FEFF}"] {
            let set = RequestsFile.parse(prefix + "{\"identifier\": x}\n  {\"a\": }", file: "r")
            #expect(set.diagnostics.map(\.message) == ["not valid JSON: unexpected character 'x', expected a value (column 16)",
                                                       "not valid JSON: unexpected character '}', expected a value (column 9)"],
                    "prefix \(prefix.unicodeScalars.map { $0.value })")
        }
    }

    @Test func arrayInputUsesIndexes() {
        let text = """
          [ {"identifier": "a", "content": {"title": "1"}},
            {"identifier": "b", "content": {}} ]
        """
        let set = RequestsFile.parse(text, file: "arr.json")
        #expect(set.requests.map(\.identifier) == ["a"])
        #expect(set.diagnostics.map(\.description) == ["error: arr.json:[1]: b: notificationInvalidNoContent: content needs at least one of title, subtitle, body, sound, badge"])
    }

    /// Contract section 5: array elements are named 0-based in brackets, lines 1-based bare,
    /// in errors and in the replacement warning alike.
    @Test func arrayPositionsAreBracketedLinesAreNot() {
        let array = RequestsFile.parse(#"[{"identifier": "a", "content": {"title": "1"}}, {"identifier": "a", "content": {"title": "2"}}]"#,
                                       file: "arr.json")
        #expect(array.diagnostics.map(\.description) == ["warning: arr.json:[1]: a: replaces the request with the same identifier at [0]"])
        let lines = RequestsFile.parse("{\"identifier\": \"a\", \"content\": {\"title\": \"1\"}}\n{\"identifier\": \"a\", \"content\": {\"title\": \"2\"}}",
                                       file: "r.ndjson")
        #expect(lines.diagnostics.map(\.description) == ["warning: r.ndjson:2: a: replaces the request with the same identifier at line 1"])
    }

    @Test func malformedArrayIsOneErrorWithItsLine() {
        let set = RequestsFile.parse("[\n{\"identifier\": \"a\", \"content\": {\"title\": \"1\"}},\n{oops}\n]", file: "bad.json")
        #expect(set.requests.isEmpty)
        #expect(set.diagnostics.count == 1)
        #expect(set.diagnostics.first?.description.hasPrefix("error: bad.json:3: -: invalidRequest: the JSON array is malformed") == true)
    }

    @Test func missingFileIsAnError() {
        #expect(throws: RequestsFileError.self) { try RequestsFile.load(path: "/nonexistent/requests.ndjson") }
    }

    /// A regular file is read through a read-only mapping; the result is the text's.
    @Test func aMappedFileReadsAsItsText() throws {
        let text = "\u{FEFF}" + (0..<3_000).map { #"{"identifier": "r\#($0)", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": \#(60 + $0)}}"# }
            .joined(separator: "\n") + "\n{\"identifier\": \"bad\"}\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-\(UUID().uuidString).ndjson")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let loaded = try RequestsFile.load(path: url.path)
        let parsed = RequestsFile.parse(text, file: url.path)
        #expect(loaded.requests == parsed.requests)
        #expect(loaded.diagnostics == parsed.diagnostics)
        #expect(loaded.requests.count == 3_000)
        // An empty file is no mapping and no requests.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).ndjson")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(try RequestsFile.load(path: empty.path).recordCount == 0)
    }
}
