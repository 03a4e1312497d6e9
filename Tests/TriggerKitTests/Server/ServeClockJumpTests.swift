import Foundation
import HTTPTypes
import Synchronization
import HummingbirdTesting
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// `--clock stream` refuses a clock jump past the tenant's `maxClockJumpSeconds`, as `run`
/// refuses such a line: one fix dated 9999 moved the clock there for good.
@Suite("serve: the stream clock's jump limit")
struct StreamClockJumpTests {
    /// A stream-clock server whose tenant delivers at most `fires` time fires a step.
    static func stepLimited(_ fires: Int) -> Serve {
        var limits = TenantLimits()
        limits.maxStepFires = fires
        return Serve(limits: limits)
    }

    static func fix(_ t: String) -> String { #"{"device":"d1","t":"\#(t)","lat":40.7,"lon":-74}"# + "\n" }

    @Test func aJumpPastTheLimitIsRefusedAndTheClockStays() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            // The first input may be far from --start (2026-11-23): a month later.
            var a = try await c.call(.post, "/v1/fixes", body: Self.fix("2026-12-23T08:00:00Z"))
            #expect(a.json?.objectValue?["accepted"] == .number(1), "\(a.body)")
            // Then: 8 days ahead is refused, line by line, and so is the clock.
            a = try await c.call(.post, "/v1/fixes", body: Self.fix("2026-12-31T08:00:01Z") + Self.fix("9999-12-31T23:59:59Z"))
            #expect(a.json?.objectValue?["accepted"] == .number(0), "\(a.body)")
            #expect(a.body.contains("clock jump"), "\(a.body)")
            a = try await c.call(.post, "/v1/clock", body: #"{"t":"9999-12-31T23:59:59Z"}"#)
            #expect(a.status == 422)
            #expect(a.errorCode == "invalidClock")
            #expect(try await c.call(.get, "/v1/stats").json?.objectValue?["clock"] == .string("2026-12-23T08:00:00Z"))
            // Within the limit: 7 days.
            a = try await c.call(.post, "/v1/clock", body: #"{"t":"2026-12-30T08:00:00Z"}"#)
            #expect(a.status == 200, "\(a.body)")
            #expect(try await c.call(.post, "/v1/fixes", body: Self.fix("2027-01-06T08:00:00Z")).json?.objectValue?["accepted"] == .number(1))
        }
        // After a restart the limit applies from the first input (the clock is the data's).
        try await serve.run { c, _ async throws in
            let a = try await c.call(.post, "/v1/fixes", body: Self.fix("2027-02-06T08:00:00Z"))
            #expect(a.json?.objectValue?["accepted"] == .number(0), "\(a.body)")
        }
    }

    /// A step that would deliver more time fires than `maxStepFires` is refused before
    /// anything changes (a week's step over 1,000 per-minute reminders, 10 million fires,
    /// held the server for over 10 minutes and 6 GB); smaller steps deliver it all, and a
    /// refused fix is counted in `rejectedFixes`.
    @Test func aStepOverTheFireLimitIsRefusedAndSmallerStepsDeliverEveryFire() async throws {
        let serve = Self.stepLimited(100)
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            for i in 0..<10 { #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick-\(i)", 60)).status == 201) }
            // From 08:00: 20 minutes is 200 fires; the clock stays and nothing is delivered.
            var a = try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:20:00Z"}"#)
            #expect(a.status == 422, "\(a.body)")
            #expect(a.errorCode == "invalidClock")
            #expect(a.body.contains("would deliver more than 100 time fires at once"), "\(a.body)")
            a = try await c.call(.post, "/v1/fixes", body: Self.fix("2026-11-23T08:20:00Z"))
            #expect(a.json?.objectValue?["accepted"] == .number(0), "\(a.body)")
            #expect(a.body.contains("would deliver more than 100 time fires"), "\(a.body)")
            var stats = try await c.call(.get, "/v1/stats").json?.objectValue
            #expect(stats?["delivered"] == .number(0), "\(String(describing: stats))")
            #expect(stats?["rejectedFixes"] == .number(1), "\(String(describing: stats))")
            // 10 minutes (exactly 100) passes, then 10 more: every fire, one by one.
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T08:10:00Z"}"#).status == 200)
            #expect(try await c.call(.post, "/v1/fixes", body: Self.fix("2026-11-23T08:20:00Z")).json?.objectValue?["accepted"] == .number(1))
            stats = try await c.call(.get, "/v1/stats").json?.objectValue
            #expect(stats?["delivered"] == .number(200), "\(String(describing: stats))")
        }
    }

    /// Adds whose `addedAt` is far back catch up when added: the same bound holds, summed
    /// over a batch (a reviewer's find: ten per-minute requests added a day back delivered
    /// 14,400 fires in one step past a limit of 100).
    @Test func addsWhoseCatchUpPassesTheFireLimitAreRefused() async throws {
        let serve = Self.stepLimited(100)
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            #expect(try await c.call(.post, "/v1/clock", body: #"{"t":"2026-11-23T09:00:00Z"}"#).status == 200)
            func back(_ id: String, minutes: Int) -> String {
                let t = Timestamp.string(millis: Timestamp.parseMillis("2026-11-23T09:00:00Z")! - Int64(minutes) * 60_000)
                return #"{"identifier":"\#(id)","content":{"title":"x"},"addedAt":"\#(t)","trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#
            }
            var a = try await c.call(.post, "/v1/requests", body: back("day", minutes: 1440))
            #expect(a.status == 422, "\(a.body)")
            #expect(a.body.contains("would deliver more than 100 time fires at once"), "\(a.body)")
            // 60 + 60 in one batch: the second passes the bound; 60 alone is taken.
            a = try await c.call(.post, "/v1/requests", body: "[" + back("a", minutes: 60) + "," + back("b", minutes: 60) + "]")
            #expect(a.body.contains("with the batch's other requests"), "\(a.body)")
            var stats = try await c.call(.get, "/v1/stats").json?.objectValue
            #expect(stats?["pendingRequests"] == .number(1), "\(String(describing: stats))")
            #expect(stats?["delivered"] == .number(60), "\(String(describing: stats))")
            // A request the center refuses (for a device that denied notifications) delivers
            // nothing, and counts nothing against the batch's others (a reviewer's find).
            #expect(try await c.call(.put, "/v1/devices/den/settings", body: #"{"authorizationStatus":"denied"}"#).status == 200)
            let invalid = back("c", minutes: 50).replacingOccurrences(of: #""addedAt""#, with: #""device":"den","addedAt""#)
            a = try await c.call(.post, "/v1/requests", body: "[" + invalid + "," + back("d", minutes: 60) + "]")
            #expect(a.json?.objectValue?["accepted"] == .number(1), "\(a.body)")
            stats = try await c.call(.get, "/v1/stats").json?.objectValue
            #expect(stats?["pendingRequests"] == .number(2), "\(String(describing: stats))")
        }
    }

    @Test func noLimitWhenItIsNull() async throws {
        var limits = TenantLimits()
        limits.maxClockJump = nil
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            #expect(try await c.call(.post, "/v1/fixes", body: Self.fix("2026-11-23T08:00:00Z")).json?.objectValue?["accepted"] == .number(1))
            #expect(try await c.call(.post, "/v1/fixes", body: Self.fix("2030-01-01T00:00:00Z")).json?.objectValue?["accepted"] == .number(1))
        }
    }

