import ArgumentParser
import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
@_spi(StreamFastPath) @_spi(Engine) import TriggerKitStore

// `run`'s body: with everything loaded (``RunCommand/prepareRun()``), every input line
// evaluated (on two threads unless `--single-thread`), its events written, and with `--state`
// committed.

extension RunCommand {
    func run() throws {
        let prepared = try prepareRun()
        let set = prepared.set
        var session = prepared.session
        let durable = prepared.durable
        // Replaced when a control line rebuilds it (see StreamSession).
        var outerEvaluator = prepared.evaluator
        let alreadyProcessed = durable?.resumePosition ?? 0
        var storeError: StateStoreError?

        // A closed pipe must be an error we report (and a batch we do not commit), not a
        // silent death by SIGPIPE; the default disposition would also lose the message.
        signal(SIGPIPE, SIG_IGN)
        let progress = RunProgress()
        let eventFormat = EventFormat(rawValue: format) ?? .json
        // The output, written by the line loop and the catch-up sink (see ``RunOutput``).
        let sink = RunOutput(progress: progress)
        var events: [FiredEvent] = []
        var errors = ""
        var failed = false
        var lineNumber = 0
        // --strict stopped at a malformed line (counted in the summary only, see below).
        var strictStop = false
        // With --state, the input ended inside a malformed last line, left unrecorded (see
        // below); counted in this run's summary only, as a --strict stop is.
        var cutLineStop = false
        // Each chunk of input lines, with their scans when a reader thread made them: reading
        // and scanning on a second thread, evaluating on this one (with --state too: the
        // durable run takes each line's bytes as this thread consumes them, in order).
        // Threaded, a run also decides each fix's regions ahead on the reader's thread
        // (``FixLookahead``): the same output, the geometry off the evaluating thread. A
        // resumed run's lines already processed get no geometry there.
        let threaded = !singleThread
        if durable == nil {
            // A catch-up step's fires (a per-second trigger after a week's jump: millions) are
            // written out as they are made, a chunk at a time, not held until the line ends (4
            // such requests held 760 MB, then 295 MB as events). With --state the delivered log
            // adopts the line's bytes, so they stay until then. (Dropped unrendered once writing
            // failed: the run stops at the end of the line.) Migrations keep the sink.
            outerEvaluator.catchUpSink = { e, fired in
                if sink.out.failure == nil {
                    for f in fired {
                        e.write(f, format: eventFormat, to: &sink.out.writer)
                        sink.flushIfLarge(publishing: e.stats)
                    }
                }
                fired.removeAll(keepingCapacity: true)
            }
        }
        var lookahead = threaded ? outerEvaluator.makeLookahead() : nil
        lookahead?.skippedLines = Int64(alreadyProcessed)
        let readFailure = LineReader.forEachChunk(fd: 0, threaded: threaded, lookahead: lookahead) { lines, scanned, ahead, cut in
            // A local for the hot loop: the captured `evaluator` variable (replaced only by
            // control lines) is read once per chunk, not once per line.
            var evaluator = outerEvaluator
            defer { outerEvaluator = evaluator }
            // With --state, the chunk's last line when the input ended inside it (else -1):
            // not recorded (see below).
            let cutLine = cut && durable != nil ? lines.count - 1 : -1
            for (k, original) in lines.enumerated() {
                lineNumber += 1
                // A BOM opening the stream is skipped, as in every input file; that line's
                // scan (made with it) is not used.
                var line = original
                var useScan = true
                if lineNumber == 1 { (line, useScan) = { let (l, had) = original.withoutBOM; return (l, !had) }() }
                if lineNumber <= alreadyProcessed {
                    // Covered by the saved state: only checked against what it consumed.
                    do throws(StateStoreError) { try durable?.resume(lineBytes: line.bytes) } catch { storeError = error; return false }
                    // Said once the skipped lines are known to be the ones consumed (a
                    // changed input is refused instead).
                    if lineNumber == alreadyProcessed, let state {
                        printError("resuming from \(state): skipping \(alreadyProcessed) line\(alreadyProcessed == 1 ? "" : "s") already processed")
                    }
                    continue
                }
                if line.isBlank {
                    // Blank, and the input ended inside it: not recorded either (see below).
                    if k != cutLine { durable?.skipLine(bytes: line.bytes) }
                    continue
                }
                events.removeAll(keepingCapacity: true)
                do throws(StreamLineError) {
                    // Parses and evaluates in one step; throws before changing anything.
                    if let durable {
                        if let scanned, useScan, let ahead, let geometry = ahead.geometry[k], ahead.moves.isEmpty {
                            try ahead.hits.withUnsafeBufferPointer { hits throws(StreamLineError) in
                                try durable.process(lineBytes: line.bytes, scanned: scanned[k], geometry: geometry, hits: hits,
                                                    moves: UnsafeBufferPointer(start: nil, count: 0), into: &events)
                            }
                        } else if let scanned, useScan, let ahead, let geometry = ahead.geometry[k] {
                            try ahead.hits.withUnsafeBufferPointer { hits throws(StreamLineError) in
                                try ahead.moves.withUnsafeBufferPointer { moves throws(StreamLineError) in
                                    try durable.process(lineBytes: line.bytes, scanned: scanned[k], geometry: geometry, hits: hits,
                                                        moves: moves, into: &events)
                                }
                            }
                        } else if let scanned, useScan {
                            try durable.process(lineBytes: line.bytes, scanned: scanned[k], geometry: nil,
                                                hits: UnsafeBufferPointer(start: nil, count: 0), moves: UnsafeBufferPointer(start: nil, count: 0),
                                                into: &events)
                        } else {
                            try durable.process(lineBytes: line.bytes, into: &events)
                        }
                    } else if let scanned, useScan {
                        if let ahead, let geometry = ahead.geometry[k], ahead.moves.isEmpty {
                            // (No fences with rules decided ahead in this chunk: one buffer to
                            // borrow, as before they were; a second closure per line cost 3-5 %
                            // with dwell on 1 % of circles.)
                            try ahead.hits.withUnsafeBufferPointer { hits throws(StreamLineError) in
                                try evaluator.process(lineBytes: line.bytes, scanned: scanned[k], geometry: geometry, hits: hits, into: &events)
                            }
                        } else if let ahead, let geometry = ahead.geometry[k] {
                            try ahead.hits.withUnsafeBufferPointer { hits throws(StreamLineError) in
                                try ahead.moves.withUnsafeBufferPointer { moves throws(StreamLineError) in
                                    try evaluator.process(lineBytes: line.bytes, scanned: scanned[k], geometry: geometry, hits: hits,
                                                          moves: moves, into: &events)
                                }
                            }
                        } else {
                            try evaluator.process(lineBytes: line.bytes, scanned: scanned[k], into: &events)
                        }
                    } else {
                        try evaluator.process(lineBytes: line.bytes, into: &events)
                    }
                } catch {
                    errors += "error: line \(lineNumber): \(DiagnosticText.clipped(error.reason, limit: 4096))\n"
                    // Under --strict the line is not counted as processed: a restart stops
                    // at it again. Nor is it in the state's counters (it is added to this run's
                    // summary after the last commit): each rerun counted it once more.
                    if strict {
                        failed = true
                        strictStop = true
                        return false
                    }
                    // The input ended inside this line (a producer stopped mid-line): with
                    // --state it is not recorded (nor counted in the state), so that a run
                    // resumed with the rest of the input reads it whole. Recorded, the whole
                    // line then differed from the consumed part and the state was refused
                    // ("its first N lines differ"). A complete last line without a newline
                    // (JSON, refused for what it says) is recorded as any other.
                    if k == cutLine, (try? JSONValue.parse(line.bytes)) == nil {
                        errors += "note: line \(lineNumber): the input ended inside this line (no newline after it): not recorded in the state; a run resumed with the rest of it reads the line whole\n"
                        cutLineStop = true
                        continue
                    }
                    evaluator.recordMalformedLine()
                    durable?.skipLine(bytes: line.bytes)
                    continue
                }
                let start = sink.out.writer.bytes.count
                if durable == nil && events.count > 1024 {
                    // Many events (what a catch-up's sink left, fences' catch-up): written out
                    // as they are rendered, not rendered whole first.
                    for e in events {
                        evaluator.write(e, format: eventFormat, to: &sink.out.writer)
                        guard sink.flushIfLarge(publishing: evaluator.stats) else { return false }
                    }
                } else {
                    for e in events { evaluator.write(e, format: eventFormat, to: &sink.out.writer) }
                }
                // The delivered log keeps the very bytes written (JSON): no second rendering.
                if let durable, eventFormat == .json, !events.isEmpty { durable.adoptRendered(sink.out.writer.bytes[start...]) }
                // The flag first: the optional `takeControl` returns is large, and copying it
                // out for every line cost a memmove per line.
                if evaluator.hasPendingControl, let control = evaluator.takeControl() {
                    // Written first (the events name the old evaluator's requests); then the change applies.
                    if durable != nil {
                        errors += "error: line \(lineNumber): add/remove/respond/categories lines are not supported with --state (the line only advanced the clock)\n"
                    } else {
                        for m in session.apply(control, at: evaluator.streamTime ?? 0, line: lineNumber, evaluator: &evaluator) {
                            errors += DiagnosticText.clipped(m, limit: 4096) + "\n"
                        }
                    }
                }
                guard sink.flushIfLarge(publishing: evaluator.stats) else { return false }
                if let durable, durable.isBatchDue {
                    // Output first, then the commit: a crash in between repeats this batch
                    // (same eventIds) instead of losing it; a failed write commits nothing.
                    progress.update(evaluator.stats)
                    guard sink.out.flush() else { return false }
                    do throws(StateStoreError) { try durable.commit() } catch { storeError = error; return false }
                }
            }
            // Published before the flush: once a reader sees this chunk's events, an
            // interruption's summary counts them.
            progress.update(evaluator.stats)
            // Flush once per input chunk so a live pipe sees its events promptly.
            guard sink.out.flush() else { return false }
            // Input with nothing more ready (a live pipe pausing), or a batch older than its
            // interval: the batch is committed at the chunk's end. The batch check runs per
            // line, so before, what a paused pipe's lines had written stayed unrecorded until
            // more input came (maybe never), and a crash meanwhile wrote it all again.
            if let durable, durable.hasUncommittedLines, durable.isBatchOld || !Self.inputIsReady() {
                do throws(StateStoreError) { try durable.commit() } catch { storeError = error; return false }
            }
            if !errors.isEmpty { writeError(errors); errors = "" }
            return true
        }
        if !errors.isEmpty { writeError(errors) }
        if sink.out.flush(), storeError == nil, let durable {
            // Only after every event was written: then the last batch is recorded.
            do throws(StateStoreError) {
                try durable.finishInput()
                try durable.commit()
                try durable.store.closeCleanly()
            } catch { storeError = error }
        }
        if let why = sink.out.failure {
            printError("error: writing events to standard output failed (\(why)); stopping"
                       + (durable != nil ? " without recording the unwritten events as delivered" : ""))
            throw ExitCode(3)
        }
        if let storeError {
            printError("error: \(storeError)")
            throw ExitCode(2)
        }
        progress.finish()
        if strictStop || cutLineStop { outerEvaluator.recordMalformedLine() }
        // Everything before was processed, written and (with --state) recorded: a run resumed
        // with an input that goes on from there continues.
        if let readFailure {
            printError(readFailure.isLine ? "error: line \(lineNumber + 1) \(readFailure)" : "error: \(readFailure)")
        }
        printError(outerEvaluator.stats.description)
        if readFailure != nil { throw ExitCode(2) }
        // (A refused `add` line, as a refused request of the file: the run goes to the end.)
        if failed || (strict && (set.errorCount > 0 || session.refusedAdds > 0)) { throw ExitCode(1) }
        // The process exits next: freeing a million requests one object at a time would
        // cost about half a second for nothing, so the evaluator and requests are kept.
        Self.keptUntilExit = (outerEvaluator, set)
    }

    /// Whether standard input has bytes ready (or its end) now; a file always has.
    static func inputIsReady() -> Bool {
        var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) != 0
    }
}

/// `run`'s output buffer, written by the per-line loop and by the evaluator's catch-up sink (an
/// escaping closure). A `var` captured by an escaping closure pays Swift's dynamic exclusivity
/// check at every access, several per line (about 3 % of a run's CPU with many events); held
/// here, the property opts out. Both writers run on the evaluating thread, one after the
/// other, never overlapping.
final class RunOutput {
    @exclusivity(unchecked) var out = OutputBuffer()
    let progress: RunProgress

    init(progress: RunProgress) { self.progress = progress }

    /// ``OutputBuffer/flushIfLarge()``, publishing `stats` as the interrupted summary first
    /// when it writes: a write blocked on a full pipe (a reader that stopped reading) may be
    /// where an interruption finds the run, and the summary, published once per chunk, said
    /// 0 lines with hundreds of events written.
    @discardableResult
    func flushIfLarge(publishing stats: @autoclosure () -> StreamStats) -> Bool {
        if out.isLarge { progress.update(stats()) }
        return out.flushIfLarge()
    }
}
