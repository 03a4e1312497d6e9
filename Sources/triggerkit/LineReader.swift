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

/// How the input ended: its end, or a failed read (``ReadFailure/io(_:)``).
enum InputEnd {
    case eof
    case failed(ReadFailure)

    var failure: ReadFailure? { if case .failed(let f) = self { f } else { nil } }
    /// What read(2) returned.
    var readResult: Int { if case .eof = self { 0 } else { -1 } }
}

/// Why reading the input stopped before its end: after it, the lines before were processed
/// and nothing more is read.
enum ReadFailure: Error, CustomStringConvertible {
    /// A line longer than ``LineReader/maxLineBytes`` (no newline within them): reading on
    /// would hold it whole, so a producer that never writes a newline could exhaust memory.
    case lineTooLong
    /// read(2) failed with this errno (standard input a directory, an I/O error).
    case io(Int32)

    /// Whether it is about a line (named by its number) rather than the input as a whole.
    var isLine: Bool { if case .lineTooLong = self { true } else { false } }

    var description: String {
        switch self {
        case .lineTooLong: "is longer than \(LineReader.maxLineBytes) bytes (no newline within them): the run stops here"
        case .io(let e): "reading standard input failed (\(String(cString: strerror(e)))): the run stops here"
        }
    }
}

/// Reads a file descriptor in 1 MB chunks with read(2) and splits lines with memchr:
/// about 10 ns a line, where `readLine()` costs over 100. A line cut by a chunk boundary
/// is carried over to the next chunk; a last line without newline is still delivered.
enum LineReader {
    /// The longest line read (64 MiB, newline excluded): a longer one stops the input with
    /// ``ReadFailure/lineTooLong`` after the lines before it. A buffer holds at most about
    /// twice this much, plus a chunk.
    static let maxLineBytes = 64 << 20
    /// The most lines a chunk holds (1 MiB of 16-byte lines): each line costs about 100 bytes
    /// beside its text (its place, its scan, its geometry), so a chunk of a million blank lines
    /// held 100 MB, and `run` peaked at 522 MB on 4 MiB of them (a helper's find). The lines
    /// past it stay in the buffer for the next chunk; ordinary lines (30-100 bytes) never reach
    /// it.
    static let maxChunkLines = 65_536

    /// Calls `body` with the complete lines of each chunk as soon as it arrives (so a live
    /// pipe is processed promptly); `body` returns false to stop. `threaded`: read on a second
    /// thread and scan on both (``PipelinedLineReader``), passing each line's scan, and with a
    /// `lookahead` each fix's geometry decided on the second; else on this thread, passing nil.
    /// `cut` is true for the last chunk when the input ended inside its last line (no
    /// newline after it: a producer stopped mid-line, or a file without a final newline).
    /// Returns why the input stopped before its end, if it did (the lines before it were
    /// all passed to `body`; an unfinished last line is not).
    @discardableResult
    static func forEachChunk(fd: Int32, threaded: Bool, lookahead: FixLookahead? = nil,
                             _ body: (_ lines: [InputLine], UnsafeBufferPointer<ScannedLine>?, DecidedAhead?, _ cut: Bool) -> Bool) -> ReadFailure? {
        if threaded {
            PipelinedLineReader.forEachChunk(fd: fd, lookahead: lookahead) { body($0, $1, $2, $3) }
        } else {
            forEachChunk(fd: fd) { body($0, nil, nil, $1) }
        }
    }

