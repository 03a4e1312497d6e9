import ArgumentParser
import Foundation
@_spi(Engine) import TriggerKit

@main
struct TriggerKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "triggerkit",
        abstract: "Evaluate notification triggers (calendar, time interval, location) the way Apple's UserNotifications does.",
        discussion: """
        Requests files are a JSON array of request objects or NDJSON (one per line; blank lines \
        and lines starting with # are ignored). Dates are ISO 8601 (Z or an offset) or seconds \
        since 1970. Diagnostics go to stderr as 'error: FILE:LINE: IDENTIFIER: CODE: MESSAGE'.
        """,
        version: TriggerKitCommand.version,
        subcommands: [CheckCommand.self, NextCommand.self, RunCommand.self, PendingCommand.self, DeliveredCommand.self, PruneCommand.self, ServeCommand.self]
    )

    /// `triggerkit --version`.
    static let version = "0.5.0"
}

/// Writes a line to standard error: one line, whatever input text it quotes (control
/// characters escaped, ``DiagnosticText``).
func printError(_ s: String) {
    writeError(DiagnosticText.clipped(s, limit: 4096) + "\n")
}

/// Writes `text` to standard error. A failed write (closed, full, a broken pipe) is ignored:
/// nowhere is left to report it, and the exit status says what went wrong.
/// (`FileHandle.write` trapped there: `2>/dev/full`, `2>&-` or `next 2>&1 | head -1` ended
/// with SIGILL, a helper's find.)
func writeError(_ text: String) {
    guard !text.isEmpty else { return }
    var out = OutputBuffer(fd: 2)
    out.writer.bytes.append(contentsOf: text.utf8)
    out.flush()
}

/// Options shared by every command that reads requests.
struct RequestOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The requests file (JSON array or NDJSON); '-' reads standard input.", valueName: "FILE"))
    var requests: String

    @Option(name: .long, help: ArgumentHelp("IANA zone that floating calendar triggers (no timeZone) follow. Default: the TZ environment variable, else UTC.", valueName: "TZ"))
    var timeZone: String?

    /// Checked before the command runs, so that a bad zone gets the command's own usage line.
    func validate() throws {
        _ = try floatingZone()
    }

    func floatingZone() throws -> TimeZone {
        if let timeZone {
            guard let z = TimeZoneName.zone(timeZone) else {
                throw ValidationError("--time-zone: \(ZoneNames.why(timeZone, quote: "'")) (expected an IANA name such as Europe/Paris)")
            }
            return z
        }
        let tz = ProcessInfo.processInfo.environment["TZ"] ?? ""
        guard let z = TimeZoneName.zone(tz) else {
            throw ValidationError("TZ: \(ZoneNames.why(tz, quote: "'")) (expected an IANA name such as Europe/Paris, ':/etc/localtime', or a fixed offset such as UTC0 or EST5)")
        }
        return z
    }
}

/// The seconds `s` writes as a JSON number (the JSON reader's grammar), nil for anything
/// else: `Double(s)` also read `0x10`, `+5`, `.5` and `5.`, which a date option took as
/// seconds (a helper's find). Surrounding spaces, which JSON allows, are refused.
func jsonNumber(_ s: String) -> Double? {
    guard let first = s.utf8.first, let last = s.utf8.last, first == UInt8(ascii: "-") || first &- 0x30 < 10, last &- 0x30 < 10,
          case .number(let n)? = try? JSONValue.parse(s) else { return nil }
    return n
}

/// Parses a command-line date: ISO 8601 or seconds since 1970 (a JSON number).
func parseDateArgument(_ s: String, option: String) throws -> Date {
    var date: Date?
    if let ms = Timestamp.parseMillis(s) { date = Timestamp.date(millis: ms) }
    else if let secs = jsonNumber(s), secs.isFinite { date = Date(timeIntervalSince1970: secs) }
    guard let date else {
        throw ValidationError("\(option): '\(s)' is not an ISO 8601 date or a number of seconds since 1970")
    }
    guard RequestLimits.millis(date) != nil else {
        throw ValidationError("\(option): '\(s)' is outside the supported dates (0001-01-01 to 9999-12-31)")
    }
    return date
}
