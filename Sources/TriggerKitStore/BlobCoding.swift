import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// Compact little-endian blobs for the per-device integer lists: a device row stays a few
/// dozen bytes however many regions exist, and encoding is a copy, not a JSON round trip.
enum BlobCoding {
    /// Little-endian bytes of fixed-width integers.
    static func encode<T: FixedWidthInteger>(_ values: [T]) -> Data {
        var d = Data(capacity: values.count * MemoryLayout<T>.size)
        for v in values { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        return d
    }

    /// Decodes a blob of little-endian integers; `nil` when the length is not a multiple of
    /// their size (a damaged row must not be misread).
    static func decode<T: FixedWidthInteger>(_ d: Data, as type: T.Type) -> [T]? {
        let size = MemoryLayout<T>.size
        guard d.count % size == 0 else { return nil }
        var out: [T] = []
        out.reserveCapacity(d.count / size)
        d.withUnsafeBytes { raw in
            for k in stride(from: 0, to: raw.count, by: size) {
                out.append(T(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: T.self)))
            }
        }
        return out
    }

    static func decodeInt32s(_ d: Data) -> [Int32]? { decode(d, as: Int32.self) }
    static func decodeInt64s(_ d: Data) -> [Int64]? { decode(d, as: Int64.self) }
}
