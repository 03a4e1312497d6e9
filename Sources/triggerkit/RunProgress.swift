import Dispatch
import Foundation
import Synchronization
@_spi(Engine) import TriggerKit

/// What a long `run` tells the person watching it: a progress line on stderr about once a
/// second when stderr is a terminal (lines read, fixes per second, events), and the summary
/// line when it is interrupted (SIGINT or SIGTERM) as at its end. The stats are published
/// once per input chunk (about 1 MB), so the interrupted summary is at most a chunk behind.
final class RunProgress: Sendable {
    private let published = Mutex(StreamStats())
    private let started = DispatchTime.now().uptimeNanoseconds
    private let lastShown = Mutex<UInt64>(0)
    private let showsProgress = isatty(2) == 1
    /// Kept alive for the process's life; set once in init, never touched again.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init() {
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            // The dispatch source receives the signal instead of its default action.
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        for (source, status) in zip(sources, [Int32(130), 143]) {
            source.setEventHandler { [self] in
                let stats = published.withLock { $0 }
                let name = status == 130 ? "SIGINT" : "SIGTERM"
                FileHandle.standardError.write(Data(((showsProgress ? "\r\u{1B}[K" : "") + "interrupted (\(name)): \(stats.description)\n").utf8))
                exit(status)
            }
            source.resume()
        }
    }

    /// Publishes the stats after a chunk, and shows progress when a second has passed.
    func update(_ stats: StreamStats) {
        published.withLock { $0 = stats }
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
        FileHandle.standardError.write(Data("\r\u{1B}[K\(stats.lines) lines, \(Int(rate)) fixes/s, \(stats.fires) events".utf8))
    }

    /// Clears the progress line before the summary is written.
    func finish() {
        if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
