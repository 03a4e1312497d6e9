import Foundation

// Fixed-width little-endian fields for the engine's binary state forms (fences' state in
// `run --state`, a center snapshot's device states and delivered history): a copy per field,
// no tree, no text. The reader never traps on damaged bytes: every read says nil when the
// bytes run out, and a count is refused when the rest could not hold that many elements.

/// Appends fixed-width fields, little-endian.
struct BinaryWriter {
    var out: [UInt8] = []

    mutating func bytes<C: Collection<UInt8>>(_ b: C) { out.append(contentsOf: b) }
    mutating func int<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
    /// A count (or length) as a `UInt32`.
    mutating func count(_ n: Int) { int(UInt32(truncatingIfNeeded: n)) }
    mutating func flag(_ b: Bool) { int(UInt8(b ? 1 : 0)) }
    /// A string: its UTF-8 length (``count(_:)``) and bytes.
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            count(u.count)
            out.append(contentsOf: u)
        }
    }
    /// A list of integers: its count, then each.
    mutating func ints<T: FixedWidthInteger>(_ list: [T]) {
        count(list.count)
        for v in list { int(v) }
    }
}

/// Reads what a ``BinaryWriter`` wrote; nil wherever the bytes are short or out of range.
struct BinaryReader {
    let raw: UnsafeRawBufferPointer
    var at: Int

    init(raw: UnsafeRawBufferPointer, at: Int = 0) {
        self.raw = raw
        self.at = at
    }

    var atEnd: Bool { at == raw.count }

    mutating func int<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard raw.count - at >= size else { return nil }
        defer { at += size }
        return T(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    /// A count of elements of at least `elementSize` bytes each: nil when the rest could not
    /// hold them (so a damaged count never reserves memory).
    mutating func count(elementSize: Int) -> Int? {
        guard let n = int(UInt32.self), Int(n) <= (raw.count - at) / Swift.max(1, elementSize) else { return nil }
        return Int(n)
    }

    /// The next `n` bytes, in place.
    mutating func span(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, raw.count - at >= n else { return nil }
        defer { at += n }
        return UnsafeRawBufferPointer(rebasing: raw[at..<(at + n)])
    }

    mutating func bytes(_ n: Int) -> [UInt8]? { span(n).map(Array.init) }

    mutating func flag() -> Bool? {
        guard let b = int(UInt8.self), b <= 1 else { return nil }
        return b == 1
    }

    /// A string ``BinaryWriter/string(_:)`` wrote; nil when it is not valid UTF-8.
    mutating func string() -> String? {
        guard let n = count(elementSize: 1), let s = span(n) else { return nil }
        return String(validating: s.bindMemory(to: UInt8.self), as: UTF8.self)
    }

    /// A list ``BinaryWriter/ints(_:)`` wrote.
    mutating func ints<T: FixedWidthInteger>(_: T.Type) -> [T]? {
        guard let n = count(elementSize: MemoryLayout<T>.size) else { return nil }
        var list: [T] = []
        list.reserveCapacity(n)
        for _ in 0..<n {
            guard let v = int(T.self) else { return nil }
            list.append(v)
        }
        return list
    }
}
