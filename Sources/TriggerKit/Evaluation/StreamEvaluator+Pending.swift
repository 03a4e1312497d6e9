@_spi(Engine) extension StreamEvaluator {
    /// Whether each request (by position) is still pending: a time trigger while it has a
    /// next fire (all of them before the stream starts), a location trigger unless it was
    /// refused or is a device-scoped one-shot that fired. A shared one-shot stays pending:
    /// it fires once per device. O(requests).
    public func pendingFlags() -> [Bool] {
        var flags = [Bool](repeating: true, count: requests.count)
        if let s = schedule {
            var queued = [Bool](repeating: false, count: s.entries.count)
            for f in s.queuedFires { queued[Int(f.slot)] = true }
            for (slot, e) in s.entries.enumerated() where !queued[slot] { flags[Int(e.request)] = false }
        }
        for l in locations where l.done { flags[Int(l.request)] = false }
        return flags
    }

    /// Location slot of each location request, by request position (-1 for other requests).
    package func locationSlotsByRequest() -> [Int32] {
        var out = [Int32](repeating: -1, count: requests.count)
        for (slot, l) in locations.enumerated() { out[Int(l.request)] = Int32(slot) }
        return out
    }

    /// Whether a location slot is finished (a device-scoped one-shot that fired).
    package func isLocationDone(_ slot: Int32) -> Bool { locations[Int(slot)].done }
}
