import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Pages of the pending list (`GET /v1/requests?limit=&after=`): each page is the pending list
/// after the cursor's add number, in add order, whatever changed in between, and whichever
/// way the engine holds its requests (appended in place, removed in place, migrated, restored).
@Suite("Pending requests by pages")
struct ListingPagesTests {
    typealias Gen = LiveEngineEquivalenceTests

    /// The engine's add numbers, as a model keeps them: every add (a replacement too) takes the
    /// next one; a removal takes none.
    struct Model {
        var seqOf: [String: Int] = [:]
        var next = 0
        mutating func add(_ id: String) {
            seqOf[id] = next
            next += 1
        }
    }

    /// The page the engine must give: the pending list (as it is now) after `after`, the
    /// first `limit` of it, and whether more follow.
    static func expected(_ engine: LiveEngine, _ model: Model, device: String?, after: Int, limit: Int)
        -> (ids: [String], last: Int?, more: Bool) {
        let rest = engine.pendingRequests(device: device).map(\.identifier).filter { model.seqOf[$0]! > after }
        let ids = Array(rest.prefix(limit))
        return (ids, ids.last.map { model.seqOf[$0]! }, rest.count > limit)
    }

    static func check(_ engine: LiveEngine, _ model: Model, device: String?, after: Int, limit: Int, _ context: String) -> Int? {
        let page = engine.pendingPage(device: device, after: after, limit: limit)
        let want = expected(engine, model, device: device, after: after, limit: limit)
        #expect(page.requests.map(\.identifier) == want.ids, "\(context)")
        #expect(page.last == want.last, "\(context)")
        #expect(page.more == want.more, "\(context)")
        return page.more ? page.last : nil
    }

    /// Random adds, replacements, removals, clock steps (one-shots finish), fixes and
    /// compactions, with page walks of random sizes and devices between and across them.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func pagesFollowTheAddOrderThroughChanges(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var options = StreamOptions()
        options.maxClockJump = nil
        let engine = LiveEngine(options: options, start: Gen.t0)
        var model = Model()
        var t = Gen.t0
        // A walk in progress: its cursor, page size and device.
        var walk: (after: Int, limit: Int, device: String?)?
        var pages = 0, walks = 0
        for step in 0..<400 {
            switch Int.random(in: 0..<12, using: &rng) {
            case 0, 1, 2, 3:
                let id = "r\(Int.random(in: 0..<40, using: &rng))"
                engine.add(Gen.request(&rng, id: id, at: t, locationHeavy: Bool.random(using: &rng)))
                model.add(id)
            case 4:
                let ids = Array(model.seqOf.keys).sorted()
                guard let victim = ids.randomElement(using: &rng) else { continue }
                engine.remove(identifiers: [victim])
                model.seqOf[victim] = nil
            case 5:
                t += Int64(Int.random(in: 1...600, using: &rng)) * 1000
                var events: [FiredEvent] = []
                try engine.current.process(.clock(t), into: &events)
            case 6:
                t += 1000
                var events: [FiredEvent] = []
                try engine.current.process(.fix(Fix(device: "d\(Int.random(in: 0..<2, using: &rng))", t: t,
                                                    latitude: 40 + Double(Int.random(in: 0..<7, using: &rng)) * 0.001, longitude: -74)),
                                            into: &events)
            case 7:
                _ = engine.compacted
            default:
                // The next page of the walk in progress, or a new walk.
                if walk == nil {
                    walk = (-1, Int.random(in: 1...9, using: &rng), [nil, "d0", "d1"].randomElement(using: &rng)!)
                    walks += 1
                }
                let w = walk!
                pages += 1
                if let next = Self.check(engine, model, device: w.device, after: w.after, limit: w.limit, "seed \(seed) step \(step)") {
                    walk!.after = next
                } else {
                    walk = nil
                }
            }
            // The pending list is in add-number order (what the pages' search relies on).
            let numbers = engine.pendingRequests(device: nil).map { model.seqOf[$0.identifier]! }
            #expect(numbers == numbers.sorted(), "seed \(seed) step \(step): the pending list is not in add order")
        }
        #expect(pages > 50 && walks > 5)
    }

    /// A walk with nothing changing lists the whole pending list once, in order, whatever
    /// the page size; the last page says no more follow.
    @Test func aWalkWithoutChangesIsTheWholeList() throws {
        var rng = SeededGenerator(seed: 9)
        let engine = LiveEngine(options: StreamOptions(), start: Gen.t0)
        for k in 0..<100 { engine.add(Gen.request(&rng, id: "r\(k)", at: Gen.t0)) }
        engine.remove(identifiers: ["r3", "r50"])
        let whole = engine.pendingRequests(device: nil).map(\.identifier)
        #expect(whole.count == 98)
        for limit in [1, 7, 49, 98, 99, 1000] {
            var listed: [String] = []
            var after = -1
            var calls = 0
            while true {
                let page = engine.pendingPage(device: nil, after: after, limit: limit)
                calls += 1
                listed += page.requests.map(\.identifier)
                guard page.more, let last = page.last else { break }
                after = last
            }
            #expect(listed == whole, "limit \(limit)")
            #expect(calls == max(1, (whole.count + limit - 1) / limit), "limit \(limit): \(calls) calls")
        }
    }

    /// Restored requests are numbered in their add order from where the engine's numbers
    /// stood; pages over them, and over adds after them, follow that order.
    @Test func restoredRequestsAreNumberedInTheirOrder() throws {
        var rng = SeededGenerator(seed: 21)
        let engine = LiveEngine(options: StreamOptions(), start: Gen.t0)
        var model = Model()
        let restored = (0..<30).map { Gen.request(&rng, id: "s\($0)", at: Gen.t0) }
        engine.record(restored: restored)
        for r in restored { model.add(r.identifier) }
        var after = -1
        while let next = Self.check(engine, model, device: nil, after: after, limit: 4, "restored") { after = next }
        engine.add(Gen.request(&rng, id: "s5", at: Gen.t0))
        model.add("s5")
        engine.add(Gen.request(&rng, id: "n1", at: Gen.t0))
        model.add("n1")
        _ = Self.check(engine, model, device: nil, after: model.seqOf["s28"]!, limit: 10, "after restore")
        _ = Self.check(engine, model, device: nil, after: -1, limit: 100, "after restore, whole")
    }
}
