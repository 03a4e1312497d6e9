import Foundation
import Synchronization
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// ``LineReader`` on a second thread, the lines' scanning shared by both: the caller sees the
/// same chunks, in the same order, as with ``LineReader/forEachChunk(fd:chunkSize:_:)`` (the
/// output cannot depend on it), each line with its ``ScannedLine``.
///
/// The reader thread reads a chunk, splits its lines and offers them for scanning in blocks
/// of ``blockLines``; it scans blocks itself, waits for the blocks the caller's thread took,
/// then (with a lookahead) decides the chunk's geometry and hands the chunk over. It reads the
/// next chunk first when input is ready, so the caller's thread, whenever it has no chunk to
/// evaluate, scans that one meanwhile: the thread with less to do scans more, whichever it is.
/// A live pipe with nothing ready is not waited on while a chunk is pending.
///
/// Bounded: ``chunkCount`` chunk buffers in rotation (the reader runs at most that many chunks
/// ahead; a chunk's buffer grows only to hold one line longer than it, as in ``LineReader``).
/// When `body` returns false the reader stops at its next chunk; a read already blocked on a
/// pipe is left to the process's exit.
enum PipelinedLineReader {
    /// Lines per block of scanning (about 25 µs of work): the unit the threads share.
    static let blockLines = 256
    /// Chunk buffers: one being read, one being scanned, one being decided, one being
    /// evaluated, one spare.
    static let chunkCount = 5

    /// One buffer, its lines and their scans. The lines point into the buffer, which is
    /// manually allocated so that it stays put until the chunk comes back free; so are the
    /// scans, which both threads write at once (disjoint blocks).
    final class Chunk: @unchecked Sendable {
        private(set) var buffer: UnsafeMutableBufferPointer<UInt8>
        var lines: [InputLine] = []
        private(set) var scans: UnsafeMutableBufferPointer<ScannedLine>
        /// With a lookahead: each line's geometry, their hits in one buffer.
        var ahead = DecidedAhead()
        var atEOF = false
        /// At the end of input, whether it ended inside the last line (no newline after it).
        var cut = false
        /// Why the input stopped before its end (the chunk is the last then).
        var failure: ReadFailure?
        /// Scanning: blocks in the chunk, blocks taken by a thread, blocks done.
        private(set) var blocks = 0
        let taken = Atomic<Int>(0)
        let done = Atomic<Int>(0)

        init(size: Int) {
            buffer = .allocate(capacity: size)
            scans = .allocate(capacity: 0)
        }
        deinit {
            buffer.deallocate()
            scans.deallocate()
        }
        func grow(to size: Int) {
            buffer.deallocate()
            buffer = .allocate(capacity: size)
        }
        /// Grows the buffer keeping its first `count` bytes.
        func grow(to size: Int, keeping count: Int) {
            let bigger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: size)
            if count > 0 { bigger.baseAddress!.update(from: buffer.baseAddress!, count: count) }
            buffer.deallocate()
            buffer = bigger
        }

        /// Readies the scans of ``lines`` to be shared out (before the chunk is offered).
        func prepareScans() {
            if scans.count < lines.count {
                // Doubling: chunks of slightly more lines each time (a pipe) reallocate rarely.
                // At most twice the most lines a chunk had, and never past the most a chunk
                // holds (``LineReader/maxChunkLines``).
                let capacity = Swift.max(lines.count, Swift.min(2 * scans.count, LineReader.maxChunkLines))
                scans.deallocate()
                scans = .allocate(capacity: capacity)
                scans.initialize(repeating: .unscanned)
            }
            blocks = (lines.count + PipelinedLineReader.blockLines - 1) / PipelinedLineReader.blockLines
            taken.store(0, ordering: .relaxed)
            done.store(0, ordering: .relaxed)
        }

        /// Takes and scans one block; false when every block was taken. Returns whether this
        /// block was the chunk's last to finish too.
        func scanBlock(_ scanner: inout LineScanner) -> (scanned: Bool, completed: Bool) {
            let b = taken.wrappingAdd(1, ordering: .relaxed).oldValue
            guard b < blocks else { return (false, false) }
            let from = b * PipelinedLineReader.blockLines
            let to = Swift.min(lines.count, from + PipelinedLineReader.blockLines)
            lines.withUnsafeBufferPointer { lines in
                for k in from..<to { scans[k] = scanner.scan(lines[k].bytes) }
            }
            // Releasing: the scans are seen by whichever thread sees the count.
            let finished = done.wrappingAdd(1, ordering: .releasing).newValue
            return (true, finished == blocks)
        }

