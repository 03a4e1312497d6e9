/// Text from input put into a diagnostic (an error or warning line): control characters are
/// written as `\u{XX}` escapes, so each diagnostic stays one line and input cannot forge
/// another (an identifier `"a\nerror: x.ndjson:99: ..."` printed a second error line) or send
/// terminal escapes.
package enum DiagnosticText {
    /// `s` with every C0 and C1 control character, DEL and the Unicode line and paragraph
    /// separators escaped; unchanged (not copied) when it has none.
    package static func escaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: needsEscape) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for u in s.unicodeScalars {
            if needsEscape(u) {
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// ``escaped(_:)``, cut to at most about `limit` bytes: a longer text keeps its first
    /// `limit` bytes (whole Unicode scalars: a cut may fall inside a grapheme such as a flag)
    /// and says how long it was. So one diagnostic line
    /// stays bounded whatever the input quotes (a 100 MB identifier was printed whole).
    package static func clipped(_ s: String, limit: Int = 256) -> String {
        let e = escaped(s)
        let n = e.utf8.count
        guard n > limit else { return e }
        var cut = e.utf8.index(e.utf8.startIndex, offsetBy: limit)
        while cut > e.startIndex, !e.unicodeScalars.indices.contains(cut) { cut = e.utf8.index(before: cut) }
        let head = String(e[..<cut])
        return head + "... (\(n) bytes in all)"
    }

    @inline(__always)
    private static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
    }
}
