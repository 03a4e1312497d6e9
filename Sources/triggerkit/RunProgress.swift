import Dispatch
import Foundation
import Synchronization
@_spi(Engine) import TriggerKit

/// What a long `run` tells the person watching it: a progress line on stderr about once a
/// second when stderr is a terminal (lines read, fixes per second, events), and the summary
/// line when it is interrupted (SIGINT: status 130, SIGTERM: 143) as at its end.
///
/// The interruption is handled by a plain `sigaction` handler installed before any input is
/// read (a dispatch signal source registers asynchronously: a signal arriving first was
/// lost). The handler does only what is safe in a signal handler: it writes the last
/// published summary (formatted ahead into one of two fixed buffers, once per input chunk of
/// about 1 MB, so at most a chunk behind) with write(2) and leaves with _exit(2).
final class RunProgress: Sendable {
    private let started = DispatchTime.now().uptimeNanoseconds
    private let lastShown = Mutex<UInt64>(0)
    private let showsProgress = isatty(2) == 1

    init() {
        SummaryBuffers.prepare(clearsLine: showsProgress)
        for sig in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in SummaryBuffers.writeAndExit(signal: sig) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
    }

    /// Publishes the stats after a chunk, and shows progress when a second has passed.
    func update(_ stats: StreamStats) {
        SummaryBuffers.publish(stats.description)
        guard showsProgress else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = lastShown.withLock { last in
            guard now - last >= 1_000_000_000 else { return false }
            last = now
            return true
        }
        guard due else { return }
        let seconds = Double(now - started) / 1e9
        let rate = seconds > 0 ? Double(stats.fixes) / seconds : 0
        writeError("\r\u{1B}[K\(stats.lines) lines, \(Int(rate)) fixes/s, \(stats.fires) events")
    }

    /// Clears the progress line before the summary is written.
    func finish() {
        if showsProgress { writeError("\r\u{1B}[K") }
    }
}

/// The two summary buffers the signal handler reads (fixed, allocated once, never freed).
private enum SummaryBuffers {
    static let capacity = 512
    nonisolated(unsafe) static var buffers: [UnsafeMutablePointer<UInt8>] = []
    nonisolated(unsafe) static var lengths = UnsafeMutablePointer<Int>.allocate(capacity: 2)
    static let current = Atomic<Int>(0)
    /// Set by the handler before it reads: no publish begins after it. (Two publishes while
    /// the handler wrote reused the buffer it was reading: a garbled summary, found by a
    /// helper with ThreadSanitizer.) At most one publish is in flight then, and it writes the
    /// buffer the handler does not read.
    static let handling = Atomic<Bool>(false)
    nonisolated(unsafe) static var clearsLine = false

    static func prepare(clearsLine: Bool) {
        buffers = [UnsafeMutablePointer<UInt8>.allocate(capacity: capacity), UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)]
        lengths[0] = 0
        lengths[1] = 0
        self.clearsLine = clearsLine
        publish(StreamStats().description)
    }

    /// Formats into the buffer the handler is not reading, then makes it current.
    static func publish(_ summary: String) {
        guard !handling.load(ordering: .sequentiallyConsistent) else { return }
        let next = 1 - current.load(ordering: .sequentiallyConsistent)
        let bytes = Array((summary + "\n").utf8.prefix(capacity))
        bytes.withUnsafeBufferPointer { buffers[next].update(from: $0.baseAddress.unsafelyUnwrapped, count: $0.count) }
        lengths[next] = bytes.count
        current.store(next, ordering: .sequentiallyConsistent)
    }

    /// The handler: async-signal-safe calls only.
    static func writeAndExit(signal: Int32) {
        func put(_ s: StaticString) { _ = write(2, s.utf8Start, s.utf8CodeUnitCount) }
        if clearsLine { put("\r\u{1B}[K") }
        handling.store(true, ordering: .sequentiallyConsistent)
        put(signal == SIGINT ? "interrupted (SIGINT): " : "interrupted (SIGTERM): ")
        let i = current.load(ordering: .sequentiallyConsistent)
        _ = write(2, buffers[i], lengths[i])
        _exit(signal == SIGINT ? 130 : 143)
    }
}
