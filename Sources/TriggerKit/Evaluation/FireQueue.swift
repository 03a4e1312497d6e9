/// One scheduled fire: when, and which time-based trigger (its slot in the schedule).
///
/// Ordered by date, then by `rank`: the trigger's position in identifier order, so equal
/// dates come out sorted by identifier without comparing strings.
@_spi(Engine) public struct ScheduledFire: Sendable, Hashable, Comparable {
    /// Fire date, epoch milliseconds.
    public var date: Int64
    /// Position of the trigger's request in identifier order (the tie-breaker).
    public var rank: Int32
    /// The trigger's slot in its ``FireSchedule``.
    public var slot: Int32

    @inlinable
    public static func < (a: ScheduledFire, b: ScheduledFire) -> Bool {
        a.date != b.date ? a.date < b.date : a.rank < b.rank
    }
}

/// A binary min-heap of fires, stored as an implicit tree in an array (children of node i
/// at 2i+1 and 2i+2). Kept as a plain binary heap (rather than swift-collections' min-max
/// heap) because ``FireSchedule/soonest(_:)`` walks that exact tree shape to answer
/// "the K soonest" without popping anything.
struct FireQueue: Sendable {
    private(set) var nodes: [ScheduledFire] = []

    var count: Int { nodes.count }
    var isEmpty: Bool { nodes.isEmpty }
    /// The soonest fire. O(1).
    var min: ScheduledFire? { nodes.first }

    /// Builds a heap from unordered fires in O(n) (Floyd's bottom-up heapify).
    init(_ fires: [ScheduledFire] = []) {
        nodes = fires
        var i = nodes.count / 2
        while i > 0 {
            i -= 1
            siftDown(i)
        }
    }

    /// Room for `extra` more fires without reallocating.
    mutating func reserveCapacity(_ extra: Int) { nodes.reserveCapacity(nodes.count + extra) }

    /// Adds a fire. O(log n).
    mutating func insert(_ f: ScheduledFire) {
        nodes.append(f)
        var i = nodes.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard nodes[i] < nodes[parent] else { break }
            nodes.swapAt(i, parent)
            i = parent
        }
    }

    /// Replaces the soonest fire with `f` (or removes it when `f` is nil). O(log n).
    mutating func replaceMin(with f: ScheduledFire?) {
        guard !nodes.isEmpty else { return }
        if let f {
            nodes[0] = f
        } else {
            let last = nodes.removeLast()
            guard !nodes.isEmpty else { return }
            nodes[0] = last
        }
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let n = nodes.count
        while true {
            let l = 2 * i + 1
            guard l < n else { return }
            var m = l
            if l + 1 < n, nodes[l + 1] < nodes[l] { m = l + 1 }
            guard nodes[m] < nodes[i] else { return }
            nodes.swapAt(i, m)
            i = m
        }
    }

    #if DEBUG
    /// Every parent is no later than its children.
    func checkInvariants() -> Bool {
        for i in 1..<Swift.max(nodes.count, 1) where nodes[i] < nodes[(i - 1) / 2] { return false }
        return true
    }
    #endif
}
