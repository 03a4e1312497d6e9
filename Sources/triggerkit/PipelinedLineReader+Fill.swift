import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
#endif

// The reading thread's filling of one chunk (``PipelinedLineReader``).

extension PipelinedLineReader {
    /// What one chunk leaves to the next: an unfinished line, or complete lines past
    /// ``LineReader/maxChunkLines`` (split before anything more is read), and the input's end
    /// when it came with such lines still carried.
    struct Carried {
        /// The carried bytes are `bytes[offset...]`.
        var bytes: [UInt8] = []
        var offset = 0
        var lines = false
        var ended: InputEnd?
    }

    /// Reads the next piece of input into `chunk` after the carried bytes, and splits its
    /// lines (at most ``LineReader/maxChunkLines``); what is left is carried on. A chunk grown
    /// for a long line goes back to `chunkSize` once the line has gone.
    /// `mayWait`: no chunk waits to be handed over, so a read may block for the rest of a line.
    static func fill(_ chunk: Chunk, fd: Int32, maxLine: Int, maxLines: Int, chunkSize: Int, carried: inout Carried,
                             mayWait: Bool) {
        chunk.failure = nil
        chunk.lines.removeAll(keepingCapacity: true)
        // Carried complete lines come a chunk's worth at a time (at least their first line):
        // copied whole into every chunk until they were all split, they cost time in the
        // square of their length (32 MiB of blank lines after a long line: 6.3 s, a
        // reviewer's find). An unfinished line comes whole, to be read on.
        let pending = carried.bytes.count - carried.offset
        var carry = pending
        if carried.lines && pending > chunkSize {
            let first = carried.bytes.withUnsafeBufferPointer { b -> Int in
                let from = UnsafeRawPointer(b.baseAddress! + carried.offset)
                return memchr(from, 0x0A, pending).map { UnsafeRawPointer($0) - from + 1 } ?? pending
            }
            carry = Swift.max(chunkSize, first)
        }
        let partial = carry < pending
        if carry >= chunk.buffer.count {
            chunk.grow(to: partial ? carry + 1 : 2 * carry)
        } else if chunk.buffer.count > chunkSize && carry < chunkSize / 2 {
            chunk.grow(to: chunkSize)
        }
        var buf = chunk.buffer
        carried.bytes.withUnsafeBufferPointer { c in
            if carry > 0 { buf.baseAddress!.update(from: c.baseAddress! + carried.offset, count: carry) }
        }
        var end = carry
        if carried.ended == nil && !carried.lines {
            var n: Int
            while true {
                repeat {
                    n = systemRead(fd, buf.baseAddress! + end, buf.count - end)
                } while n < 0 && errno == EINTR
                let from = end
                end += Swift.max(n, 0)
                // A chunk without a complete line reads on, growing as it fills: handed over, its
                // unfinished line was copied into the next chunk at every read, and a 64 MiB line
                // arriving through a pipe 64 KB at a time took about a minute (O(n²)). While a
                // chunk waits to be handed over, only input ready now is read (its lines are not
                // held back by a producer pausing mid-line).
                guard n > 0, end <= maxLine, mayWait || Self.readable(fd),
                      memchr(buf.baseAddress! + from, 0x0A, end - from) == nil else { break }
                if end == buf.count {
                    chunk.grow(to: 2 * buf.count, keeping: end)
                    buf = chunk.buffer
                }
            }
            if n <= 0 { carried.ended = n < 0 ? .failed(.io(errno)) : .eof }
        }
        chunk.failure = partial ? nil : carried.ended?.failure
        chunk.atEOF = !partial && carried.ended != nil
        chunk.cut = chunk.failure == nil && chunk.atEOF && end > 0 && buf[end - 1] != 0x0A
        // After a failed read the unfinished line is not a line. (Carried bytes of an
        // unfinished line hold no newline: searched from the new ones.)
        let (consumed, tooLong, full) = LineReader.split(UnsafeBufferPointer(buf), end: end, atEOF: chunk.atEOF && chunk.failure == nil,
                                                         maxLine: maxLine, maxLines: maxLines,
                                                         searchedTo: carried.lines ? 0 : carry, into: &chunk.lines)
        if tooLong {
            // The input stops at this line (``ReadFailure``), after the lines before it.
            chunk.failure = .lineTooLong
            chunk.atEOF = true
            chunk.cut = false
            carried = Carried()
            return
        }
        if partial {
            // The rest stays in the carried bytes, after this chunk's lines.
            carried.offset += consumed
            return
        }
        if full {
            // Lines left for the next chunk: this one is not the last.
            chunk.failure = nil
            chunk.atEOF = false
            chunk.cut = false
        }
        carried.bytes = Array(buf[consumed..<end])
        carried.offset = 0
        carried.lines = full
    }
}
