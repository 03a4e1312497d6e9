import Foundation
/// A string compared as its exact sequence of Unicode scalars (equivalently, its UTF-8
/// bytes), for identifiers and device ids.
///
/// Why: Swift's `String` equality and hashing use canonical equivalence, so `"café"` spelled
/// with U+00E9 and with `e` + U+0301 would be one key. The contract (section 5) makes them two
/// requests, as Apple's center does (it compares `NSString`s literally). Use this type for
/// every dictionary, set or sort keyed by an identifier or a device id.
package struct ExactKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (a: ExactKey, b: ExactKey) -> Bool {
        var x = a.string, y = b.string
        guard x.utf8.count == y.utf8.count else { return false }
        return x.withUTF8 { p in y.withUTF8 { q in p.count == 0 || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 } }
    }

    package func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Unicode scalar order (UTF-8 byte order is the same order).
    package static func < (a: ExactKey, b: ExactKey) -> Bool {
        var x = a.string, y = b.string
        return x.withUTF8 { p in
            y.withUTF8 { q in
                let n = min(p.count, q.count)
                let c = n == 0 ? 0 : memcmp(p.baseAddress!, q.baseAddress!, n)
                return c != 0 ? c < 0 : p.count < q.count
            }
        }
    }

    package var description: String { string }
}

extension String {
    /// Whether two strings are the same exact scalar sequence (see ``ExactKey``).
    package func isExactly(_ other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
