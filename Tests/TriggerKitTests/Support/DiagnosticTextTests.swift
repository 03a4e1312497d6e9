import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Diagnostics quote input: escaped to one line, and cut to a bounded length (a 100 MB
/// identifier was printed whole on stderr, found by a helper).
@Suite("Diagnostic text")
struct DiagnosticTextTests {
    @Test func shortTextIsOnlyEscaped() {
        #expect(DiagnosticText.clipped("café") == "café")
        #expect(DiagnosticText.clipped("a\nb") == "a\\u{A}b")
        #expect(DiagnosticText.clipped(String(repeating: "x", count: 256)) == String(repeating: "x", count: 256))
    }

    @Test func longTextKeepsItsHeadAndSaysItsLength() {
        let long = String(repeating: "x", count: 100_000)
        #expect(DiagnosticText.clipped(long) == String(repeating: "x", count: 256) + "... (100000 bytes in all)")
        #expect(DiagnosticText.clipped(long, limit: 10) == "xxxxxxxxxx... (100000 bytes in all)")
    }

    /// The cut never splits a character (é is two bytes: the 256th byte would be inside one).
    @Test func theCutFallsBetweenCharacters() {
        let s = "x" + String(repeating: "é", count: 300)
        let c = DiagnosticText.clipped(s)
        #expect(c == "x" + String(repeating: "é", count: 127) + "... (601 bytes in all)")
    }

    /// Through a requests file's diagnostics.
    @Test func aRequestsFileDiagnosticQuotesABoundedIdentifier() {
        let id = String(repeating: "i", count: 5000)
        let set = RequestsFile.parse(#"{"identifier": "\#(id)", "content": {"title": "x"}}"# + "\n", file: "f.ndjson", options: ValidationOptions())
        let text = set.diagnostics.map(\.description).joined(separator: "\n")
        #expect(text.contains("... (5000 bytes in all)"), "\(text.prefix(400))")
        #expect(text.utf8.count < 1000)
    }
}
