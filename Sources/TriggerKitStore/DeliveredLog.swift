import Foundation
@_spi(Engine) import TriggerKit

/// The delivered log's compact form: `run`'s JSON lines without their `eventId` field, which
/// is derived from the other fields (identifier, device, event, date) and is put back when
/// the log is read. An eventId is 32 hex digits; storing it made a `run --state` write 9%
/// more bytes than with 16-digit ids. Lines that do not end in an eventId are kept as they
/// are (stores written before schema 2 keep theirs).
enum DeliveredLog {
    /// `,"eventId":"` + 32 hex digits + `"}`.
    static let suffixLength = 12 + 32 + 2
    static let marker = Array(#","eventId":""#.utf8)

    /// The lines with each trailing eventId field removed. O(bytes): one memchr per line and
    /// one 12-byte compare, bulk copies.
    static func strip(_ lines: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: lines.count)
        let written: Int = lines.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return 0 }
                var start = 0, w = 0
                let n = src.count
                while start < n {
                    let nl = memchr(s + start, 0x0A, n - start)
                    let end = nl.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - s } ?? n
                    var keep = end - start
                    if keep >= suffixLength + 2, s[end - 1] == 0x7D, s[end - 2] == 0x22,
                       memcmp(s + end - suffixLength, markerBytes, marker.count) == 0 {
                        keep -= suffixLength
                        memcpy(d + w, s + start, keep)
                        w += keep
                        d[w] = 0x7D
                        w += 1
                    } else {
                        memcpy(d + w, s + start, keep)
                        w += keep
                    }
                    if end < n { d[w] = 0x0A; w += 1 }
                    start = end + 1
                }
                return w
            }
        }
        out.removeLast(out.count - written)
        return out
    }

    /// ``marker`` as a C buffer for memcmp (static: allocated once).
    nonisolated(unsafe) static let markerBytes: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: marker.count)
        p.initialize(from: marker, count: marker.count)
        return p
    }()

    /// Whether a stored batch reads as `run` writes events: UTF-8, every line between a JSON
    /// object's braces (`{` ... `}`). O(n); the check a damaged row (a flipped byte, a hand
    /// edit) fails before it is listed.
    static func isWellFormed(_ stored: Data) -> Bool {
        stored.withUnsafeBytes { raw -> Bool in
            let b = raw.bindMemory(to: UInt8.self)
            guard String(validating: b, as: UTF8.self) != nil else { return false }
            var start = 0
            for i in b.indices where b[i] == 0x0A || i == b.count - 1 {
                let end = b[i] == 0x0A ? i : i + 1
                guard end > start, b[start] == 0x7B, b[end - 1] == 0x7D else { return false }
                start = i + 1
            }
            return true
        }
    }

    /// Puts every missing eventId back, giving the lines `run` wrote. O(bytes).
    static func restore(_ stored: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(stored.count + stored.count / 4)
        for line in stored.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let bytes = Array(line)
            if bytes.count > marker.count, !contains(bytes, marker),
               let v = try? bytes.withUnsafeBufferPointer({ try JSONValue.parse($0) }),
               case .object(let o) = v, case .string(let id)? = o["identifier"], case .string(let d)? = o["date"],
               let ms = Timestamp.parseMillis(d), case .string(let kind)? = o["trigger"] {
                var device: String?
                if case .string(let s)? = o["device"] { device = s }
                var event = kind
                if case .string(let e)? = o["event"] { event = e }
                out.append(contentsOf: bytes.dropLast())
                out.append(contentsOf: marker)
                out.append(contentsOf: EventID.make(identifier: id, device: device, event: event, date: ms).utf8)
                out.append(contentsOf: #""}"#.utf8)
            } else {
                out.append(contentsOf: bytes)
            }
            out.append(0x0A)
        }
        return out
    }

    private static func contains(_ a: [UInt8], _ m: [UInt8]) -> Bool {
        guard a.count >= m.count else { return false }
        for i in 0...(a.count - m.count) where a[i] == m[0] && a[i..<(i + m.count)].elementsEqual(m) { return true }
        return false
    }
}
