import Foundation
@_spi(Engine) import TriggerKit

/// Buffered standard output: one write(2) per ~64 KB or per flush, never one per line.
///
/// A write error (closed pipe, full disk, closed stdout) is sticky: the buffer keeps what
/// was not written, ``failure`` says why, and every later flush fails at once. `run --state`
/// commits a batch only after a flush succeeded, so nothing unwritten is ever recorded as
/// delivered.
struct OutputBuffer {
    var writer = JSONWriter()
    /// The first write error, as `strerror` says it.
    private(set) var failure: String?
    let fd: Int32

    init(fd: Int32 = 1) {
        self.fd = fd
        writer.bytes.reserveCapacity(1 << 16)
    }

    /// Whether ``flushIfLarge()`` would write (64 KB buffered).
    var isLarge: Bool { writer.bytes.count >= 1 << 16 }

    /// Flushes when 64 KB are buffered. Returns false once writing has failed.
    @discardableResult
    mutating func flushIfLarge() -> Bool {
        if isLarge { return flush() }
        return failure == nil
    }

    /// Writes everything buffered. Returns false (and keeps ``failure``) when a write fails.
    @discardableResult
    mutating func flush() -> Bool {
        guard failure == nil else { return false }
        guard !writer.bytes.isEmpty else { return true }
        var written = 0
        let error: Int32? = writer.bytes.withUnsafeBytes { buf -> Int32? in
            while written < buf.count {
                guard let base = buf.baseAddress else { return nil }
                let n = write(fd, base + written, buf.count - written)
                if n > 0 { written += n; continue }
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return n < 0 ? errno : EIO
            }
            return nil
        }
        if let error {
            writer.bytes.removeFirst(written)
            failure = String(cString: strerror(error))
            return false
        }
        writer.bytes.removeAll(keepingCapacity: true)
        return true
    }
}
