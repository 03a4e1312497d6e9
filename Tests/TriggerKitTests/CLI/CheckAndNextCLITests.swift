import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 14: `check` and `next` through the real binary, as thoroughly as `run`: every
/// diagnostic and exit status, file forms (NDJSON, JSON array, stdin), references and
/// options, and each against the library's own answer.
@Suite("CLI: check and next")
struct CheckAndNextCLITests {
    static func run(_ args: [String], input: String = "/dev/null") throws -> (out: String, err: String, status: Int32) {
        try CLIMannersTests.run(args, input: input)
    }

    static let now = "2026-11-21T06:00:00Z"

    @Test(arguments: ["every-error.ndjson", "every-error.json"])
    func checkPrintsEveryDiagnosticOfTheHandCheckedListing(name: String) throws {
        // The fixture's path is printed as given: run from Fixtures/invalid so it is the name.
        let dir = CLIMannersTests.root("Fixtures/invalid")
        let r = try Self.run(["check", "--requests", "\(dir)/\(name)", "--now", Self.now])
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        let expected = try Fixture.text("invalid/\(name).expected.txt").replacingOccurrences(of: "\(name):", with: "\(dir)/\(name):")
        #expect(r.err == (expected.hasSuffix("\n") ? expected : expected + "\n"))
    }

    @Test func checkOfAGoodFileExitsZeroWithItsSummary() throws {
        let r = try Self.run(["check", "--requests", CLIMannersTests.root("Fixtures/demo/requests.ndjson"), "--now", "2026-11-23T11:00:00Z"])
        #expect(r.status == 0 && r.err == "12 requests: 12 ok, 0 errors, 0 warnings\n")
    }

    @Test func checkReadsStandardInput() throws {
        let r = try Self.run(["check", "--requests", "-", "--now", Self.now], input: CLIMannersTests.root("Fixtures/demo/requests.ndjson"))
        #expect(r.status == 0 && r.err.hasSuffix("12 ok, 0 errors, 0 warnings\n"))
    }

    @Test func checkJudgesCalendarTriggersAgainstNow() throws {
        let past = try CLIMannersTests.file("{\"identifier\": \"y\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"calendar\", \"dateMatching\": {\"year\": 2026, \"month\": 6, \"day\": 1}, \"repeats\": false}}")
        let before = try Self.run(["check", "--requests", past, "--now", "2026-01-01T00:00:00Z"])
        #expect(before.status == 0)
        let after = try Self.run(["check", "--requests", past, "--now", "2026-07-01T00:00:00Z"])
        #expect(after.status == 1 && after.err.contains("y: notificationInvalidNoDate:"))
    }

    @Test func missingAndUnreadableFilesAreStatus2() throws {
        let missing = try Self.run(["check", "--requests", "/nonexistent/requests.ndjson"])
        #expect(missing.status == 2 && missing.err.hasPrefix("error: cannot read requests file /nonexistent/requests.ndjson"))
        let next = try Self.run(["next", "--requests", "/nonexistent/requests.ndjson"])
        #expect(next.status == 2)
    }

