import Foundation

/// Reads a file in 1 MB chunks with read(2) and hands over its lines (split with memchr),
/// the way the CLI's reader does, so the benchmark's reading cost is the CLI's.
enum ChunkedLines {
    static func forEach(path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { fatalError("cannot open \(path)") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var carry = 0
        var lines = 0
        while true {
            if carry == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let n = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress! + carry, raw.count - carry) }
            let end = carry + Swift.max(n, 0)
            let consumed: Int = buffer.withUnsafeBufferPointer { buf in
                var start = 0
                while start < end {
                    let rest = UnsafeRawPointer(buf.baseAddress! + start)
                    guard let nl = memchr(rest, 0x0A, end - start) else { break }
                    let stop = start + (UnsafeRawPointer(nl) - rest)
                    body(UnsafeBufferPointer(rebasing: buf[start..<stop]))
                    lines += 1
                    start = stop + 1
                }
                if n <= 0 && start < end {
                    body(UnsafeBufferPointer(rebasing: buf[start..<end]))
                    lines += 1
                    start = end
                }
                return start
            }
            if n <= 0 { return lines }
            let remaining = end - consumed
            if remaining > 0 && consumed > 0 {
                buffer.withUnsafeMutableBytes { raw in _ = memmove(raw.baseAddress!, raw.baseAddress! + consumed, remaining) }
            }
            carry = remaining
        }
    }
}
