import Synchronization

// Leaf tiles built on one of `run`'s two threads, for the other. Devices are shared out
// between the threads by their ids, and each roams the whole area, so the two threads' own
// caches built many of the same tiles (tile building is about a fifth of the work on 10,000
// polygons; sharing them made that run 1.09x faster).

/// Leaf tiles built by either thread that decides fixes (``FixLookahead`` and its evaluator),
/// offered to the other. Only the building is shared: a thread takes its own copy of a tile
/// (arrays of its own), because two threads counting references on the same arrays at every
/// fix measured slower than building twice.
///
/// Memory: the tiles held (slots as ``TileCache`` counts them) are bounded by `budget`; past
/// it every tile here is dropped (the threads' own caches keep theirs). Tiles are what a build
/// gives for a cell, whichever thread builds it, so what a thread takes from here is what it
/// would have built.
final class SharedTiles: Sendable {
    private struct Held {
        var tiles: [UInt64: Tile] = [:]
        var slots = 0
    }
    private let held = Mutex(Held())
    let budget: Int
    /// Tiles taken from here instead of being built (for tests and benchmarks).
    private let taken = Atomic<Int>(0)

    init(budget: Int) { self.budget = budget }

    var takenCount: Int { taken.load(ordering: .relaxed) }

    /// A copy of the tile held under `key`, if any.
    func tile(_ key: UInt64) -> Tile? {
        guard let t = held.withLock({ $0.tiles[key]?.privateCopy }) else { return nil }
        taken.add(1, ordering: .relaxed)
        return t
    }

    /// Offers a copy of `tile` under `key` (a tile already held for it stays).
    func offer(_ tile: Tile, under key: UInt64) {
        let copy = tile.privateCopy
        held.withLock { h in
            guard h.tiles[key] == nil else { return }
            let cost = copy.slots + TileCache.entrySlots
            if h.slots + cost > budget {
                h.tiles.removeAll()
                h.slots = 0
            }
            h.tiles[key] = copy
            h.slots += cost
        }
    }
}

extension Tile {
    /// The same tile with arrays (and near edges) of its own: no buffer shared with `self`.
    var privateCopy: Tile {
        var t = self
        t.fixed = fixed.withUnsafeBufferPointer { Array($0) }
        t.open = open.withUnsafeBufferPointer { Array($0) }
        t.edges = edges.map { e in
            NearEdges(shapes: e.shapes.withUnsafeBufferPointer { Array($0) }, segments: e.segments.withUnsafeBufferPointer { Array($0) },
                      centreLatitude: e.centreLatitude, centreLongitude: e.centreLongitude)
        }
        return t
    }
}
