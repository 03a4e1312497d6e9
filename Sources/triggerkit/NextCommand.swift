import ArgumentParser
import Foundation
@_spi(Engine) import TriggerKit

struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Print the next fire dates of requests.",
        discussion: """
        Per request, in input order, one NDJSON line {"identifier": ..., "next": [dates]} with up \
        to --count successive fires strictly after the reference date: --after when given, else \
        the request's addedAt, else now. Non-repeating triggers have at most one date, location \
        triggers none. With --merged: the --limit soonest fires across all requests, one line \
        {"identifier": ..., "date": ...} each, in date order (ties by identifier).
        """
    )

    @OptionGroup var input: RequestOptions

    @Option(help: ArgumentHelp("Reference date (ISO 8601 or seconds since 1970) instead of each request's addedAt: dates strictly after it are listed (a time interval still counts from its addedAt).", valueName: "DATE"))
    var after: String?

    // Unconditional parsing: `--count -1` reaches validate() (a clear error), not "missing value".
    @Option(parsing: .unconditional, help: ArgumentHelp("How many successive fire dates per request (1-100000).", valueName: "N"))
    var count: Int = 1

    @Option(name: .customLong("identifier"), help: ArgumentHelp("Only this request (repeatable).", valueName: "ID"))
    var identifiers: [String] = []

    @Flag(help: "Print the soonest fires across all requests, merged in date order.")
    var merged = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --merged: how many fires, 0-100000 (default: 64, as iOS keeps 64 pending).", valueName: "K"))
    var limit: Int?

    @Option(help: ArgumentHelp("The current time, for requests without addedAt when --after is not given. Default: the clock.", valueName: "DATE"))
    var now: String?

    @Flag(help: "Print to standard error, at the end: requests, dates, time taken and how often the engine asked Foundation (by reason).")
    var stats = false

    func validate() throws {
        if let after { _ = try parseDateArgument(after, option: "--after") }
        if let now { _ = try parseDateArgument(now, option: "--now") }
        let most = RequestLimits.maximumQueryCount
        guard (1...most).contains(count) else { throw ValidationError("--count must be between 1 and \(most), not \(count)") }
        if let limit {
            guard merged else { throw ValidationError("--limit applies to --merged only (per request, use --count)") }
            guard (0...most).contains(limit) else { throw ValidationError("--limit must be between 0 and \(most), not \(limit)") }
        }
        if merged && count != 1 { throw ValidationError("--count applies without --merged only (merged, use --limit)") }
    }

    func run() throws {
        // A closed pipe (`| head`) is exit status 3 with a message, as for `run`, not a
        // silent death by SIGPIPE (status 141).
        signal(SIGPIPE, SIG_IGN)
        let started = DispatchTime.now().uptimeNanoseconds
        var dateCount = 0
        let zone = try input.floatingZone()
        let afterDate = try after.map { try parseDateArgument($0, option: "--after") }
        let nowDate = try now.map { try parseDateArgument($0, option: "--now") } ?? Date()
        let set: RequestSet
        do {
            set = try RequestsFile.load(path: input.requests, options: ValidationOptions(now: afterDate ?? nowDate, floatingTimeZone: zone))
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        if !set.diagnostics.isEmpty {
            writeError(set.diagnostics.map { $0.description + "\n" }.joined())
        }
        var requests = set.requests
        var unmatched: [String] = []
        if !identifiers.isEmpty {
            let wanted = Set(identifiers.map(ExactKey.init))
            requests = requests.filter { wanted.contains(ExactKey($0.identifier)) }
            let found = Set(requests.map { ExactKey($0.identifier) })
            unmatched = identifiers.filter { !found.contains(ExactKey($0)) }
            for id in unmatched {
                printError("error: --identifier \(id): no valid request in \(input.requests) has this identifier")
            }
        }
        let defaultStart = Timestamp.millis(afterDate ?? nowDate)
        var out = OutputBuffer()
        if merged {
            // The same reference as per request: strictly after --after, else after each
            // request's addedAt, where an immediate request's only fire lies: it is not listed
            // (as its per-request "next" is empty).
            let listed = afterDate == nil ? requests.filter { $0.trigger != .immediate } : requests
            let schedule = FireSchedule(requests: listed, defaultAddedAt: defaultStart, floatingTimeZone: zone,
                                        after: afterDate.map(Timestamp.millis))
            let soonest = schedule.soonest(limit ?? 64)
            dateCount = soonest.count
            for f in soonest {
                let r = listed[Int(schedule.entries[Int(f.slot)].request)]
                out.writer.raw("{\"identifier\":")
                out.writer.string(r.identifier)
                out.writer.raw(",\"date\":")
                out.writer.timestamp(millis: f.date)
                out.writer.raw("}\n")
                // Nothing more to compute once the reader is gone.
                guard out.flushIfLarge() else { break }
            }
        } else {
            for r in requests {
                let start = r.addedAt.map(Timestamp.millis) ?? defaultStart
                let reference = afterDate.map(Timestamp.millis) ?? start
                // An expiring request has no fire at or after its expiry.
                let expires = r.expiresAt.flatMap(RequestLimits.millis) ?? .max
                let dates = (TimeRule(r.trigger, addedAt: start, floatingTimeZone: zone)?.fires(after: reference, count: count) ?? [])
                    .filter { $0 < expires }
                dateCount += dates.count
                out.writer.raw("{\"identifier\":")
                out.writer.string(r.identifier)
                out.writer.raw(",\"next\":[")
                for (k, d) in dates.enumerated() {
                    if k > 0 { out.writer.raw(",") }
                    out.writer.timestamp(millis: d)
                }
                out.writer.raw("]}\n")
                // Nothing more to compute once the reader is gone.
                guard out.flushIfLarge() else { break }
            }
        }
        guard out.flush() else {
            printError("error: writing to standard output failed (\(out.failure ?? "unknown"))")
            throw ExitCode(3)
        }
        if stats {
            let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            let reasons = CalendarFallbacks.Reason.allCases.map { "\($0): \(CalendarFallbacks.count($0))" }.joined(separator: ", ")
            printError("next: \(requests.count) requests, \(dateCount) dates, \(String(format: "%.1f", ms)) ms; Foundation fallbacks: \(CalendarFallbacks.total) (\(reasons))")
        }
        if set.errorCount > 0 || !unmatched.isEmpty { throw ExitCode(1) }
    }
}
