/// Binary searches over sorted arrays, shared by the zone tables and per-device state.
extension Array where Element: Comparable {
    /// The first index whose element is not less than `x` (`count` when none). O(log n).
    @inline(__always)
    func lowerBound(of x: Element) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if self[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first index whose element is greater than `x` (`count` when none). O(log n).
    @inline(__always)
    func upperBound(of x: Element) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if self[mid] <= x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Whether a sorted array holds `x`. O(log n).
    func sortedContains(_ x: Element) -> Bool {
        let i = lowerBound(of: x)
        return i < count && self[i] == x
    }

    /// Inserts `x` into a sorted array unless it is already there. O(n).
    mutating func sortedInsert(_ x: Element) {
        let i = lowerBound(of: x)
        if i < count, self[i] == x { return }
        insert(x, at: i)
    }
}
