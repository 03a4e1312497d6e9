import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) import TriggerKitStore

/// Issue 14: the command line says what is wrong instead of staying silent.
@Suite("CLI: manners")
struct CLIMannersTests {
    /// Runs the binary with `args`, stdin from `input` (default: empty), extra environment.
    static func run(_ args: [String], input: String = "/dev/null", environment: [String: String] = [:]) throws -> (out: String, err: String, status: Int32) {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let watchdog = Self.watch(p)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        watchdog.cancel()
        return (String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self), p.terminationStatus)
    }

    /// Kills `p` if it still runs after 60 s: these reads block a thread of the test process,
    /// and a child that hangs held it, with everything that waited for it (a clean-clone run
    /// stalled five minutes: a child read its closed standard input from a runtime descriptor
    /// that had taken number 0).
    static func watch(_ p: Process) -> DispatchWorkItem {
        let pid = p.processIdentifier
        let item = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: item)
        return item
    }

    /// Runs `/bin/sh -c script` with `arguments` as `$0`, `$1`, ...: its status, stdout, stderr.
    static func shell(_ script: String, _ arguments: [String]) throws -> (out: String, err: String, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let watchdog = Self.watch(p)
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        watchdog.cancel()
        return (String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self), p.terminationStatus)
    }

    static func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).ndjson")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static let floating = "{\"identifier\": \"nine\", \"content\": {\"title\": \"x\"}, \"trigger\": {\"type\": \"calendar\", \"dateMatching\": {\"hour\": 9}, \"repeats\": true}}"

    @Test func versionIsPrinted() throws {
        let r = try Self.run(["--version"])
        #expect(r.status == 0)
        #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    /// Under `ulimit -n` 4-5 every command (even `--version`) stopped with SIGILL in the
    /// runtime's thread pool (a helper's find): now a soft limit below 16 is raised to 16
    /// when the hard limit allows, and otherwise the command says so and exits with 2.
    @Test func aTinyOpenFileLimitIsRaisedOrNamedNeverATrap() throws {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        for n in [4, 5, 8, 15] {
            let r = try Self.shell("ulimit -n \(n) && exec \"$0\" --version", [binary])
            #expect(r.status == 2, "ulimit -n \(n): status \(r.status), \(r.err)")
            #expect(r.err == "error: the open-file limit (ulimit -n) is \(n), at most \(n): triggerkit needs at least 16\n")
        }
        let raised = try Self.shell("ulimit -Sn 4 && ulimit -Hn 64 && exec \"$0\" run --requests /dev/null", [binary])
        #expect(raised.status == 0, "\(raised.err)")
        #expect(raised.err.contains("lines 0, fixes 0"))
        let enough = try Self.shell("ulimit -n 16 && exec \"$0\" --version", [binary])
        #expect(enough.status == 0 && !enough.out.isEmpty, "\(enough.err)")
    }

    /// A snooze the validator refuses (its device denied since the delivery) is a warning,
    /// as `serve` and a library center answer it: `run` wrote it as an error line, and
    /// `--strict` stopped there with status 1 (a helper's find).
    @Test func aRefusedSnoozeIsAWarning() throws {
        let requests = try Self.file(#"{"identifier": "s", "addedAt": "2026-11-23T08:00:00Z", "content": {"title": "S", "categoryIdentifier": "CAT"}, "trigger": {"type": "timeInterval", "timeInterval": 120, "repeats": true}}"#)
        let categories = try Self.file(#"[{"identifier": "CAT", "actions": [{"identifier": "later", "title": "Later", "effect": {"snooze": 120}}]}]"#)
        let stream = try Self.file([#"{"t": "2026-11-23T08:00:00Z"}"#,
                                    #"{"t": "2026-11-23T08:02:30Z", "device": "r", "settings": {"authorizationStatus": "denied"}}"#,
                                    #"{"t": "2026-11-23T08:06:10Z", "respond": {"identifier": "s", "device": "r", "action": "later"}}"#,
                                    #"{"t": "2026-11-23T08:09:00Z"}"#].joined(separator: "\n"))
        let r = try Self.run(["run", "--strict", "--requests", requests, "--categories", categories], input: stream)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("warning: line 3: snooze refused: s/snooze/r: notificationsNotAllowed:"), "\(r.err)")
        #expect(!r.err.contains("error:") && r.err.contains("errors 0"), "\(r.err)")
        #expect(r.out.split(separator: "\n").count == 4)
        // Refused by a bound (the stream holds `--max-requests` requests), not the validator:
        // a warning too, and the refused add count stays 0.
        let bounded = try Self.file([#"{"t": "2026-11-23T08:00:00Z"}"#,
                                     #"{"t": "2026-11-23T08:02:30Z", "respond": {"identifier": "s", "device": "r", "action": "later"}}"#,
                                     #"{"t": "2026-11-23T08:05:00Z"}"#].joined(separator: "\n"))
        let b = try Self.run(["run", "--strict", "--max-requests", "1", "--requests", requests, "--categories", categories], input: bounded)
        #expect(b.status == 0, "\(b.err)")
        #expect(b.err.contains("warning: line 2: snooze refused: s/snooze/r: tooManyRequests:"), "\(b.err)")
        #expect(!b.err.contains("error:") && b.err.contains("errors 0"), "\(b.err)")
    }

    /// Resuming with other `--settings` that refuse other requests was reported as "made with
    /// different requests", pointing at the unchanged requests file (a helper's find): the
    /// settings are named, as for settings that refuse nothing.
    @Test func otherSettingsOnResumeAreNamedEvenWhenTheyRefuseRequests() throws {
        let requests = try Self.file(#"{"identifier": "m", "device": "d", "addedAt": "2026-11-23T08:00:00Z", "content": {"title": "M"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#)
        let allowed = try Self.file(#"{"d": {"authorizationStatus": "authorized"}}"#)
        let denied = try Self.file(#"{"d": {"authorizationStatus": "denied"}}"#)
        let stream = try Self.file(#"{"t": "2026-11-23T08:00:00Z"}"# + "\n" + #"{"t": "2026-11-23T08:02:00Z"}"#)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        #expect(try Self.run(["run", "--requests", requests, "--settings", allowed, "--state", state], input: stream).status == 0)
        let r = try Self.run(["run", "--requests", requests, "--settings", denied, "--state", state], input: stream)
        #expect(r.status == 2)
        #expect(r.err.contains("the saved run used other options: settings:"), "\(r.err)")
        #expect(!r.err.contains("different requests"), "\(r.err)")
    }

    @Test func aNegativeCountIsAnErrorNotAMissingValue() throws {
        let r = try Self.run(["next", "--requests", Self.file(Self.floating), "--count", "-1"])
        #expect(r.status == 64)
        #expect(r.err.contains("--count must be between 1 and 100000, not -1"))
        let zero = try Self.run(["next", "--requests", Self.file(Self.floating), "--count", "0"])
        #expect(zero.status == 64 && zero.err.contains("not 0"))
    }

    @Test(arguments: ["nan", "-1", "inf"])
    func aMaxAccuracyThatIsNotAFiniteDistanceIsRefused(value: String) throws {
        let r = try Self.run(["run", "--requests", Self.file(circleRequest("c")), "--max-accuracy", value])
        #expect(r.status == 64 && r.err.contains("--max-accuracy must be a finite number >= 0"), "\(r.err)")
    }

    @Test func limitWithoutMergedAndCountWithMergedAreErrors() throws {
        let f = try Self.file(Self.floating)
        let limit = try Self.run(["next", "--requests", f, "--limit", "3"])
        #expect(limit.status == 64 && limit.err.contains("--limit applies to --merged only"))
        let count = try Self.run(["next", "--requests", f, "--merged", "--count", "3"])
        #expect(count.status == 64 && count.err.contains("--count applies without --merged only"))
    }

    /// A bad date or zone is a usage error with the command's own usage line, as a bad
    /// `--format` is (they printed the top level's `Usage: triggerkit <subcommand>`; found by a
    /// helper checking docs/cli.md).
    @Test(arguments: [
        (["run", "--requests", "/dev/null", "--time-zone", "Mars/X"], "run"),
        (["run", "--requests", "/dev/null", "--now", "yesterday"], "run"),
        (["check", "--requests", "/dev/null", "--now", "yesterday"], "check"),
        (["next", "--requests", "/dev/null", "--after", "yesterday"], "next"),
        (["next", "--requests", "/dev/null", "--now", "10000-01-01T00:00:00Z"], "next"),
        (["prune", "--state", "/nonexistent", "--before", "yesterday"], "prune"),
        (["serve", "--start", "yesterday"], "serve"),
        (["serve", "--time-zone", "Mars/X"], "serve"),
        (["serve", "--tenant", "no-hash"], "serve"),
    ])
    func aBadDateOrZoneGetsItsCommandsUsageLine(args: [String], command: String) throws {
        let r = try Self.run(args)
        #expect(r.status == 64, "\(r.err)")
        #expect(r.err.hasPrefix("Error: "), "\(r.err)")
        #expect(r.err.contains("Usage: triggerkit \(command) "), "\(r.err)")
    }

    /// `serve`'s print-and-exit modes read no other option (checking them stopped
    /// `--hash-token` beside a bad `--start`; found by a reviewer).
    @Test func servesPrintModesIgnoreTheOtherOptions() throws {
        let hash = try Self.run(["serve", "--hash-token", "t", "--start", "yesterday", "--tenant", "x"])
        #expect(hash.status == 0 && hash.out.count == 65, "\(hash)")
        let api = try Self.run(["serve", "--print-openapi", "--tenant", "no-hash"])
        #expect(api.status == 0 && api.out.contains("\"openapi\""), "\(api.err)")
    }

    @Test func anIdentifierThatMatchesNothingIsAnError() throws {
        let r = try Self.run(["next", "--requests", Self.file(Self.floating), "--identifier", "nope", "--identifier", "nine",
                              "--after", "2026-11-23T00:00:00Z"])
        #expect(r.status == 1)
        #expect(r.err.contains("error: --identifier nope: no valid request"))
        #expect(r.out == "{\"identifier\":\"nine\",\"next\":[\"2026-11-23T09:00:00Z\"]}\n")
    }

    @Test func anImmediateRequestIsTreatedAlikePerRequestAndMerged() throws {
        let f = try Self.file("{\"identifier\": \"now\", \"content\": {\"title\": \"x\"}, \"addedAt\": \"2026-11-23T10:00:00Z\"}\n" + Self.floating)
        // Without --after: strictly after its addedAt, an immediate request has no fire.
        let per = try Self.run(["next", "--requests", f, "--now", "2026-11-23T00:00:00Z"])
        #expect(per.out.hasPrefix("{\"identifier\":\"now\",\"next\":[]}"))
        let merged = try Self.run(["next", "--requests", f, "--now", "2026-11-23T00:00:00Z", "--merged", "--limit", "2"])
        #expect(!merged.out.contains("\"now\""))
        // With --after before it, both list it.
        let perAfter = try Self.run(["next", "--requests", f, "--after", "2026-11-23T00:00:00Z"])
        #expect(perAfter.out.hasPrefix("{\"identifier\":\"now\",\"next\":[\"2026-11-23T10:00:00Z\"]}"))
        let mergedAfter = try Self.run(["next", "--requests", f, "--after", "2026-11-23T00:00:00Z", "--merged", "--limit", "2"])
        #expect(mergedAfter.out.contains("{\"identifier\":\"now\",\"date\":\"2026-11-23T10:00:00Z\"}"))
    }

    /// `--after` before the requests' `addedAt`: both modes take it as the reference (a
    /// helper: per request a calendar trigger listed the dates after `--after`, merged only
    /// those from its `addedAt` on).
    @Test func mergedAndPerRequestShareTheReferenceBeforeAddedAt() throws {
        let f = try Self.file("""
            {"identifier": "a", "content": {"title": "a"}, "addedAt": "2026-12-23T09:00:00Z", "trigger": {"type": "calendar", "repeats": true, "dateMatching": {"minute": 17}}}
            {"identifier": "b", "content": {"title": "b"}, "addedAt": "2026-12-23T09:00:00Z", "trigger": {"type": "timeInterval", "timeInterval": 3600, "repeats": true}}
            {"identifier": "c", "content": {"title": "c"}, "addedAt": "2026-12-23T09:00:00Z"}

            """)
        let per = try Self.run(["next", "--requests", f, "--after", "2026-07-15T12:00:00Z", "--count", "2"])
        #expect(per.status == 0, "\(per.err)")
        #expect(per.out == """
            {"identifier":"a","next":["2026-07-15T12:17:00Z","2026-07-15T13:17:00Z"]}
            {"identifier":"b","next":["2026-12-23T10:00:00Z","2026-12-23T11:00:00Z"]}
            {"identifier":"c","next":["2026-12-23T09:00:00Z"]}

            """)
        let merged = try Self.run(["next", "--requests", f, "--after", "2026-07-15T12:00:00Z", "--merged", "--limit", "3"])
        #expect(merged.out == """
            {"identifier":"a","date":"2026-07-15T12:17:00Z"}
            {"identifier":"a","date":"2026-07-15T13:17:00Z"}
            {"identifier":"a","date":"2026-07-15T14:17:00Z"}

            """, "\(merged.err)")
    }

    @Test(arguments: [(":/etc/localtime", nil), ("UTC0", "2026-11-23T09:00:00Z"), ("EST5", "2026-11-23T14:00:00Z"),
                      ("<+0530>-5:30", "2026-11-23T03:30:00Z"), (":America/New_York", "2026-11-23T14:00:00Z"), ("", "2026-11-23T09:00:00Z"),
                      // POSIX's sign, west positive, also where Foundation reads such a name as east
                      // (`UTC+3` ran three hours east, a six-hour error); IANA's Etc/ names agree.
                      ("UTC+3", "2026-11-23T12:00:00Z"), ("GMT+3", "2026-11-23T12:00:00Z"), ("UTC-3", "2026-11-23T06:00:00Z"),
                      ("UTC+03:00", "2026-11-23T12:00:00Z"), ("Etc/GMT+3", "2026-11-23T12:00:00Z"), ("Etc/GMT-3", "2026-11-23T06:00:00Z")])
    func tzIsReadAsPOSIXWritesIt(tz: String, expected: String?) throws {
        let r = try Self.run(["next", "--requests", Self.file(Self.floating), "--after", "2026-11-23T00:00:00Z"], environment: ["TZ": tz])
        #expect(r.status == 0, "\(r.err)")
        if let expected { #expect(r.out.contains(expected), "\(r.out)") }
        // --time-zone reads a zone as TZ does.
        guard !tz.isEmpty else { return }
        let o = try Self.run(["next", "--requests", Self.file(Self.floating), "--after", "2026-11-23T00:00:00Z", "--time-zone", tz])
        #expect(o.status == 0, "\(o.err)")
        if let expected { #expect(o.out.contains(expected), "--time-zone \(tz): \(o.out)") }
    }

    @Test func aTZWithDaylightRulesIsRefusedClearly() throws {
        let r = try Self.run(["next", "--requests", Self.file(Self.floating)], environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"])
        #expect(r.status != 0)
        #expect(r.err.contains("TZ: unknown time zone 'CET-1CEST,M3.5.0,M10.5.0/3'"))
    }

    /// ICU's legacy IDs are no zones for `--time-zone` or `TZ` either (`BST` was read as
    /// Asia/Dhaka, `IST` as Asia/Kolkata).
    @Test func aLegacyZoneIDIsRefusedOnTheCommandLine() throws {
        let viaOption = try Self.run(["next", "--requests", Self.file(Self.floating), "--time-zone", "BST"])
        #expect(viaOption.status == 64, "\(viaOption.err)")
        #expect(viaOption.err.contains(#"--time-zone: "BST" is not an IANA time zone name"#), "\(viaOption.err)")
        #expect(viaOption.err.contains(#""Europe/London""#), "\(viaOption.err)")
        let viaTZ = try Self.run(["next", "--requests", Self.file(Self.floating)], environment: ["TZ": "IST"])
        #expect(viaTZ.status == 64, "\(viaTZ.err)")
        #expect(viaTZ.err.contains(#"TZ: "IST" is not an IANA time zone name"#), "\(viaTZ.err)")
    }

    /// A path that is no zoneinfo file is no zone (it was read as the local zone's name from
    /// /etc/timezone, so `--time-zone /etc/passwd` ran in UTC).
    @Test(arguments: [":/etc/passwd", ":/nonexistent/zone", "/tmp", ":/usr/share/zoneinfo/Nope"])
    func aPathThatIsNoZoneIsRefused(tz: String) throws {
        let viaTZ = try Self.run(["next", "--requests", Self.file(Self.floating)], environment: ["TZ": tz])
        #expect(viaTZ.status == 64, "TZ=\(tz): \(viaTZ.err)")
        #expect(viaTZ.err.contains("unknown time zone"), "TZ=\(tz): \(viaTZ.err)")
        let viaOption = try Self.run(["next", "--requests", Self.file(Self.floating), "--time-zone", tz])
        #expect(viaOption.status == 64, "--time-zone \(tz): \(viaOption.err)")
    }

    /// A zone name with a NUL after a real one is refused: Foundation made a zone of it whose
    /// offset is always 0, so the trigger fired at UTC times.
    @Test func aZoneNameWithControlCharactersIsRefused() throws {
        for zone in [#"Asia/Kolkata\u0000"#, #"Asia/Kolkata\u0000xyz"#, #"Europe/Paris\n"#] {
            let calendar = #"{"identifier": "z", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 1, "timeZone": "\#(zone)"}, "repeats": true}}"#
            let window = #"{"identifier": "w", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"identifier": "w", "center": {"latitude": 40, "longitude": -74}, "radius": 100}, "repeats": true, "window": {"weekdays": [2], "opens": "08:00", "closes": "18:00", "timeZone": "\#(zone)"}}}"#
            let r = try Self.run(["check", "--requests", Self.file(calendar + "\n" + window)])
            #expect(r.status == 1, "\(zone): \(r.err)")
            #expect(r.err.contains("z: invalidTrigger: unknown time zone"), "\(zone): \(r.err)")
            #expect(r.err.contains("w: invalidTrigger: unknown time zone"), "\(zone): \(r.err)")
            #expect(!r.err.contains("\u{0}") && r.err.split(separator: "\n").count == 3, "\(zone): \(r.err.debugDescription)")
        }
    }

    /// Control characters from the input are escaped in diagnostics: an identifier cannot
    /// forge a second error line.
    @Test func diagnosticsAreOneLineWhateverTheInputHolds() throws {
        let forged = #"{"identifier": "a\nerror: fake.ndjson:99: z: bogus\u001b[31m", "content": {}}"#
        let r = try Self.run(["check", "--requests", Self.file(forged)])
        #expect(r.status == 1)
        let lines = r.err.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("error:") }.count == 1, "\(r.err.debugDescription)")
        #expect(r.err.contains(#"a\u{A}error: fake.ndjson:99: z: bogus\u{1B}[31m"#), "\(r.err.debugDescription)")
        #expect(!r.err.contains("\u{1B}"), "an escape character reached the terminal")
        // And in `run`'s stream errors and control lines.
        let requests = try Self.file("")
        let stream = #"{"t": "2026-11-23T08:00:00Z", "add": {"identifier": "b\nerror: forged", "content": {}}}"# + "\n"
            + #"{"t": "2026-11-23T08:00:01Z", "device": "d\u0007", "lat": 95, "lon": 0}"# + "\n"
        let run = try Self.run(["run", "--requests", requests], input: Self.file(stream))
        #expect(run.err.split(separator: "\n").filter { $0.contains("forged") }.count == 1, "\(run.err.debugDescription)")
        #expect(!run.err.contains("\u{7}"), "\(run.err.debugDescription)")
    }

    /// An `add` line that replaces a pending request says so on stderr, as a requests file
    /// does (contract section 2; it was silent, found by a helper).
    @Test func anAddLineThatReplacesWarns() throws {
        let every = #"{"identifier": "a", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        let requests = try Self.file(every + "\n")
        let stream = #"{"t": "2026-11-23T08:00:00Z", "add": \#(every)}"# + "\n"
            + #"{"t": "2026-11-23T08:00:01Z", "add": {"identifier": "b", "content": {"title": "y"}}}"# + "\n"
            + #"{"t": "2026-11-23T08:00:02Z", "remove": ["nothing"]}"# + "\n"
            + #"{"t": "2026-11-23T08:00:03Z", "remove": ["nothing", "b"]}"# + "\n"
        let run = try Self.run(["run", "--requests", requests], input: Self.file(stream))
        #expect(run.status == 0, "\(run.err)")
        let warnings = run.err.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings == ["warning: line 1: a: replaces the request with the same identifier"], "\(run.err)")
    }

    /// `add` lines were bounded by nothing: 200,000 of them held 450 MB (finished requests stay
    /// in a stream), and with `--max-devices 1` their devices grew to 200,000 (a helper's
    /// find). Past `--max-requests` an `add` with a new identifier is an error line (a
    /// replacement still applies); past `--max-devices` one naming a new device is, and the
    /// error of a fix says how many devices are kept.
    @Test func addLinesAreBoundedInRequestsAndDevices() throws {
        let every = #"{"identifier": "a", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        let requests = try Self.file(every + "\n")
        func add(_ id: String, _ s: Int, device: String? = nil) -> String {
            let d = device.map { #", "device": "\#($0)""# } ?? ""
            return #"{"t": "2026-11-23T08:00:0\#(s)Z", "add": {"identifier": "\#(id)"\#(d), "content": {"title": "y"}}}"# + "\n"
        }
        let stream = add("b", 1) + add("c", 2) + add("b", 3) + add("d", 4)
        let run = try Self.run(["run", "--requests", requests, "--max-requests", "3", "--format", "ids"], input: Self.file(stream))
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("warning: line 3: b: replaces the request with the same identifier"), "\(run.err)")
        #expect(run.err.contains("error: line 4: d: tooManyRequests: the stream holds 3 requests, its limit (--max-requests): d is new"), "\(run.err)")
        #expect(run.out.split(separator: "\n") == ["b", "c", "b"], "\(run.out)")
        // Devices: d1 fires (and is kept), d2 is refused, d1 again is not.
        let devices = add("one", 1, device: "d1") + add("two", 2, device: "d2") + add("three", 3, device: "d1")
            + #"{"t": "2026-11-23T08:00:05Z", "device": "d9", "lat": 40, "lon": -74}"# + "\n" + #"{"t": "2026-11-23T08:00:06Z"}"# + "\n"
        let bounded = try Self.run(["run", "--requests", requests, "--max-devices", "1", "--format", "ids"], input: Self.file(devices))
        #expect(bounded.status == 0, "\(bounded.err)")
        #expect(bounded.err.contains(#"error: line 2: two: tooManyDevices: device "d2" is new and 1 device is kept, past the limit of 1 (--max-devices)"#), "\(bounded.err)")
        #expect(bounded.out.split(separator: "\n") == ["one", "three"], "\(bounded.out)")
        #expect(bounded.err.contains(#"error: line 4: "device" is new and 1 device is kept, the limit (--max-devices): the line is not applied"#), "\(bounded.err)")
        #expect(try Self.run(["run", "--requests", requests, "--max-requests", "0"]).status != 0)
    }

    /// Standard input that cannot be read (a directory) was taken as empty input, status 0;
    /// a line without a newline grew the buffer without bound (a 1 GB line took 2.8 GB).
    /// Both stop the run with status 2 after everything before was processed. A line of
    /// exactly 64 MiB is read; one byte more stops the run, from a file or a pipe (whose small
    /// reads let a long line through where a file's did not), threaded or not. (Helpers'
    /// and a reviewer's finds.)
    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func unreadableInputAndAnOverlongLineStopTheRun(singleThread: Bool, pipe: Bool) throws {
        let every = #"{"identifier": "a", "content": {"title": "x"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        let requests = try Self.file(every + "\n")
        let options = singleThread ? ["--single-thread"] : []
        if !pipe {
            let directory = try Self.run(["run", "--requests", requests] + options, input: FileManager.default.temporaryDirectory.path)
            #expect(directory.status == 2)
            #expect(directory.err.contains("error: reading standard input failed (Is a directory): the run stops here"), "\(directory.err)")
        }
        // Fires at 08:01 and 08:02 by line 2, 08:03 by line 3 (exactly the limit); line 4 is
        // one byte longer: nothing after it is read.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-long-\(UUID().uuidString).ndjson")
        defer { try? FileManager.default.removeItem(at: url) }
        func padded(_ t: String, length: Int) -> [UInt8] {
            let head = Array(#"{"t": "\#(t)", "pad": ""#.utf8), tail = Array("\"}".utf8)
            return head + [UInt8](repeating: 0x78, count: length - head.count - tail.count) + tail + [0x0A]
        }
        var bytes = Array(#"{"t": "2026-11-23T08:00:00Z"}"#.utf8) + [0x0A] + Array(#"{"t": "2026-11-23T08:02:00Z"}"#.utf8) + [0x0A]
        bytes += padded("2026-11-23T08:03:00Z", length: 64 << 20)
        bytes += padded("2026-11-23T08:04:00Z", length: (64 << 20) + 1)
        bytes += Array(#"{"t": "2026-11-23T09:00:00Z"}"#.utf8) + [0x0A]
        try Data(bytes).write(to: url)
        let long: (out: String, err: String, status: Int32)
        if pipe {
            let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
            long = try Self.shell("cat \"$0\" | \"$1\" run --requests \"$2\" --format ids \(options.joined(separator: " "))", [url.path, binary, requests])
        } else {
            long = try Self.run(["run", "--requests", requests, "--format", "ids"] + options, input: url.path)
        }
        #expect(long.status == 2)
        #expect(long.out.split(separator: "\n").count == 3, "\(long.out)")
        #expect(long.err.contains("error: line 4 is longer than 67108864 bytes (no newline within them): the run stops here"), "\(long.err)")
    }

    /// A requests file that is a pipe (`--requests /dev/stdin` fed by a pipe, a shell's
    /// `<(...)`) is read to its end; a directory is named as one. Both failed with Foundation's
    /// "You don't have permission" and "error 256".
    @Test func aRequestsFileMayBeAPipeAndADirectoryIsNamed() throws {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["next", "--requests", "/dev/stdin", "--after", "2026-11-23T00:00:00Z", "--time-zone", "UTC"]
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.run()
        input.fileHandleForWriting.write(Data((Self.floating + "\n").utf8))
        try input.fileHandleForWriting.close()
        let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(e)")
        #expect(o.contains("2026-11-23T09:00:00Z"), "\(o)")
        let dir = FileManager.default.temporaryDirectory.path
        let r = try Self.run(["check", "--requests", dir])
        #expect(r.status == 2)
        #expect(r.err.contains("is a directory"), "\(r.err)")
        let missing = try Self.run(["check", "--requests", dir + "/no-such-requests-\(UUID().uuidString).ndjson"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("no such file"), "\(missing.err)")
    }

    @Test func unknownContentFieldsAreWarnedAbout() throws {
        let r = try Self.run(["check", "--requests", Self.file("{\"identifier\": \"w\", \"content\": {\"tilte\": \"typo\", \"body\": \"b\"}}")])
        #expect(r.status == 0)
        #expect(r.err.contains("w: unknown field \"content.tilte\" ignored"))
    }

    /// `run` warns about a requests-file request naming a category it does not register, as
    /// it warns about an `add` line's (it said nothing; found by a helper).
    @Test func runWarnsAboutARequestsFileCategoryItDoesNotRegister() throws {
        let requests = try Self.file(["R", "NOPE"].enumerated().map { k, c in
            #"{"identifier": "r\#(k)", "content": {"title": "x", "categoryIdentifier": "\#(c)"}, "trigger": {"type": "timeInterval", "timeInterval": 60}}"#
        }.joined(separator: "\n"))
        let categories = try Self.file(#"[{"identifier": "R", "actions": [{"identifier": "cancel", "effect": "removeRequest"}]}]"#)
        let stream = try Self.file(#"{"t": "2026-11-23T10:00:00Z"}"#)
        let r = try Self.run(["run", "--requests", requests, "--categories", categories], input: stream)
        #expect(r.status == 0)
        #expect(r.err.contains("warning: \(requests):2: r1: category \"NOPE\" is not registered: its actions have no effect\n"), "\(r.err)")
        #expect(!r.err.contains("r0:"), "\(r.err)")
    }

    @Test func aMarginAtOrAboveARadiusRefusesThatRequestOnly() throws {
        let requests = try Self.file(circleRequest("small", radius: 20) + "\n" + circleRequest("big", radius: 500))
        let fixes = try Self.file([fix("d", 0, north: 1000), fix("d", 10, north: 0)].joined(separator: "\n") + "\n")
        let r = try Self.run(["run", "--requests", requests, "--margin", "20"], input: fixes)
        #expect(r.status == 0)
        #expect(r.err.contains("small: invalidRegion: radius 20.0 m is not above the margin 20.0 m"))
        #expect(r.out.contains("\"identifier\":\"big\"") && !r.out.contains("\"small\""))
    }

    @Test func theCenterRefusesTheSameRequest() async throws {
        var config = CenterConfiguration()
        config.margin = 50
        let center = try TriggerCenter(configuration: config, clock: ManualClock(Date(timeIntervalSince1970: 1_795_770_000)))
        let r = NotificationRequest(identifier: "x", content: NotificationContent(title: "x"),
                                    trigger: .location(LocationTrigger(region: .circular(CircularRegion(identifier: "x", center: Coordinate(latitude: 40, longitude: -74), radius: 50)), repeats: true)))
        await #expect(throws: RequestError.self) { try await center.add(r) }
    }

    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")])
    func anInterruptedRunStillPrintsItsSummary(signal: Int32, status: Int32, name: String) throws {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", "--requests", try Self.file(circleRequest("c"))]
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Three lines, the last one an entry; the pipe stays open, so the run waits for more.
        let lines = [fix("d", 0, north: 1000), fix("d", 10, north: 500), fix("d", 20, north: 0)].joined(separator: "\n") + "\n"
        input.fileHandleForWriting.write(Data(lines.utf8))
        var seen = Data()
        while !seen.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        #expect(String(decoding: seen, as: UTF8.self).contains("\"event\":\"enter\""))
        kill(p.processIdentifier, signal)
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == status)
        #expect(String(decoding: e, as: UTF8.self).contains("interrupted (\(name)): lines 3, fixes 3, stale 0, skipped 0, errors 0, fires 1"))
    }

    /// A run blocked writing to a pipe nobody reads (its 64 KB full) is interrupted: the
    /// summary said `lines 0, ... fires 0` with hundreds of events written, as it was
    /// published once per input chunk and the first chunk never ended (found by a helper).
    @Test func anInterruptionWhileBlockedOnOutputCountsWhatWasDone() throws {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let requests = try Self.file(#"{"identifier": "m", "content": {"title": "m"}, "trigger": {"type": "calendar", "dateMatching": {"second": 0}, "repeats": true}}"#)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", "--requests", requests]
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let base = Date(timeIntervalSince1970: 1_767_225_600)
        let lines = (0..<3000).map { #"{"t": "\#(Timestamp.string(millis: Timestamp.millis(base) + Int64($0) * 60_000))"}"# }
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        // Until a thread of the run waits in write(2) on standard output (its syscall file
        // reads the number of write, then fd 1), at most 20 s.
        #if arch(x86_64)
        let writing = "1 0x1 "
        #else
        let writing = "64 0x1 "  // aarch64
        #endif
        let deadline = Date().addingTimeInterval(20)
        var blocked = false
        while !blocked && Date() < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/task")) ?? []
            blocked = tasks.contains { t in
                ((try? String(contentsOfFile: "/proc/\(p.processIdentifier)/task/\(t)/syscall", encoding: .utf8)) ?? "").hasPrefix(writing)
            }
            if !blocked { usleep(20_000) }
        }
        #expect(blocked, "the run never blocked on its output")
        kill(p.processIdentifier, SIGTERM)
        let written = out.fileHandleForReading.readDataToEndOfFile().split(separator: 0x0A).count
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 143)
        let summary = try #require(e.split(separator: "\n").first { $0.hasPrefix("interrupted (SIGTERM): ") }, "\(e)")
        func count(_ name: String) -> Int? {
            summary.split(separator: ",").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasSuffix(" " + name) || $0.hasPrefix(name + " ") || $0.contains(": \(name) ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect(written > 100, "\(written) events written")
        #expect((count("lines") ?? 0) > 0 && (count("fires") ?? 0) >= written - 1, "\(summary) after \(written) events")
    }

    @Test func pendingShowsTheEffectiveAddedAtAndTheNextFire() throws {
        let requests = try Self.file([
            "{\"identifier\": \"tick\", \"content\": {\"title\": \"t\"}, \"trigger\": {\"type\": \"timeInterval\", \"timeInterval\": 60, \"repeats\": true}}",
            circleRequest("c"),
        ].joined(separator: "\n"))
        let fixes = try Self.file([fix("d", 0, north: 1000), fix("d", 130, north: 0)].joined(separator: "\n") + "\n")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-pending-\(UUID().uuidString).sqlite").path
        #expect(try Self.run(["run", "--requests", requests, "--state", state], input: fixes).status == 0)
        let pending = try Self.run(["pending", "--state", state])
        let lines = pending.out.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)).objectValue }
        #expect(lines.count == 2)
        // Added at the stream's first t; fired at 60 and 120 s, next at 180 s.
        #expect(lines.first?["addedAt"]?.stringValue == at(0))
        #expect(lines.first?["nextFire"]?.stringValue == at(180))
        #expect(lines.last?["nextFire"] == .null)
    }

    @Test(arguments: [[], ["--single-thread"], ["--state"]])
    func aByteOrderMarkIsSkippedInEveryInput(extra: [String]) throws {
        let bom = "\u{FEFF}"
        let requests = try Self.file(bom + circleRequest("c"))
        let settings = try Self.file(bom + "{\"quiet\": {\"authorizationStatus\": \"denied\"}}")
        let categories = try Self.file(bom + "[]")
        let fixes = try Self.file(bom + [fix("d", 0, north: 0), fix("quiet", 0, north: 0)].joined(separator: "\n") + "\n")
        var args = ["run", "--requests", requests, "--settings", settings, "--categories", categories, "--initial", "fire"]
        if extra == ["--state"] {
            args += ["--state", FileManager.default.temporaryDirectory.appendingPathComponent("bom-\(UUID().uuidString).sqlite").path]
        } else {
            args += extra
        }
        let r = try Self.run(args, input: fixes)
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.err.contains("error:"), "\(r.err)")
        // d enters; quiet's fire is suppressed by its settings (read through the BOM).
        #expect(r.out.contains("\"device\":\"d\"") && !r.out.contains("\"quiet\""))
        #expect(r.err.contains("lines 2, fixes 2") && r.err.contains("suppressed 1"))
    }

    /// An `add` line's request is refused as a request whether the reader or the validator
    /// refuses it: named by its identifier (`-` without one), not counted in `errors`, its `t`
    /// moving the clock, and `--strict` going on to the end and exiting 1, as after a refused
    /// request of the file (the reader's refusals were error lines that stopped `--strict`,
    /// the validator's went unnoticed by it; a helper's find and a reviewer's).
    @Test func anAddRefusedAsItIsReadIsRefusedAsARequest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-add-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let requests = dir + "/requests.ndjson", input = dir + "/in.ndjson"
        try #"{"identifier": "ping", "content": {"title": "p"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
            .write(toFile: requests, atomically: true, encoding: .utf8)
        try ([#"{"t": "2026-11-23T08:00:00Z"}"#,
              #"{"t": "2026-11-23T08:00:30Z", "add": {"identifier": "tz1", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "timeZone": "Bogus/Zone"}}}}"#,
              #"{"t": "2026-11-23T08:01:30Z", "add": {"identifier": "h24", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 24}}}}"#,
              // The last line: the fires up to 08:05 are written only if it moves the clock.
              #"{"t": "2026-11-23T08:05:00Z", "add": {"content": {"title": "x"}}}"#].joined(separator: "\n") + "\n")
            .write(toFile: input, atomically: true, encoding: .utf8)
        let lenient = try Self.run(["run", "--requests", requests, "--now", "2026-11-23T08:00:00Z"], input: input)
        #expect(lenient.err.contains(#"error: line 2: tz1: invalidTrigger: "#), "\(lenient.err)")
        #expect(lenient.err.contains(#"error: line 3: h24: "#), "\(lenient.err)")
        #expect(lenient.err.contains(#"error: line 4: -: invalidRequest: missing required field "identifier""#), "\(lenient.err)")
        #expect(lenient.status == 0)
        #expect(lenient.err.contains("lines 4, fixes 0, stale 0, skipped 0, errors 0, fires 5"), "\(lenient.err)")
        let strict = try Self.run(["run", "--requests", requests, "--strict", "--now", "2026-11-23T08:00:00Z"], input: input)
        #expect(strict.status == 1)
        #expect(strict.out == lenient.out)
        #expect(strict.err.contains("errors 0, fires 5"), "\(strict.err)")
    }

    /// `serve`'s number options read a negative value as `run`'s do, and refuse it by its
    /// range (`--max-accuracy -5` was "Missing value"; a reviewer's find).
    @Test(arguments: ["--margin", "--dwell", "--max-accuracy"])
    func serveReadsANegativeNumberAndRefusesIt(option: String) throws {
        let r = try Self.run(["serve", "--port", "0", "--data-dir", "/nonexistent/never-created", option, "-5",
                              "--tenant", "acme=" + String(repeating: "a", count: 64)])
        #expect(r.status == 2, "\(r.err)")
        #expect(r.err.contains("-5.0"), "\(r.err)")
        #expect(!r.err.contains("Missing value"), "\(r.err)")
    }

    /// `delivered` lists the batches before a damaged one, then stops with the error, as
    /// docs/cli.md says (it listed nothing: what it had gathered was not written; a helper
    /// following the docs).
    @Test func deliveredListsTheBatchesBeforeADamagedOne() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-damaged-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let run = try Self.run(["run", "--requests", Self.root("Fixtures/demo/requests.ndjson"), "--time-zone", "America/New_York",
                                "--state", state], input: Self.root("Fixtures/demo/fixes.ndjson"))
        #expect(run.status == 0)
        #expect(!run.out.isEmpty)
        try DamagedStateFileTests.edit(state, "INSERT INTO delivered(seq, count, lines) SELECT max(seq) + 1, 1, x'ff0a' FROM delivered")
        let delivered = try Self.run(["delivered", "--state", state])
        #expect(delivered.status == 2)
        #expect(delivered.err.contains("damaged delivered log"), "\(delivered.err)")
        #expect(delivered.out == run.out)
    }

    @Test func theDeliveredLogCanBePrunedByDate() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-prune-\(UUID().uuidString).sqlite").path
        let run = try Self.run(["run", "--requests", Self.root("Fixtures/demo/requests.ndjson"), "--time-zone", "America/New_York",
                                "--state", state], input: Self.root("Fixtures/demo/fixes.ndjson"))
        #expect(run.status == 0)
        let all = run.out.split(separator: "\n").map(String.init)
        let cutoff = "2026-11-23T15:00:00Z"
        let later = all.filter { line in
            guard let d = (try? JSONValue.parse(line))?.objectValue?["date"]?.stringValue else { return true }
            return (Timestamp.parseMillis(d) ?? 0) >= (Timestamp.parseMillis(cutoff) ?? 0)
        }
        #expect(later.count < all.count && !later.isEmpty)
        let prune = try Self.run(["prune", "--state", state, "--before", cutoff])
        #expect(prune.status == 0)
        #expect(prune.err.contains("\(all.count - later.count) delivered events dated before \(cutoff) removed, \(later.count) kept"))
        let delivered = try Self.run(["delivered", "--state", state])
        #expect(delivered.out.split(separator: "\n").map(String.init) == later)
        // A run holding the state file's lock makes prune refuse.
        let holder = try StateStore(path: state)
        try holder.lockForWriting()
        let refused = try Self.run(["prune", "--state", state, "--before", cutoff])
        #expect(refused.status == 2 && refused.err.contains("error:"))
    }

    static func root(_ relative: String) -> String { DocumentationExamplesTests.root.appendingPathComponent(relative).path }

    @Test func aResumedRunSaysHowManyLinesItSkips() throws {
        let requests = try Self.file(circleRequest("c"))
        let fixes = try Self.file([fix("d", 0, north: 1000), fix("d", 10, north: 0), fix("d", 20, north: 1000)].joined(separator: "\n") + "\n")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-state-\(UUID().uuidString).sqlite").path
        let first = try Self.run(["run", "--requests", requests, "--state", state], input: fixes)
        #expect(first.status == 0 && !first.err.contains("resuming"))
        let second = try Self.run(["run", "--requests", requests, "--state", state], input: fixes)
        #expect(second.status == 0)
        #expect(second.err.contains("resuming from \(state): skipping 3 lines already processed"))
    }

    /// `run` holds its options to the library's ranges (``CenterConfiguration/validate()``):
    /// a margin of 200 km or a dwell of 1e300 s used to be accepted.
    @Test(arguments: [(["--margin", "200000"], "--margin must be a number of metres in 0...100000, not 200000.0"),
                      (["--dwell", "1e300"], "--dwell must be a number of seconds in 0...31622400 (366 days), not 1e+300"),
                      (["--max-accuracy", "-1"], "--max-accuracy must be a finite number >= 0 (metres), not -1.0")])
    func runsOptionsHaveTheLibrarysRanges(_ args: [String], _ message: String) throws {
        let requests = try Self.file(circleRequest("c"))
        let r = try Self.run(["run", "--requests", requests] + args)
        #expect(r.status == 64)
        #expect(r.err.contains(message), "\(r.err)")
    }

    /// `next`, `pending` and `delivered` into a pipe the reader closes (`| head -1`) died by
    /// SIGPIPE (status 141, no message); they now say so and exit 3, as `run` does.
    @Test func aClosedPipeIsStatusThreeForEveryCommand() throws {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let requests = try Self.file((0..<3000).map {
            #"{"identifier":"r\#($0)","content":{"title":"t"},"addedAt":"2026-01-01T00:00:00Z","trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#
        }.joined(separator: "\n") + "\n")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-pipe-\(UUID().uuidString).sqlite").path
        let clock = try Self.file(#"{"type":"clock","t":"2026-01-01T00:10:00Z"}"# + "\n")
        #expect(try Self.run(["run", "--requests", requests, "--state", state, "--format", "ids"], input: clock).status == 0)
        for args in [["next", "--requests", requests, "--now", "2026-01-01T00:00:00Z", "--count", "5"],
                     ["pending", "--state", state], ["delivered", "--state", state]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = args
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            // The reader takes one chunk and goes away.
            _ = out.fileHandleForReading.availableData
            try out.fileHandleForReading.close()
            let e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            #expect(p.terminationReason == .exit && p.terminationStatus == 3, "\(args[0]): \(p.terminationReason) \(p.terminationStatus)")
            #expect(String(decoding: e, as: UTF8.self).contains("writing to standard output failed"), "\(args[0])")
        }
    }

    @Test func aRefusedResumeDoesNotSayItIsResuming() throws {
        let requests = try Self.file(circleRequest("c"))
        let fixes = [fix("d", 0, north: 1000), fix("d", 10, north: 0), fix("d", 20, north: 1000)]
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-state-\(UUID().uuidString).sqlite").path
        let first = try Self.run(["run", "--requests", requests, "--state", state], input: try Self.file(fixes.joined(separator: "\n") + "\n"))
        #expect(first.status == 0)
        // The same number of lines, the second one changed: refused, and not announced as a resume.
        let changed = [fixes[0], fix("d", 11, north: 0), fixes[2]].joined(separator: "\n") + "\n"
        let second = try Self.run(["run", "--requests", requests, "--state", state], input: try Self.file(changed))
        #expect(second.status == 2)
        #expect(second.err.contains("the input does not begin with the input this state already consumed"))
        #expect(!second.err.contains("resuming"))
        // Fewer lines than were consumed: refused at the end of input, also without the message.
        let shorter = try Self.run(["run", "--requests", requests, "--state", state], input: try Self.file(fixes[0] + "\n"))
        #expect(shorter.status == 2)
        #expect(!shorter.err.contains("resuming"))
    }
}