    /// 0 meant "no limit" here and "refuse every forward move" in `run --max-clock-jump 0`:
    /// now one rule (``ClockJumpRule``) for both, `null` being none; a config that says 0 is
    /// refused with what it meant before (read as a limit, it would lock a tenant after an
    /// upgrade, found by a review). A small limit refuses as `run` does, in its words.
    @Test func zeroIsRefusedAndASmallLimitRefusesAsRunDoes() async throws {
        var zero = TenantLimits()
        zero.maxClockJump = 0
        var configuration = Serve(limits: zero).configuration
        let refused = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(refused?.description.contains("write null for no limit") == true)
        var limits = TenantLimits()
        limits.maxClockJump = 0.5
        configuration.tenants = configuration.tenants.map { var t = $0; t.limits = limits; return t }
        try configuration.validate()
        let serve = Serve(limits: limits)
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            #expect(try await c.call(.post, "/v1/fixes", body: Self.fix("2026-11-23T08:00:00Z")).json?.objectValue?["accepted"] == .number(1))
            #expect(try await c.call(.post, "/v1/fixes", body: Self.fix("2026-11-23T08:00:00Z")).json?.objectValue?["accepted"] == .number(1))
            let a = try await c.call(.post, "/v1/fixes", body: Self.fix("2026-11-23T08:00:01Z"))
            #expect(a.json?.objectValue?["accepted"] == .number(0), "\(a.body)")
            #expect(a.body.contains("exceeds the tenant's maxClockJumpSeconds 0.5 s; fix not applied"), "\(a.body)")
        }
        let run = ClockJumpRule.refusal(from: 1_795_910_400_000, to: 1_795_910_401_000, limit: ClockJumpRule.limitMillis(0.5),
                                        limitName: "--max-clock-jump")
        #expect(run?.hasSuffix("exceeds --max-clock-jump 0.5 s; line not applied") == true)
    }

    /// The config file: absent is 7 days, `null` none, a number (fractions too) the limit.
    @Test(arguments: [(#"{}"#, Optional(604_800.0)), (#"{"maxClockJumpSeconds": null}"#, nil),
                      (#"{"maxClockJumpSeconds": 0}"#, 0), (#"{"maxClockJumpSeconds": 90.5}"#, 90.5)])
    func theLimitReadsFromTheConfigFile(_ json: String, _ expected: Double?) throws {
        let limits = try JSONDecoder().decode(TenantLimits.self, from: Data(json.utf8))
        #expect(limits.maxClockJump == expected)
        let back = try JSONDecoder().decode(TenantLimits.self, from: try JSONEncoder().encode(limits))
        #expect(back.maxClockJump == expected)
    }
}
