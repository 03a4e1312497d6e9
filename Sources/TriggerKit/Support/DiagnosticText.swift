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

    @inline(__always)
    private static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
    }
}
