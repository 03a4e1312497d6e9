import ArgumentParser
import Foundation
@_spi(Engine) import TriggerKit

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a requests file without evaluating it.",
        discussion: """
        Prints every problem on stderr, then 'N requests: N ok, N errors, N warnings'. \
        Exit status 1 when any request has an error. A calendar trigger that cannot fire \
        after its addedAt (or after --now, else the current time) is notificationInvalidNoDate.
        """
    )

    @OptionGroup var input: RequestOptions

    @Option(help: ArgumentHelp("Reference date for requests without addedAt (ISO 8601 or seconds since 1970). Default: the current time.", valueName: "DATE"))
    var now: String?

    func validate() throws {
        if let now { _ = try parseDateArgument(now, option: "--now") }
    }

    func run() throws {
        let options = ValidationOptions(now: try now.map { try parseDateArgument($0, option: "--now") },
                                        floatingTimeZone: try input.floatingZone())
        let set: RequestSet
        do {
            set = try RequestsFile.load(path: input.requests, options: options)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        var text = ""
        for d in set.diagnostics { text += d.description + "\n" }
        text += set.summary + "\n"
        writeError(text)
        if set.errorCount > 0 { throw ExitCode(1) }
    }
}
