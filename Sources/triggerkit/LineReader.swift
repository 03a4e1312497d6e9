import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// One line of input, without its newline (and without a trailing CR).
struct InputLine {
    let bytes: UnsafeBufferPointer<UInt8>

    var isBlank: Bool {
        for b in bytes where b != 0x20 && b != 0x09 { return false }
        return true
    }

    /// The line without a leading UTF-8 byte order mark (the rule of every input: a BOM at
    /// the start of a file or stream is skipped), and whether there was one.
    var withoutBOM: (line: InputLine, hadBOM: Bool) {
        guard bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF else { return (self, false) }
        return (InputLine(bytes: UnsafeBufferPointer(rebasing: bytes[3...])), true)
    }
}

/// Reads a file descriptor in 1 MB chunks with read(2) and splits lines with memchr:
/// about 10 ns a line, where `readLine()` costs over 100. A line cut by a chunk boundary
/// is carried over to the next chunk; a last line without newline is still delivered.
enum LineReader {
    /// Calls `body` with the complete lines of each chunk as soon as it arrives (so a live
    /// pipe is processed promptly); `body` returns false to stop. `threaded`: read and scan on
    /// a second thread (``PipelinedLineReader``), passing each line's scan, and with a
    /// `lookahead` each fix's geometry decided there too; else on this thread, passing nil.
    static func forEachChunk(fd: Int32, threaded: Bool, lookahead: FixLookahead? = nil,
                             _ body: ([InputLine], [ScannedLine]?, DecidedAhead?) -> Bool) {
        if threaded {
            PipelinedLineReader.forEachChunk(fd: fd, lookahead: lookahead) { body($0, $1, $2) }
        } else {
            forEachChunk(fd: fd) { body($0, nil, nil) }
        }
    }

    static func forEachChunk(fd: Int32, chunkSize: Int = 1 << 20, _ body: ([InputLine]) -> Bool) {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var carry = 0  // bytes of an unfinished line at the start of `buffer`
        var lines: [InputLine] = []
        while true {
            if carry == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let n = buffer.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress! + carry, raw.count - carry)
            }
            if n < 0 && errno == EINTR { continue }
            let end = carry + Swift.max(n, 0)
            let atEOF = n <= 0
            var keepGoing = true
            let consumed: Int = buffer.withUnsafeBufferPointer { buf in
                lines.removeAll(keepingCapacity: true)
                let start = split(buf, end: end, atEOF: atEOF, into: &lines)
                if !lines.isEmpty || atEOF { keepGoing = body(lines) }
                return start
            }
            if !keepGoing || atEOF { return }
            // Move the unfinished line to the front.
            let remaining = end - consumed
            if remaining > 0 && consumed > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + consumed, remaining)
                }
            }
            carry = remaining
        }
    }

    /// Appends the complete lines of `buf[0..<end]` (and at end of input the last, unfinished
    /// one); returns where the unfinished line starts.
    static func split(_ buf: UnsafeBufferPointer<UInt8>, end: Int, atEOF: Bool, into lines: inout [InputLine]) -> Int {
        var start = 0
        while start < end {
            let rest = UnsafeRawPointer(buf.baseAddress! + start)
            guard let nl = memchr(rest, 0x0A, end - start) else { break }
            let stop = start + (UnsafeRawPointer(nl) - rest)
            lines.append(InputLine(bytes: trimmed(buf, start, stop)))
            start = stop + 1
        }
        if atEOF && start < end {
            lines.append(InputLine(bytes: trimmed(buf, start, end)))
            start = end
        }
        return start
    }

    private static func trimmed(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ stop: Int) -> UnsafeBufferPointer<UInt8> {
        var e = stop
        if e > start, buf[e - 1] == 0x0D { e -= 1 }
        return UnsafeBufferPointer(rebasing: buf[start..<e])
    }
}

/// ``LineReader`` on a second thread: it reads, splits and scans the next chunks while the
/// caller's thread evaluates the current one, so `run` uses both cores. The caller sees the
/// same chunks, in the same order, as with ``LineReader/forEachChunk(fd:chunkSize:_:)``
/// (the output cannot depend on it), each line with its ``ScannedLine``.
///
/// Bounded: three chunk buffers in rotation (the reader runs at most two chunks ahead; a
/// buffer grows only to hold one line longer than it, as in ``LineReader``). When `body`
/// returns false the reader stops at its next chunk; a read already blocked on a pipe is left
/// to the process's exit.
enum PipelinedLineReader {
    /// One buffer and its lines. The lines point into the buffer, which is manually
    /// allocated so that it stays put until the chunk comes back free.
    final class Chunk: @unchecked Sendable {
        private(set) var buffer: UnsafeMutableBufferPointer<UInt8>
        var lines: [InputLine] = []
        var scanned: [ScannedLine] = []
        /// With a lookahead: each line's geometry, their hits in one buffer.
        var ahead = DecidedAhead()
        var atEOF = false
        init(size: Int) { buffer = .allocate(capacity: size) }
        deinit { buffer.deallocate() }
        func grow(to size: Int) {
            buffer.deallocate()
            buffer = .allocate(capacity: size)
        }
    }

