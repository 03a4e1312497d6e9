import ArgumentParser
import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
@_spi(StreamFastPath) @_spi(Engine) import TriggerKitStore

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Evaluate a stream of fixes from stdin and print fired requests on stdout.",
        discussion: """
        Input: one JSON object per line, {"device": "d1", "t": "2026-11-21T09:00:00Z", "lat": 40.7, \
        "lon": -73.9, "acc": 8.5} (device and acc optional; a line with t only advances the clock). \
        Before a line at time t is evaluated every calendar, time-interval and immediate fire with \
        date <= t is emitted. Output: one line per fire. A malformed line is reported on stderr as \
        'error: line N: reason' and skipped. A summary goes to stderr at the end.
        """
    )

    @OptionGroup var input: RequestOptions

    @Option(help: "Output format: json (one object per fire) or ids (identifiers only).")
    var format: String = "json"

    @Option(help: ArgumentHelp("Default addedAt of requests without one (ISO 8601 or seconds since 1970). Default: the first t of the stream.", valueName: "DATE"))
    var now: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Hysteresis for circles: entering needs distance <= radius - M, exiting distance > radius + M.", valueName: "METERS"))
    var margin: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("A crossing is confirmed only when every fix of that device for S seconds after the first fix on the new side agrees.", valueName: "SECONDS"))
    var dwell: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Fixes with acc above A carry no information about regions (they still advance the clock).", valueName: "METERS"))
    var maxAccuracy: Double?

    @Option(help: "fire: a device's first fix inside a region fires an entry; ignore (default): it only sets the state.")
    var initial: String = "ignore"

    @Option(help: ArgumentHelp("SQLite file keeping pending requests, device state and time-trigger cursors across restarts.", valueName: "FILE"))
    var state: String?

    @Option(help: ArgumentHelp("JSON object mapping device ids to notification settings ({\"authorizationStatus\": \"authorized\", \"soundSetting\": \"disabled\", ...}); \"*\" sets the default. Devices not allowed get their fires suppressed; device-scoped requests for them are refused (notificationsNotAllowed).", valueName: "FILE"))
    var settings: String?

    @Flag(help: "Stop at the first malformed line with exit status 1 (after flushing what was emitted).")
    var strict = false

    @Option(help: ArgumentHelp("JSON array of notification categories with their actions, for respond lines ([{\"identifier\": \"REMINDER\", \"actions\": [{\"identifier\": \"cancel\", \"title\": \"Cancel\", \"effect\": \"removeRequest\"}]}]).", valueName: "FILE"))
    var categories: String?

    // (Unconditional: `--max-clock-jump -1` is a value to refuse with the range, not a
    // missing one.)
    @Option(parsing: .unconditional, help: ArgumentHelp("A line moving stream time forward by more than this many seconds is an error line and is not applied; 'none' for no limit. Default: 604800 (7 days).", valueName: "SECONDS|none"))
    var maxClockJump: String = "604800"

    @Option(parsing: .unconditional, help: ArgumentHelp("Devices whose state is kept (each a fix, a settings line or a device's own request named); past this many, a fix or settings line naming another device is an error line and is not applied. 1 to 100000000.", valueName: "N"))
    var maxDevices = 1_000_000

    @Option(parsing: .unconditional, help: ArgumentHelp("Requests the stream holds (those of --requests and those `add` lines added, finished ones too); past this many, an `add` line with a new identifier is an error line and is not applied. 1 to 100000000.", valueName: "N"))
    var maxRequests = 10_000_000

    @Flag(help: "Read, parse and evaluate on one thread. By default a second thread reads and parses the input and decides the fixes' regions (and the moves of fences with rules) ahead of evaluation; the output is the same either way.")
    var singleThread = false

    @Option(help: "every (default): every due fire is written; coalesce: one line per request for the fires that became due in one step, with \"coalesced\": N. Either way, fires more than --max-clock-jump before the stream time they are caught up at are coalesced.")
    var catchUp: String = "every"

    /// --max-clock-jump in seconds (`nil` = none).
    var clockJumpLimit: TimeInterval? {
        maxClockJump == "none" ? nil : Double(maxClockJump)
    }

    func validate() throws {
        if let now { _ = try parseDateArgument(now, option: "--now") }
        guard EventFormat(rawValue: format) != nil else { throw ValidationError("--format must be json or ids") }
        guard initial == "fire" || initial == "ignore" else { throw ValidationError("--initial must be fire or ignore") }
        // Unconditional parsing above: `--margin -5` reaches these checks instead of "missing value".
        // The ranges every way in shares (``CenterConfiguration/validate()``).
        do throws(CenterError) {
            try OptionRules.margin(margin, field: "--margin")
            try OptionRules.seconds(dwell, field: "--dwell")
            if let a = maxAccuracy { try OptionRules.accuracy(a, field: "--max-accuracy") }
            try OptionRules.count(maxDevices, in: 1...OptionRules.maxDevices, field: "--max-devices")
            try OptionRules.count(maxRequests, in: 1...OptionRules.maxRequests, field: "--max-requests")
        } catch {
            throw ValidationError(error.description)
        }
        if maxClockJump != "none" {
            guard let j = Double(maxClockJump), j.isFinite, j >= 0 else {
                throw ValidationError("--max-clock-jump must be a number of seconds >= 0 or 'none'")
            }
        }
        guard catchUp == "every" || catchUp == "coalesce" else { throw ValidationError("--catch-up must be every or coalesce") }
    }

    /// What ``run()`` leaves for the process's exit to reclaim.
    nonisolated(unsafe) static var keptUntilExit: (StreamEvaluator, RequestSet)?
}
