import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The loader's identifier table: a later request with the same identifier replaces the
/// earlier one, whatever the hashes do.
@Suite struct IdentifierSlotsTests {
    /// Against a dictionary, with hashes cut to 3 bits so that most probes meet other
    /// identifiers with the same hash (only `isAt` tells them apart), and a table made far too
    /// small so that it grows many times.
    @Test func claimsAgreeWithADictionaryUnderCollisions() {
        var g = SeededGenerator(seed: 31)
        for bits in [3, 64] {
            var slots = IdentifierSlots(capacity: 1)
            var reference: [String: Int] = [:]
            var registered: [String] = []
            for _ in 0..<5_000 {
                let id = "id-\(g.int(1_500))" + (g.chance(0.1) ? "é" : "")
                let full = IdentifierSlots.hash(id)
                let hash = bits == 64 ? full : full & 7
                let list = registered
                let old = slots.claim(hash: hash, slot: registered.count) { list[$0] == id }
                #expect(old == reference[id], "\(id)")
                reference[id] = registered.count
                registered.append(id)
            }
            #expect(Set(registered).count == reference.count)
        }
    }

    /// Equal identifiers hash alike (their UTF-8 bytes), whatever the string's storage.
    @Test func equalIdentifiersHashAlike() {
        let bridged = NSString(string: "café-42") as String
        #expect(IdentifierSlots.hash(bridged) == IdentifierSlots.hash("café-42"))
        #expect(IdentifierSlots.hash("a") != IdentifierSlots.hash("b"))
    }

    /// A requests file replacing requests across the loader's parallel chunks: each
    /// replacement found, in file order, with the warning naming the line replaced.
    @Test func replacementsAcrossChunksAreFound() {
        let n = 3 * RequestsFile.parallelThreshold
        var lines: [String] = []
        for i in 0..<n {
            let id = i % 7 == 0 && i > 0 ? "r\(i / 2)" : "r\(i)"
            lines.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "timeInterval", "timeInterval": 60}}"#)
        }
        let set = RequestsFile.parse(lines.joined(separator: "\n"), file: "f")
        var expectedReplaced: [Int: Int] = [:]  // line -> the line it replaces
        var at: [String: Int] = [:]
        for (k, line) in lines.enumerated() {
            let id = String(line.split(separator: "\"")[3])
            if let old = at[id] { expectedReplaced[k + 1] = old }
            at[id] = k + 1
        }
        #expect(!expectedReplaced.isEmpty)
        #expect(set.requests.count == at.count)
        let warnings = set.diagnostics.filter { $0.message.hasPrefix("replaces") }
        #expect(warnings.count == expectedReplaced.count)
        for w in warnings {
            guard case .line(let line) = w.location else { Issue.record("\(w)"); continue }
            #expect(w.message == "replaces the request with the same identifier at line \(expectedReplaced[line] ?? -1)")
        }
    }
}

/// A large requests file's lines are found in runs on every core: the same lines, numbered
/// alike, as one pass finds.
@Suite struct RequestLinesTests {
    @Test func runsFindTheLinesOnePassFinds() {
        var g = SeededGenerator(seed: 37)
        let shapes = ["{\"identifier\": \"x\"}", "", "   ", "# a comment", "\t{\"a\": 1}\r", "  # indented comment", "{}", "\r"]
        var text = "\u{FEFF}"
        while text.utf8.count < 3 << 20 {
            text += shapes[g.int(shapes.count)] + String(repeating: "y", count: g.int(300))
            text += g.chance(0.02) ? "\n\n\n" : "\n"
        }
        for ending in ["", "{\"last\": true}", "\n"] {
            var bytes = Array((text + ending).utf8)
            bytes.withUnsafeMutableBufferPointer { b in
                let all = UnsafeBufferPointer(b)
                let one = RequestsFile.requestLines(all, from: 3, pieces: 1)
                #expect(one.count > 10_000)
                for pieces in [2, 4, 7] {
                    let runs = RequestsFile.requestLines(all, from: 3, pieces: pieces)
                    #expect(runs.count == one.count, "\(pieces) pieces")
                    let firstDifference = zip(runs, one).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    #expect(firstDifference == nil, "\(pieces) pieces")
                }
            }
        }
    }
}