        var isScanned: Bool { done.load(ordering: .acquiring) == blocks }
        var hasBlocksLeft: Bool { taken.load(ordering: .relaxed) < blocks }
        var scanned: UnsafeBufferPointer<ScannedLine> { UnsafeBufferPointer(rebasing: scans[..<lines.count]) }
    }

    /// Chunks travelling between the two threads (free ones back to the reader, offered ones
    /// being scanned, filled ones to the caller), under one condition variable.
    final class Exchange: @unchecked Sendable {
        private let condition = NSCondition()
        private var free: [Chunk]
        private var offered: [Chunk] = []
        private var filled: [Chunk] = []
        private var stopped = false
        /// Time (ns) the reader waited for a free chunk (the caller was behind) and the caller
        /// waited with nothing to evaluate or scan (the reader was behind).
        private var readerIdle: UInt64 = 0
        private var callerIdle: UInt64 = 0

        init(chunks: Int, size: Int) { free = (0..<chunks).map { _ in Chunk(size: size) } }

        func takeFree() -> Chunk? {
            condition.lock(); defer { condition.unlock() }
            if free.isEmpty && !stopped {
                let start = DispatchTime.now().uptimeNanoseconds
                while free.isEmpty && !stopped { condition.wait() }
                readerIdle += DispatchTime.now().uptimeNanoseconds - start
            }
            return stopped ? nil : free.removeLast()
        }
        /// Offers a chunk's lines for scanning.
        func offer(_ c: Chunk) {
            condition.lock(); offered.append(c); condition.broadcast(); condition.unlock()
        }
        /// Waits until every block of `c` is scanned; false when stopped.
        func waitScanned(_ c: Chunk) -> Bool {
            if c.isScanned { return true }
            condition.lock(); defer { condition.unlock() }
            while !c.isScanned && !stopped { condition.wait() }
            return !stopped
        }
        /// Says that the caller finished a chunk's last block.
        func scanCompleted() {
            condition.lock(); condition.broadcast(); condition.unlock()
        }
        func putFilled(_ c: Chunk) {
            condition.lock()
            offered.removeAll { $0 === c }
            filled.append(c)
            condition.broadcast()
            condition.unlock()
        }
        enum Work { case evaluate(Chunk), scan(Chunk) }
        /// The caller's next work: the next filled chunk, else a block to scan.
        func nextWork() -> Work {
            condition.lock(); defer { condition.unlock() }
            var since: UInt64?
            defer { if let since { callerIdle += DispatchTime.now().uptimeNanoseconds - since } }
            while true {
                if !filled.isEmpty { return .evaluate(filled.removeFirst()) }
                if let c = offered.first(where: { $0.hasBlocksLeft }) { return .scan(c) }
                if since == nil { since = DispatchTime.now().uptimeNanoseconds }
                condition.wait()
            }
        }
        func putFree(_ c: Chunk) {
            condition.lock(); free.append(c); condition.broadcast(); condition.unlock()
        }
        /// The two idle times so far (ns).
        func idle() -> (reader: UInt64, caller: UInt64) {
            condition.lock(); defer { condition.unlock() }
            return (readerIdle, callerIdle)
        }
        func stop() {
            condition.lock(); stopped = true; condition.broadcast(); condition.unlock()
        }
    }

    static func forEachChunk(fd: Int32, chunkSize: Int = 1 << 20, maxLine: Int = LineReader.maxLineBytes,
                             maxLines: Int = LineReader.maxChunkLines, lookahead: FixLookahead? = nil,
                             _ body: (_ lines: [InputLine], UnsafeBufferPointer<ScannedLine>, DecidedAhead?, _ cut: Bool) -> Bool) -> ReadFailure? {
        let exchange = Exchange(chunks: chunkCount, size: chunkSize)
        let reader = Thread { read(fd: fd, maxLine: maxLine, maxLines: maxLines, chunkSize: chunkSize, exchange, lookahead: lookahead) }
        reader.stackSize = 1 << 20
        reader.start()
        var scanner = LineScanner()
        while true {
            switch exchange.nextWork() {
            case .scan(let c):
                if c.scanBlock(&scanner).completed { exchange.scanCompleted() }
            case .evaluate(let chunk):
                var keepGoing = true
                if !chunk.lines.isEmpty || chunk.atEOF {
                    keepGoing = body(chunk.lines, chunk.scanned, lookahead == nil ? nil : chunk.ahead, chunk.cut)
                }
                let atEOF = chunk.atEOF, failure = chunk.failure
                exchange.putFree(chunk)
                if !keepGoing { exchange.stop(); return nil }
                if atEOF { return failure }
            }
        }
    }

    /// Whether input is ready to read at once (a file always is; a pipe when written to or
    /// closed).
    static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) != 0
    }

    /// The reader thread: fills free chunks until end of input (or a stop).
    private static func read(fd: Int32, maxLine: Int, maxLines: Int, chunkSize: Int, _ exchange: Exchange, lookahead: FixLookahead?) {
        var scanner = LineScanner()
        var lookahead = lookahead
        // Every device's geometry decided here to begin with (one owner: one set of
        // neighbourhoods), or three quarters with polygons, where geometry is most of the work
        // (see ``FixLookahead/startingShare``); the share moves only when the caller's thread
        // has nothing to do, not even scanning.
        if let start = lookahead?.startingShare { lookahead?.share = start }
        var carried = Carried()  // what a chunk leaves to the next
        var balance = ShareBalance()
        var pending: Chunk?  // read and offered, not yet decided
        var atEOF = false
        while true {
            var next: Chunk?
            // The next chunk is read first when that cannot block (so the caller's thread can
            // scan it while this one decides the pending one), or when none is pending.
            if !atEOF && (pending == nil || carried.lines || carried.ended != nil || readable(fd)) {
                guard let chunk = exchange.takeFree() else { return }
                fill(chunk, fd: fd, maxLine: maxLine, maxLines: maxLines, chunkSize: chunkSize, carried: &carried, mayWait: pending == nil)
                atEOF = chunk.atEOF
                chunk.prepareScans()
                exchange.offer(chunk)
                next = chunk
            }
            if let chunk = pending {
                while chunk.scanBlock(&scanner).scanned {}
                guard exchange.waitScanned(chunk) else { return }
                if var la = lookahead {
                    // Balancing the two threads (see ``ShareBalance``). Which thread decides a
                    // fix changes speed only.
                    la.rebalance(by: balance.step(idle: exchange.idle()))
                    // Worked on in locals (a class's stored property pays an exclusivity check per
                    // access); the optional let go first, or every array in `la` would be copied.
                    lookahead = nil
                    var ahead = DecidedAhead()
                    swap(&ahead, &chunk.ahead)
                    ahead.geometry.removeAll(keepingCapacity: true)
                    ahead.hits.removeAll(keepingCapacity: true)
                    ahead.moves.removeAll(keepingCapacity: true)
                    let scans = chunk.scanned
                    for k in chunk.lines.indices {
                        ahead.geometry.append(la.decide(chunk.lines[k].bytes, scans[k], hits: &ahead.hits, moves: &ahead.moves))
                    }
                    swap(&ahead, &chunk.ahead)
                    lookahead = la
                }
                exchange.putFilled(chunk)
                if chunk.atEOF { return }
            }
            pending = next
        }
    }
}

