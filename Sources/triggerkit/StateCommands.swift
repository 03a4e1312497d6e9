import ArgumentParser
import Foundation
@_spi(Engine) import TriggerKit
@_spi(Engine) import TriggerKitStore

/// Options of the commands that read a state file written by `run --state`.
struct StateFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("State file written by 'triggerkit run --state'.", valueName: "FILE"))
    var state: String

    /// Opens an existing store; a missing file is an error here (not a new empty store).
    func open() throws -> StateStore {
        guard FileManager.default.fileExists(atPath: state) else {
            printError("error: \(state): no such state file")
            throw ExitCode(2)
        }
        do {
            // Read-only: nothing is written, no file is created beside it.
            return try StateStore(readingAt: state)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
    }
}

extension StateFileOptions {
    /// Opens the store, lets `body` fill the output, flushes it; any store error is reported
    /// on stderr with exit status 2.
    func write(_ body: (StateStore, inout OutputBuffer) throws -> Void) throws {
        // A closed pipe is exit status 3, not a death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let store = try open()
        var out = OutputBuffer()
        do {
            // A run that stopped before its first commit (a full disk) leaves its tables and no
            // run record: said to be unfinished, as a half-made file is (it listed nothing,
            // status 0, as if nothing were pending; a helper filling a disk).
            guard try store.hasRun() else { throw StateStoreError.cannotOpen(path: state, reason: StateStore.unfinished) }
            try body(store, &out)
        } catch {
            // What was listed before the error is written first (`delivered`'s batches before
            // a damaged one: none were, a helper found).
            _ = out.flush()
            printError("error: \(error)")
            throw ExitCode(2)
        }
        guard out.flush() else {
            printError("error: writing to standard output failed (\(out.failure ?? "unknown"))")
            throw ExitCode(3)
        }
    }
}

struct PendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "Print the requests still pending in a state file, one contract JSON object per line.",
        discussion: """
        Each line is the request's JSON with the addedAt the run gave it (when it had none) and \
        "nextFire": its queued next fire (null for location triggers, which fire on fixes).
        """)

    @OptionGroup var options: StateFileOptions

    func run() throws {
        try options.write { store, out in
            for json in try store.pendingRequestsDetailed() {
                out.writer.value(json)
                out.writer.bytes.append(0x0A)
                guard out.flushIfLarge() else { break }
            }
        }
    }
}

struct DeliveredCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delivered",
        abstract: "Print the events delivered so far by runs on a state file, in the JSON of 'run', in delivery order.")

    @OptionGroup var options: StateFileOptions

    func run() throws {
        // A batch at a time: a log of millions of events was read into memory whole.
        try options.write { store, out in
            try store.forEachDeliveredBatch { lines in
                out.writer.bytes.append(contentsOf: lines)
                return out.flushIfLarge()
            }
        }
    }
}

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove delivered events dated before a date from a state file's delivered log.",
        discussion: """
        The delivered log grows with every fire; this bounds it. Takes the state file's writer \
        lock (refused while a run holds it), removes the events dated before --before, and \
        shrinks the file (without room on the disk to rewrite it, a warning: the removal \
        stands). Prints on stderr how many were removed and kept.
        """)

    @Option(help: ArgumentHelp("State file written by 'triggerkit run --state'.", valueName: "FILE"))
    var state: String

    @Option(help: ArgumentHelp("Remove the events dated before this date (ISO 8601 or seconds since 1970).", valueName: "DATE"))
    var before: String

    func validate() throws {
        _ = try parseDateArgument(before, option: "--before")
    }

    func run() throws {
        let date = try parseDateArgument(before, option: "--before")
        guard FileManager.default.fileExists(atPath: state) else {
            printError("error: \(state): no such state file")
            throw ExitCode(2)
        }
        do {
            let store = try StateStore(path: state)
            let summary = try store.pruneDelivered(before: date)
            // Said before the close: the removal is committed whatever the close does.
            printError("pruned \(state): \(summary.removed) delivered events dated before \(Timestamp.string(millis: Timestamp.millis(date))) removed, \(summary.kept) kept")
            if let reason = summary.notShrunk {
                printError("warning: \(state): the file was not shrunk (\(reason)); the removal stands, its space is reused by later writes, and the next prune tries again")
            }
            try store.closeCleanly()
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
    }
}