    /// Chunks travelling between the two threads (free ones back to the reader, filled ones to
    /// the caller), under one condition variable.
    final class Exchange: @unchecked Sendable {
        private let condition = NSCondition()
        private var free: [Chunk]
        private var filled: [Chunk] = []
        private var stopped = false
        /// Times the reader waited for a free chunk (the caller was behind) and the caller
        /// waited for a filled one (the reader was behind).
        private var readerWaits = 0
        private var callerWaits = 0

        init(chunks: Int, size: Int) { free = (0..<chunks).map { _ in Chunk(size: size) } }

        func takeFree() -> Chunk? {
            condition.lock(); defer { condition.unlock() }
            if free.isEmpty && !stopped { readerWaits += 1 }
            while free.isEmpty && !stopped { condition.wait() }
            return stopped ? nil : free.removeLast()
        }
        func putFilled(_ c: Chunk) {
            condition.lock(); filled.append(c); condition.signal(); condition.unlock()
        }
        func takeFilled() -> Chunk {
            condition.lock(); defer { condition.unlock() }
            if filled.isEmpty { callerWaits += 1 }
            while filled.isEmpty { condition.wait() }
            return filled.removeFirst()
        }
        func putFree(_ c: Chunk) {
            condition.lock(); free.append(c); condition.signal(); condition.unlock()
        }
        /// The two wait counts so far.
        func waits() -> (reader: Int, caller: Int) {
            condition.lock(); defer { condition.unlock() }
            return (readerWaits, callerWaits)
        }
        func stop() {
            condition.lock(); stopped = true; condition.broadcast(); condition.unlock()
        }
    }

    static func forEachChunk(fd: Int32, chunkSize: Int = 1 << 20, lookahead: FixLookahead? = nil,
                             _ body: ([InputLine], [ScannedLine], DecidedAhead?) -> Bool) {
        let exchange = Exchange(chunks: 3, size: chunkSize)
        let reader = Thread { read(fd: fd, exchange, lookahead: lookahead) }
        reader.stackSize = 1 << 20
        reader.start()
        while true {
            let chunk = exchange.takeFilled()
            var keepGoing = true
            if !chunk.lines.isEmpty || chunk.atEOF { keepGoing = body(chunk.lines, chunk.scanned, lookahead == nil ? nil : chunk.ahead) }
            let atEOF = chunk.atEOF
            exchange.putFree(chunk)
            if !keepGoing { exchange.stop(); return }
            if atEOF { return }
        }
    }

    /// The reader thread: fills free chunks until end of input (or a stop).
    private static func read(fd: Int32, _ exchange: Exchange, lookahead: FixLookahead?) {
        var scanner = LineScanner()
        var lookahead = lookahead
        var carry: [UInt8] = []  // an unfinished line, moved to the next chunk
        var seen = (reader: 0, caller: 0)
        while let chunk = exchange.takeFree() {
            // Balancing the two threads: the lookahead takes more devices while the evaluating
            // thread is behind (this one waited for a free chunk), fewer while this one is
            // (the evaluating thread waited). Which thread decides a fix changes speed only.
            let waits = exchange.waits()
            if waits.caller > seen.caller {
                lookahead?.share -= 1
            } else if waits.reader > seen.reader {
                lookahead?.share += 1
            }
            seen = waits
            if carry.count >= chunk.buffer.count { chunk.grow(to: 2 * carry.count) }
            let buf = chunk.buffer
            carry.withUnsafeBufferPointer { c in
                if let base = c.baseAddress { buf.baseAddress!.update(from: base, count: c.count) }
            }
            var n: Int
            repeat {
                n = Glibc.read(fd, buf.baseAddress! + carry.count, buf.count - carry.count)
            } while n < 0 && errno == EINTR
            let end = carry.count + Swift.max(n, 0)
            chunk.atEOF = n <= 0
            chunk.lines.removeAll(keepingCapacity: true)
            chunk.scanned.removeAll(keepingCapacity: true)
            let consumed = LineReader.split(UnsafeBufferPointer(buf), end: end, atEOF: chunk.atEOF, into: &chunk.lines)
            for line in chunk.lines { chunk.scanned.append(scanner.scan(line.bytes)) }
            if var la = lookahead {
                // Worked on in locals (a class's stored property pays an exclusivity check per
                // access); the optional let go first, or every array in `la` would be copied.
                lookahead = nil
                var ahead = DecidedAhead()
                swap(&ahead, &chunk.ahead)
                ahead.geometry.removeAll(keepingCapacity: true)
                ahead.hits.removeAll(keepingCapacity: true)
                for k in chunk.lines.indices {
                    ahead.geometry.append(la.decide(chunk.lines[k].bytes, chunk.scanned[k], hits: &ahead.hits))
                }
                swap(&ahead, &chunk.ahead)
                lookahead = la
            }
            carry = Array(buf[consumed..<end])
            exchange.putFilled(chunk)
            if chunk.atEOF { return }
        }
    }
}

/// The geometry a ``FixLookahead`` decided for a chunk's lines (nil for lines it did not
/// decide), with their hits. Bounded by the chunk: the hits of its fixes (about 15 each in a
/// dense city), reused from chunk to chunk.
struct DecidedAhead {
    var geometry: [FixGeometry?] = []
    var hits: [RegionHit] = []
}
