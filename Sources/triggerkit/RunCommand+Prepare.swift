import ArgumentParser
import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
@_spi(StreamFastPath) @_spi(Engine) import TriggerKitStore

// What `run` has before its first input line: the settings, the requests and categories
// loaded and checked (their diagnostics written), the evaluator built, and with `--state`
// the saved run restored.

/// `run`'s requests, evaluator, control-line session and durable run, before any input line.
struct PreparedRun {
    let set: RequestSet
    let evaluator: StreamEvaluator
    var session: StreamSession
    let durable: DurableRun?
}

extension RunCommand {
    /// Loads and checks everything the options name (exit status 2 with the error on stderr
    /// when a file is unreadable or malformed) and writes the requests' diagnostics.
    func prepareRun() throws -> PreparedRun {
        let zone = try input.floatingZone()
        let nowDate = try now.map { try parseDateArgument($0, option: "--now") }
        var table: [String: NotificationSettings] = [:]
        var others = NotificationSettings.authorized
        if let settings {
            do {
                let json = try JSONValue.parse(document: try InputFile.contents(of: settings).get())
                (table, others) = try NotificationSettings.table(json: json)
            } catch {
                printError("error: \(settings): \(error)")
                throw ExitCode(2)
            }
        }
        let set: RequestSet
        do {
            // Without --now, a request without addedAt is added at the stream's first t (not
            // known yet): it is not judged against the machine's clock.
            var validation = ValidationOptions(
                now: nowDate, floatingTimeZone: zone, deviceSettings: table, defaultSettings: others,
                deferTimeChecks: nowDate == nil)
            validation.margin = margin
            set = try RequestsFile.load(path: input.requests, options: validation)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        var diag = set.diagnostics.map { $0.description + "\n" }.joined()
        var streamOptions = StreamOptions(
            margin: margin, dwell: dwell, maxAccuracy: maxAccuracy, initialFire: initial == "fire",
            floatingTimeZone: zone, now: nowDate, deviceSettings: table, defaultSettings: others)
        streamOptions.maxClockJump = clockJumpLimit
        streamOptions.maxDevices = maxDevices
        streamOptions.catchUp = catchUp == "coalesce" ? .coalesced : .everyFire
        let evaluator = StreamEvaluator(requests: set.requests, options: streamOptions, polygonsValidated: true)
        var sessionValidation = ValidationOptions(now: nowDate, floatingTimeZone: zone, deviceSettings: table, defaultSettings: others)
        sessionValidation.margin = margin
        var session = StreamSession(validation: sessionValidation, maxRequests: maxRequests)
        if let categories {
            do {
                let json = try JSONValue.parse(document: try InputFile.contents(of: categories).get())
                for c in try NotificationCategory.list(json: json) { session.categories[ExactKey(c.identifier)] = c }
            } catch {
                printError("error: \(categories): \(error)")
                throw ExitCode(2)
            }
        }
        // A request naming a category the run does not register is warned about, as an `add`
        // line and a library center warn (the file is read before the categories: said here).
        for (k, r) in set.requests.enumerated() {
            if let c = r.content.categoryIdentifier, session.categories[ExactKey(c)] == nil {
                diag += DiagnosticText.escaped("warning: \(input.requests):\(set.locations[k]): \(r.identifier): \(RequestValidation.unregisteredCategory(c))") + "\n"
            }
        }
        for bad in evaluator.refusedRegions {
            let r = set.requests[Int(bad.request)]
            diag += DiagnosticText.escaped("error: \(input.requests):\(set.locations[Int(bad.request)]): \(r.identifier): invalidRegion: \(bad.reason)") + "\n"
        }
        if !diag.isEmpty { writeError(diag) }

        // With --state, the library's DurableRun restores the saved run and says how many
        // input lines it already covers; those are skipped below.
        var durable: DurableRun?
        if let state {
            do {
                durable = try DurableRun(evaluator: evaluator, store: try StateStore(path: state))
            } catch {
                printError("error: \(error)")
                throw ExitCode(2)
            }
        }
        return PreparedRun(set: set, evaluator: evaluator, session: session, durable: durable)
    }
}
