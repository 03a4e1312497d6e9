import Foundation
@_spi(StreamFastPath) @_spi(Engine) import TriggerKit

/// Compact little-endian blobs for the per-device integer lists: a device row stays a few
/// dozen bytes however many regions exist, and encoding is a copy, not a JSON round trip.
enum BlobCoding {
    static func encode(_ values: [Int32]) -> Data {
        var d = Data(capacity: values.count * 4)
        for v in values { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        return d
    }

    static func encode(_ values: [Int64]) -> Data {
        var d = Data(capacity: values.count * 8)
        for v in values { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        return d
    }

    /// Decodes a blob of 4-byte integers; `nil` when the length is not a multiple of 4
    /// (a damaged row must not be misread).
    static func decodeInt32s(_ d: Data) -> [Int32]? {
        guard d.count % 4 == 0 else { return nil }
        var out: [Int32] = []
        out.reserveCapacity(d.count / 4)
        d.withUnsafeBytes { raw in
            for k in stride(from: 0, to: raw.count, by: 4) {
                out.append(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: Int32.self)))
            }
        }
        return out
    }

    static func decodeInt64s(_ d: Data) -> [Int64]? {
        guard d.count % 8 == 0 else { return nil }
        var out: [Int64] = []
        out.reserveCapacity(d.count / 8)
        d.withUnsafeBytes { raw in
            for k in stride(from: 0, to: raw.count, by: 8) {
                out.append(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: Int64.self)))
            }
        }
        return out
    }
}
