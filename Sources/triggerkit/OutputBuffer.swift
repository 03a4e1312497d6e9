import Foundation
import TriggerKit

/// Buffered standard output: one write(2) per ~64 KB or per flush, never one per line.
struct OutputBuffer {
    var writer = JSONWriter()

    init() { writer.bytes.reserveCapacity(1 << 16) }

    mutating func flushIfLarge() {
        if writer.bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !writer.bytes.isEmpty else { return }
        writer.bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(1, buf.baseAddress! + off, buf.count - off)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    break
                }
                off += n
            }
        }
        writer.bytes.removeAll(keepingCapacity: true)
    }
}
