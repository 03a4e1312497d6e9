extension CellTable {
    /// What must hold (checked after every build in debug builds): each full bucket's run of
    /// slots lies within ``slots`` and is strictly ascending (a query merges runs by slot and
    /// relies on it: under a merge that broke it, a query never returned); the runs' lengths
    /// add up to ``slots``' count; every stored key is found by a probe from its home
    /// bucket (no empty bucket between its home and where it lies); the table is at most three
    /// quarters full.
    ///
    /// - Complexity: O(buckets + slots).
    func checkInvariants() {
        var covered = 0, full = 0
        for (b, bucket) in buckets.enumerated() where bucket.key != 0 {
            full += 1
            let start = Int(bucket.start), end = Int(bucket.start) + Int(bucket.count)
            precondition(bucket.count > 0 && end <= slots.count, "cell table: bucket \(b)'s run \(start)..<\(end) is empty or past the slots")
            for i in start + 1..<end {
                precondition(slots[i - 1] < slots[i], "cell table: bucket \(b)'s slots are not ascending at \(i)")
            }
            covered += Int(bucket.count)
            precondition(lookup(bucket.key & ~(1 << 63)) == start..<end, "cell table: the key of bucket \(b) is not found from its home")
        }
        precondition(covered == slots.count, "cell table: the buckets' runs cover \(covered) of \(slots.count) slots")
        precondition(full * 4 <= buckets.count * 3, "cell table: more than three quarters full")
    }
}