/// When the lookahead gives devices to the evaluating thread, or takes them back: judged on
/// the threads' idle time over windows of ``window`` chunks. The evaluating thread idle (with
/// nothing to evaluate or scan) for over ``threshold`` of a window means this thread is the
/// slower: an eighth of the devices goes to the other (two past twice the threshold); this
/// thread idle (waiting for a free chunk) that long, they come back. Anything less is noise:
/// moving devices costs (the two threads' tile caches and neighbourhoods then cover the same
/// ground), so a window with both below the threshold changes nothing. The first window (the
/// threads starting) only sets the baseline. (Judged on single waits instead, noise moved the
/// share: on 10,000 dense circles it drifted to 5 eighths and the run took 6 % longer than
/// with every device here.)
struct ShareBalance {
    static let window = 4
    static let threshold = 0.08
    private var chunks = 0
    private var started = false
    private var start = DispatchTime.now().uptimeNanoseconds
    private var last: (reader: UInt64, caller: UInt64) = (0, 0)

    /// Called once per chunk with the idle times so far: the change of share (-2 to +2).
    mutating func step(idle: (reader: UInt64, caller: UInt64)) -> Int {
        chunks += 1
        guard chunks >= Self.window else { return 0 }
        let now = DispatchTime.now().uptimeNanoseconds
        let span = Double(max(1, now - start))
        let caller = Double(idle.caller - last.caller) / span, reader = Double(idle.reader - last.reader) / span
        chunks = 0
        start = now
        last = idle
        guard started else {
            started = true
            return 0
        }
        if caller > Self.threshold && caller > reader { return caller > 2 * Self.threshold ? -2 : -1 }
        if reader > Self.threshold && reader > caller { return reader > 2 * Self.threshold ? 2 : 1 }
        return 0
    }
}
