import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Identifiers compare by their exact scalars: equality and order by UTF-8 bytes (memcmp),
/// the same as comparing the strings' UTF-8 views element by element.
@Suite struct ExactKeyTests {
    @Test func orderAndEqualityAreThoseOfTheUTF8Bytes() {
        var g = SeededGenerator(s: 17)
        let alphabet: [String] = ["", "a", "b", "z", "A", "0", "-", "é", "e\u{301}", "ß", "日", "🙂", "\u{0}", "\u{7F}", "\u{80}", "\u{FFFF}"]
        func word() -> String { (0..<g.int(5)).map { _ in alphabet[g.int(alphabet.count)] }.joined() }
        var checked = 0
        for _ in 0..<5_000 {
            let x = word(), y = g.chance(0.2) ? x + word() : word()
            let (a, b) = (ExactKey(x), ExactKey(y))
            #expect((a < b) == x.utf8.lexicographicallyPrecedes(y.utf8), "\(x.debugDescription) < \(y.debugDescription)")
            #expect((a == b) == x.utf8.elementsEqual(y.utf8), "\(x.debugDescription) == \(y.debugDescription)")
            checked += 1
        }
        // Canonically equivalent but different scalars are different identifiers.
        #expect(ExactKey("é") != ExactKey("e\u{301}"))
        #expect(checked == 5_000)
    }
}
