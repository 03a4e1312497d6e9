import Foundation
import Synchronization

/// A `flock` on a file held for the life of its owner: one writer per state file (`run
/// --state`) and per tenant file (`serve`).
package final class WriterLock: @unchecked Sendable {
    // Written once by `acquire` under the store's single-writer use, read in deinit.
    private var fd: Int32 = -1
    private var path = ""

    /// The files (their paths as locked) whose lock this process held and let go of: a child
    /// forked meanwhile may share it for a moment. Bounded by the state files a process opens.
    private static let released = Mutex<Set<String>>([])

    /// Whether this process held the lock on `path` and let go of it.
    package static func wasReleasedHere(_ path: String) -> Bool { released.withLock { $0.contains(path) } }

    package enum Outcome { case acquired, busy, failed(String) }

    package init() {}

    /// ``acquire(_:creating:)``, tried again every 10 ms for up to `wait` while it is busy and
    /// `retrying()` says so (a holder expected to let go soon).
    package func acquire(_ path: String, creating: Bool = false, waiting wait: Duration,
                         while retrying: () -> Bool = { true }) -> Outcome {
        let deadline = ContinuousClock.now + wait
        while true {
            let outcome = acquire(path, creating: creating)
            guard case .busy = outcome, ContinuousClock.now < deadline, retrying() else { return outcome }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Takes the lock on `path` (created first when `creating`), without waiting.
    package func acquire(_ path: String, creating: Bool = false) -> Outcome {
        if fd >= 0 { return .acquired }
        let f = creating ? open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644) : open(path, O_RDONLY | O_CLOEXEC)
        guard f >= 0 else { return .failed(String(cString: strerror(errno))) }
        if flock(f, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            close(f)
            return e == EWOULDBLOCK ? .busy : .failed(String(cString: strerror(e)))
        }
        fd = f
        self.path = path
        return .acquired
    }

    deinit {
        guard fd >= 0 else { return }
        close(fd)
        Self.released.withLock { _ = $0.insert(path) }
    }
}
