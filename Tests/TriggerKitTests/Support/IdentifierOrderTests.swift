import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// ``IdentifierOrder`` (sorting by an 8-byte prefix, then the remaining bytes) gives the order
/// of ``ExactKey``: UTF-8 bytes, a proper prefix first, equal identifiers by index.
@Suite struct IdentifierOrderTests {
    /// The reference: the identifiers' UTF-8 views compared element by element, ties by index.
    static func reference(_ ids: [String]) -> [Int32] {
        ids.indices.sorted { a, b in
            if ids[a].utf8.elementsEqual(ids[b].utf8) { return a < b }
            return ids[a].utf8.lexicographicallyPrecedes(ids[b].utf8)
        }.map(Int32.init)
    }

    @Test func orderIsThatOfTheUTF8BytesWhateverThePrefixes() {
        var g = SeededGenerator(s: 41)
        // Pieces that make identifiers share their first 8 bytes, end on and around the eighth
        // byte, hold zero bytes (which the prefix's padding must not confuse with an end) and
        // multi-byte scalars that straddle it.
        let pieces: [String] = ["", "a", "b", "\u{0}", "\u{0}\u{0}", "z", "é", "e\u{301}", "日", "🙂", "\u{7F}", "\u{80}",
                                "abcdefg", "abcdefgh", "abcdefghi", "geo-0000", "geo-00000", "-"]
        var checked = 0
        for round in 0..<40 {
            var ids: [String] = []
            for _ in 0..<(50 + g.int(400)) {
                if !ids.isEmpty && g.chance(0.1) {
                    ids.append(ids[g.int(ids.count)])  // the same identifier twice: ties by index
                } else {
                    ids.append((0..<g.int(6)).map { _ in pieces[g.int(pieces.count)] }.joined())
                }
            }
            let list = ids
            let o = IdentifierOrder(identifiers: list.count) { list[$0] }
            let expected = Self.reference(ids)
            #expect(o.order == expected, "round \(round)")
            #expect(o.order.enumerated().allSatisfy { k, i in o.ranks[Int(i)] == Int32(k) }, "round \(round): ranks invert the order")
            checked += ids.count
        }
        #expect(checked > 5_000)
    }

    /// Many identifiers are copied and sorted in chunks on every core, then merged: the same
    /// order. Repeats fall in different chunks; many share their first 8 bytes.
    @Test func chunksSortedApartMergeIntoTheOneOrder() {
        var g = SeededGenerator(seed: 23)
        let pieces = ["geo-0000", "geo-", "a", "é", "\u{0}", "9", "🙂", "zz"]
        var ids: [String] = []
        for _ in 0..<(5 * ParallelChunks.threshold + 123) {
            if !ids.isEmpty && g.chance(0.05) {
                ids.append(ids[g.int(ids.count)])
            } else {
                ids.append((0..<(1 + g.int(4))).map { _ in pieces[g.int(pieces.count)] }.joined() + String(g.int(50)))
            }
        }
        #expect(ParallelChunks.ranges(ids.count).count > 1 || ProcessInfo.processInfo.activeProcessorCount == 1)
        let list = ids
        let o = IdentifierOrder(identifiers: list.count) { list[$0] }
        #expect(o.order == Self.reference(ids))
        #expect(o.order.enumerated().allSatisfy { k, i in o.ranks[Int(i)] == Int32(k) })
    }

    @Test func zeroBytesAndPrefixesAtTheEighthByte() {
        let ids = ["a\u{0}b", "a", "a\u{0}", "", "abcdefgh", "abcdefgh\u{0}", "abcdefg", "abcdefgha", "abcdefgh"]
        let o = IdentifierOrder(identifiers: ids.count) { ids[$0] }
        #expect(o.order.map { ids[Int($0)] } == ["", "a", "a\u{0}", "a\u{0}b", "abcdefg", "abcdefgh", "abcdefgh",
                                                 "abcdefgh\u{0}", "abcdefgha"])
        #expect(o.order[5] == 4 && o.order[6] == 8, "equal identifiers keep their index order")
    }

    /// The evaluator orders its requests once and hands the ranks to the schedule it builds at
    /// the first line: time fires at one instant still come in identifier order.
    @Test func fireTiesAtOneInstantAreInIdentifierOrder() throws {
        var g = SeededGenerator(s: 7)
        // UUID-like identifiers, some sharing their first 8 bytes, some with a multi-byte start.
        let unique = Array(Set((0..<300).map { k in
            (g.chance(0.3) ? "ü" : "") + (g.chance(0.3) ? "shared-0" : "") + String(g.next(), radix: 16) + "-\(k % 7)"
        }))
        let requests = unique.map { id in
            NotificationRequest(identifier: id, content: NotificationContent(title: "t"),
                                trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: false)))
        }
        let e = StreamEvaluator(requests: requests, options: StreamOptions(now: Date(timeIntervalSince1970: 1_800_000_000)))
        var out: [FiredEvent] = []
        try e.process(StreamLine.clock(1_800_000_100_000), into: &out)
        #expect(out.count == unique.count)
        let fired = out.map { e.requests[Int($0.request)].identifier }
        #expect(fired == unique.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }
}
