import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Issue 9: a whole session replays from one file through `triggerkit run`: a reminder
/// every 60 s, a request added mid-stream, the user taps "cancel", no more fires.
@Suite("run: control lines replay a session")
struct SessionReplayTests {
    static func run(_ args: [String], input: String) throws -> (out: [String], err: String, status: Int32) {
        let r = try CLIMannersTests.run(args, input: input)
        return (r.out.split(separator: "\n").map(String.init), r.err, r.status)
    }

    @Test func theReminderWithCancelSession() throws {
        let r = try Self.run(["run", "--requests", Fixture.path("session/requests.ndjson"),
                              "--categories", Fixture.path("session/categories.json")], input: Fixture.path("session/stream.ndjson"))
        #expect(r.status == 0)
        let fires = r.out.compactMap { line -> String? in
            guard let v = try? JSONValue.parse(line), case .object(let o) = v, case .string(let id)? = o["identifier"],
                  case .string(let d)? = o["date"] else { return nil }
            return "\(id) \(d)"
        }
        #expect(fires == ["water 2026-11-27T09:01:00Z", "water 2026-11-27T09:02:00Z", "water 2026-11-27T09:03:00Z",
                          "stand 2026-11-27T09:04:10Z"])
        #expect(!r.err.contains("error:"))
    }

    @Test func badControlLinesAreErrorsNamingTheLineAndTheRunGoesOn() throws {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let input = dir.directory.appendingPathComponent("s.ndjson").path
        try """
        {"t": "2026-11-27T09:00:00Z"}
        {"t": "2026-11-27T09:00:10Z", "add": {"identifier": "x", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 10, "repeats": true}}}
        {"t": "2026-11-27T09:00:20Z", "remove": "water"}
        {"t": "2026-11-27T09:00:30Z", "respond": {"identifier": "water", "action": "nope"}}
        {"t": "2026-11-27T09:01:00Z"}
        """.write(toFile: input, atomically: true, encoding: .utf8)
        let r = try Self.run(["run", "--requests", Fixture.path("session/requests.ndjson"), "--format", "ids"], input: input)
        #expect(r.status == 0)
        #expect(r.out == ["water"])
        #expect(r.err.contains("error: line 2: x: invalidTrigger"))
        #expect(r.err.contains("error: line 3:"))
        #expect(r.err.contains("warning: line 4: category \"REMINDER\" is not registered"))
    }
}
