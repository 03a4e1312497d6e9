import Foundation

// Finding a requests file's record lines, on every core for a large file.

extension RequestsFile {
    /// A request line: its number (from 1), where the line starts, and its text without the
    /// blanks around it.
    typealias LineSpan = (line: Int, lineStart: Int, start: Int, end: Int)

    /// The lines of `bytes` from `first` on that hold a record (not blank, not a `#` comment).
    ///
    /// A large file is cut into `pieces` runs of whole lines, split on every core (the lines
    /// of 258 MB took 0.08 s on one thread before any record was decoded); each run numbers
    /// its lines from 0, and the runs are joined with their lines renumbered.
    static func requestLines(_ bytes: UnsafeBufferPointer<UInt8>, from first: Int, pieces: Int) -> [LineSpan] {
        let count = bytes.count - first
        let runs = count < 1 << 20 ? 1 : max(1, pieces)
        // Run j starts after the first newline at or past its even share of the bytes.
        var starts = [first]
        for j in 1..<max(1, runs) {
            var at = max(starts[j - 1], first + count * j / runs)
            if let base = bytes.baseAddress, at < bytes.count, let nl = memchr(base + at, 0x0A, bytes.count - at) {
                at = UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - base + 1
            } else {
                at = bytes.count
            }
            starts.append(at)
        }
        starts.append(bytes.count)
        let cuts = starts
        let parts = UnsafeMutableBufferPointer<(spans: [LineSpan], lines: Int)>.allocate(capacity: runs)
        parts.initialize(repeating: ([], 0))
        defer { parts.deinitialize(); parts.deallocate() }
        nonisolated(unsafe) let (out, text) = (parts, bytes)
        let split: @Sendable (Int) -> Void = { j in
            var spans: [LineSpan] = []
            var line = 0
            var start = cuts[j]
            let stop = cuts[j + 1]
            while start < stop {
                var end = stop
                if let base = text.baseAddress, let nl = memchr(base + start, 0x0A, stop - start) {
                    end = UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - base
                }
                line += 1
                var s = start, e = end
                while s < e, text[s] == 0x20 || text[s] == 0x09 { s += 1 }
                while e > s, text[e - 1] == 0x20 || text[e - 1] == 0x09 || text[e - 1] == 0x0D { e -= 1 }
                if s < e, text[s] != UInt8(ascii: "#") { spans.append((line, start, s, e)) }
                start = end + 1
            }
            out[j] = (spans, line)
        }
        ParallelChunks.perform(runs, split)
        if runs == 1 { return parts[0].spans }
        // Joined on every core too, each run copied to its place with its lines renumbered
        // (on one thread, this copy of a million spans was the loading's start with a core idle).
        var offsets = [0], linesBefore = [0]
        for j in 0..<runs {
            offsets.append(offsets[j] + parts[j].spans.count)
            linesBefore.append(linesBefore[j] + parts[j].lines)
        }
        let (at, before) = (offsets, linesBefore)
        return [LineSpan](unsafeUninitializedCapacity: offsets[runs]) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            ParallelChunks.perform(runs) { j in
                var k = at[j]
                for span in out[j].spans {
                    (buffer.baseAddress! + k).initialize(to: (span.line + before[j], span.lineStart, span.start, span.end))
                    k += 1
                }
                out[j].spans = []
            }
            initialized = at[runs]
        }
    }
}