    @discardableResult
    static func forEachChunk(fd: Int32, chunkSize: Int = 1 << 20, maxLine: Int = maxLineBytes, maxLines: Int = maxChunkLines,
                             _ body: (_ lines: [InputLine], _ cut: Bool) -> Bool) -> ReadFailure? {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        // Bytes carried from the last chunk: `carry` of them at `carryStart`.
        var carry = 0, carryStart = 0
        // The carried bytes are complete lines past ``maxChunkLines`` (then they are split
        // where they are, before anything more is read: moved to the front at every chunk,
        // they cost time in the square of their length), not an unfinished line; and the
        // input's end, when it came with lines still carried (nil: not yet).
        var carriedLines = false
        var ended: InputEnd?
        var lines: [InputLine] = []
        while true {
            if !carriedLines && carryStart > 0 {
                // An unfinished line: to the front, to read the rest after it.
                if carry > 0 {
                    buffer.withUnsafeMutableBytes { raw in
                        _ = memmove(raw.baseAddress!, raw.baseAddress! + carryStart, carry)
                    }
                }
                carryStart = 0
            }
            // Back to a chunk's size once a long line has gone (the buffer grew to hold it, and
            // every read after it filled the grown buffer).
            if !carriedLines && buffer.count > chunkSize && carry < chunkSize / 2 {
                buffer = Array(buffer[0..<carry]) + [UInt8](repeating: 0, count: chunkSize - carry)
            }
            if !carriedLines && carry == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            var n = 0
            if let ended {
                n = ended.readResult
            } else if !carriedLines {
                n = buffer.withUnsafeMutableBytes { raw in
                    read(fd, raw.baseAddress! + carry, raw.count - carry)
                }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { ended = n < 0 ? .failed(.io(errno)) : .eof }
            }
            let failure = ended?.failure
            let end = carry + Swift.max(n, 0)  // from `carryStart`
            let atEOF = ended != nil
            var keepGoing = true
            var tooLong = false
            var full = false
            let consumed: Int = buffer.withUnsafeBufferPointer { whole in
                let buf = UnsafeBufferPointer(rebasing: whole[carryStart..<(carryStart + end)])
                lines.removeAll(keepingCapacity: true)
                // After a failed read the unfinished line is not a line.
                // Carried bytes of an unfinished line hold no newline: searched from the new ones.
                let split = split(buf, end: end, atEOF: atEOF && failure == nil, maxLine: maxLine, maxLines: maxLines,
                                  searchedTo: carriedLines ? 0 : carry, into: &lines)
                tooLong = split.tooLong
                full = split.full
                if !lines.isEmpty || atEOF || tooLong {
                    keepGoing = body(lines, !full && !tooLong && failure == nil && atEOF && end > 0 && buf[end - 1] != 0x0A)
                }
                return split.consumed
            }
            if !keepGoing { return nil }
            if tooLong { return .lineTooLong }
            if atEOF && !full { return failure }
            // What is left (lines past the limit, or an unfinished line) stays where it is.
            carryStart += consumed
            carry = end - consumed
            carriedLines = full
        }
    }

    /// Appends the complete lines of `buf[0..<end]` (and at end of input the last, unfinished
    /// one); returns where the unfinished line starts.
    ///
    /// A line longer than `maxLine` bytes (its newline excluded), complete or not, ends the
    /// split before it with `tooLong`: the lines before it are appended, it is not. (Checked
    /// on every line, so whether a long line is refused does not depend on how reads cut the
    /// input: a pipe's small reads let one through where a file's did not.)
    ///
    /// `searchedTo`: `buf[0..<searchedTo]` is known to hold no newline (an unfinished line
    /// carried from the last read), so the search starts after it. Searched again at every
    /// read, a line arriving through a pipe 64 KB at a time cost O(n²): 2.6 s for 64 MiB.
    static func split(_ buf: UnsafeBufferPointer<UInt8>, end: Int, atEOF: Bool, maxLine: Int = maxLineBytes,
                      maxLines: Int = maxChunkLines, searchedTo: Int = 0,
                      into lines: inout [InputLine]) -> (consumed: Int, tooLong: Bool, full: Bool) {
        var start = 0
        let limit = lines.count + maxLines
        while start < end {
            let from = start == 0 ? Swift.min(searchedTo, end) : start
            let rest = UnsafeRawPointer(buf.baseAddress! + from)
            guard let nl = memchr(rest, 0x0A, end - from) else { break }
            let stop = from + (UnsafeRawPointer(nl) - rest)
            if stop - start > maxLine { return (start, true, false) }
            if lines.count == limit { return (start, false, true) }
            lines.append(InputLine(bytes: trimmed(buf, start, stop)))
            start = stop + 1
        }
        if end - start > maxLine { return (start, true, false) }
        if atEOF && start < end {
            if lines.count == limit { return (start, false, true) }
            lines.append(InputLine(bytes: trimmed(buf, start, end)))
            start = end
        }
        return (start, false, false)
    }

    private static func trimmed(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ stop: Int) -> UnsafeBufferPointer<UInt8> {
        var e = stop
        if e > start, buf[e - 1] == 0x0D { e -= 1 }
        return UnsafeBufferPointer(rebasing: buf[start..<e])
    }
}

/// The geometry a ``FixLookahead`` decided for a chunk's lines (nil for lines it did not
/// decide), with their hits. Bounded by the chunk: the hits of its fixes (about 15 each in a
/// dense city), reused from chunk to chunk.
struct DecidedAhead {
    var geometry: [FixGeometry?] = []
    var hits: [RegionHit] = []
    /// The moves of fences with rules (``FixGeometry/fenceStart``).
    var moves: [FenceMove] = []
}
