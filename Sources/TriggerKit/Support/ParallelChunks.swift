import Foundation

/// Work over `0..<count` cut into contiguous chunks run on every core, for the passes over
/// every request that loading a large requests file makes (a million requests: tens of
/// milliseconds each on one core while the other waited).
///
/// Below ``threshold`` items, or on one core, the work runs on the calling thread as one chunk.
enum ParallelChunks {
    /// Fewer items than this are not worth a thread.
    static let threshold = 8_192

    /// The chunks of `0..<count`: as many as `pieces` (``defaultPieces`` unless given), each
    /// with at least ``threshold`` / 2 items; one below ``threshold``.
    static func ranges(_ count: Int, pieces: Int = defaultPieces) -> [Range<Int>] {
        let n = count < threshold ? 1 : max(1, min(pieces, count / (threshold / 2)))
        return (0..<n).map { count * $0 / n..<count * ($0 + 1) / n }
    }

    /// Two chunks per core: one slow chunk leaves the other core less idle.
    static var defaultPieces: Int { 2 * ProcessInfo.processInfo.activeProcessorCount }

    /// Calls `body` with each chunk of `0..<count` (and its number), on every core; returns when all are done.
    static func forEach(_ count: Int, pieces: Int = defaultPieces, _ body: @Sendable (Int, Range<Int>) -> Void) {
        let chunks = ranges(count, pieces: pieces)
        perform(chunks.count) { body($0, chunks[$0]) }
    }

    /// The results of `body` for each chunk of `0..<count`, joined in chunk order.
    static func map<T>(_ count: Int, pieces: Int = defaultPieces, _ body: @Sendable (Range<Int>) -> [T]) -> [T] {
        let chunks = ranges(count, pieces: pieces)
        if chunks.count == 1 { return body(chunks[0]) }
        var parts = results(chunks.count) { body(chunks[$0]) }
        var joined: [T] = []
        joined.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for k in parts.indices {
            joined.append(contentsOf: parts[k])
            parts[k] = []
        }
        return joined
    }

    /// `body(j)` for each `j` in `0..<count`, on every core; on the calling thread alone when
    /// `count` is 1. For work already cut into parts of its own (whole cells, whole lines).
    static func perform(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if count == 1 { body(0) } else { DispatchQueue.concurrentPerform(iterations: count, execute: body) }
    }

    /// `body(j)` for each `j` in `0..<count` (``perform(_:_:)``), the results in order of `j`.
    static func results<T>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        if count == 1 { return [body(0)] }
        let out = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
        out.initialize(repeating: nil)
        defer { out.deinitialize(); out.deallocate() }
        // Each element is written by one iteration alone.
        nonisolated(unsafe) let slots = out
        DispatchQueue.concurrentPerform(iterations: count) { slots[$0] = body($0) }
        return out.map { $0! }
    }
}
