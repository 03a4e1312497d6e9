import Foundation

// Fences with rules added in place, for the live center: an add no longer rebuilds the
// evaluator (about 1 s an add at 200,000 requests held).

extension GuardedFences {
    /// Whether some fence is live (not done): what the devices did since the build is then
    /// what a rebuild would carry over (a rebuild forgets it when every fence is done; see
    /// ``StreamEvaluator/migrated(to:fresh:polygonsValidated:keepingDeviceOrder:)``).
    var hasLiveFence: Bool { gates.contains { !$0.done } }

    /// Marks fence `f` removed in place (its request killed, or replaced by a request
    /// appended in place): done, and never carried to a request of the same identifier by a
    /// rebuild (``StreamEvaluator/migrated(to:fresh:polygonsValidated:keepingDeviceOrder:)``),
    /// as a plain location slot removed in place is not.
    func remove(_ f: Int) {
        gates[f].done = true
        removedInPlace.insert(Int32(f))
    }

    /// Whether fences were appended in place since the build (their slots are not in
    /// identifier order).
    var hasAppendedFences: Bool { fences.count > builtFenceCount }

    /// Adds the fence of location request `request` (index `index` in the evaluator, its
    /// `addedAt` and device number resolved) in place, as a rebuild would hold it: its region
    /// in the exact index, its gate, window (planned at `now`), expiry, boundary and grid
    /// cells. Returns false, changing nothing, where only a rebuild can take it: the clock
    /// has not started, no fence is live (a rebuild forgets the devices' last positions
    /// then), or the region is refused (the rebuild reports why).
    ///
    /// Devices keep their links and bounds: the new fence has the highest slot, so a device's
    /// quiet bounds (sorted by fence) do not list it and its next fix measures it; its first
    /// fix at or after `addedAt` sets its side silently, as after a rebuild.
    ///
    /// - Complexity: O(cells of its box) for a circle; a polygon adds GEOS preparation and
    ///   its edge index, O(v log v).
    func append(_ t: LocationTrigger, request index: Int32, addedAt: Int64, device: Int32, expiresAt expiry: Int64?, now: Int64,
                floatingTimeZone: TimeZone, validated: Bool) -> Bool {
        guard started, t.hasRules, hasLiveFence, regions.count == fences.count,
              let slot = try? regions.append(t.region, validated: validated) else { return false }
        let f = Int(slot)
        let fence = Self.fence(request: index, t, margin: margin)
        fences.append(fence)
        gates.append(Gate(addedAt: addedAt, accuracyLimit: fence.maximumAccuracy ?? .nan, device: device,
                          repeats: fence.repeats, circle: fence.radius >= 0))
        windows.append(t.rules.window.map { FenceWindowPlan($0, floatingTimeZone: floatingTimeZone) })
        let i = Int(index)
        if fenceOfRequest.count <= i { fenceOfRequest += repeatElement(-1, count: i + 1 - fenceOfRequest.count) }
        fenceOfRequest[i] = slot
        if expiresAt.count <= i { expiresAt += repeatElement(.max, count: i + 1 - expiresAt.count) }
        if let expiry { appendExpiry(request: index, at: expiry) }
        if case .polygon(let p) = t.region { keepBoundary(of: p, fence: slot) }
        grid.add(slot, box: Self.gridBox(fence))
        if fence.dwell == .outside { outsideDwellFences.append(slot) }
        if fence.crossings { crossingFences.append(slot) }
        if fence.radius >= 0 { usesQuiet = true }
        planWindow(f, at: now)
        return true
    }
}