    @Test func badOptionValuesAreUsageErrors() throws {
        let f = CLIMannersTests.root("Fixtures/demo/requests.ndjson")
        for args in [["check", "--requests", f, "--now", "yesterday"], ["next", "--requests", f, "--after", "10000-01-01T00:00:00Z"],
                     ["next", "--requests", f, "--time-zone", "Mars/Olympus"], ["next", "--requests", f, "--limit", "-3", "--merged"]] {
            let r = try Self.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.err.hasPrefix("Error: "), "\(args): \(r.err)")
        }
        // A negative number is a value out of range, not a missing value.
        let jump = try Self.run(["run", "--requests", f, "--max-clock-jump", "-1"])
        #expect(jump.status == 64)
        #expect(jump.err.contains("--max-clock-jump must be a number of seconds >= 0"), "\(jump.err)")
    }

    /// Each `next` line against the library's own answer for the same request.
    @Test func nextAgreesWithTheLibraryForEveryDemoRequest() throws {
        let path = CLIMannersTests.root("Fixtures/demo/requests.ndjson")
        let r = try Self.run(["next", "--requests", path, "--after", "2026-11-23T11:00:00Z", "--count", "4", "--time-zone", "Europe/Paris"])
        #expect(r.status == 0)
        let set = RequestsFile.parse(try Fixture.text("demo/requests.ndjson"), file: "demo", options: ValidationOptions(now: Date()))
        let zone = TimeZone(identifier: "Europe/Paris") ?? .gmt
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == set.requests.count)
        let after = Timestamp.parseMillis("2026-11-23T11:00:00Z") ?? 0
        for (line, request) in zip(lines, set.requests) {
            let start = request.addedAt.map(Timestamp.millis) ?? after
            let dates = TimeRule(request.trigger, addedAt: start, floatingTimeZone: zone)?.fires(after: after, count: 4) ?? []
            let json = "{\"identifier\":\"\(request.identifier)\",\"next\":[" + dates.map { "\"\(Timestamp.string(millis: $0))\"" }.joined(separator: ",") + "]}"
            #expect(line == json)
        }
    }

    @Test func nextMergedIsInDateOrderWithTiesByIdentifierAndStopsAtTheLimit() throws {
        let requests = try CLIMannersTests.file(["b", "a", "c"].map { id in
            "{\"identifier\": \"\(id)\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"calendar\", \"dateMatching\": {\"minute\": 0, \"timeZone\": \"UTC\"}, \"repeats\": true}}"
        }.joined(separator: "\n"))
        let r = try Self.run(["next", "--requests", requests, "--after", "2026-11-23T10:30:00Z", "--merged", "--limit", "5"])
        #expect(r.status == 0)
        #expect(r.out.split(separator: "\n").map(String.init) == [
            "{\"identifier\":\"a\",\"date\":\"2026-11-23T11:00:00Z\"}", "{\"identifier\":\"b\",\"date\":\"2026-11-23T11:00:00Z\"}",
            "{\"identifier\":\"c\",\"date\":\"2026-11-23T11:00:00Z\"}", "{\"identifier\":\"a\",\"date\":\"2026-11-23T12:00:00Z\"}",
            "{\"identifier\":\"b\",\"date\":\"2026-11-23T12:00:00Z\"}",
        ])
    }

    @Test func nextAnswersTheValidRequestsOfAFileWithErrors() throws {
        let r = try Self.run(["next", "--requests", CLIMannersTests.root("Fixtures/invalid/every-error.ndjson"), "--after", Self.now])
        #expect(r.status == 1)
        #expect(r.err.contains("notificationInvalidNoContent") && !r.err.contains("requests:"))
        #expect(r.out.split(separator: "\n").count == 2)  // ok-2 and ok-1 (replaced, at its later line)
        #expect(r.out.hasPrefix("{\"identifier\":\"ok-2\""))
    }

    @Test func nextStatsGoToStandardError() throws {
        let r = try Self.run(["next", "--requests", CLIMannersTests.root("Fixtures/demo/requests.ndjson"), "--after", "2026-11-23T11:00:00Z", "--stats"])
        #expect(r.status == 0)
        #expect(r.err.hasPrefix("next: 12 requests, ") && r.err.contains("Foundation fallbacks: 0"))
    }

    @Test func nextRespectsExpiry() throws {
        let f = try CLIMannersTests.file("{\"identifier\": \"e\", \"content\": {\"title\": \"t\"}, \"addedAt\": \"2026-11-23T00:00:00Z\", \"expiresAt\": \"2026-11-23T03:30:00Z\", \"trigger\": {\"type\": \"timeInterval\", \"timeInterval\": 3600, \"repeats\": true}}")
        let r = try Self.run(["next", "--requests", f, "--count", "10"])
        #expect(r.out == "{\"identifier\":\"e\",\"next\":[\"2026-11-23T01:00:00Z\",\"2026-11-23T02:00:00Z\",\"2026-11-23T03:00:00Z\"]}\n")
        let merged = try Self.run(["next", "--requests", f, "--merged", "--limit", "10"])
        #expect(merged.out.split(separator: "\n").count == 3)
    }
}
