@_spi(Engine) extension StreamEvaluator {
    /// A new evaluator over `newRequests` that keeps everything this one learnt about the
    /// requests it shares with them (by identifier), except those named in `fresh`, whose
    /// state starts afresh (Apple's `add` replaces a request and its trigger state).
    ///
    /// - Complexity: O(requests + devices + what is inside or pending).
    ///
    /// Identifiers are matched as exact scalar sequences (``ExactKey``): "café" written with
    /// U+00E9 and with `e` + U+0301 are two requests, whose states must not be mixed up (a
    /// `String`-keyed table did: found by `make fuzz`).
    ///
    /// Devices are numbered as the new requests' build numbers them (those the device-scoped
    /// requests name first, those the fences with rules name after this evaluator's), unless
    /// `keepingDeviceOrder`: then this evaluator's come first, in its order (a restore's,
    /// whose devices are the snapshot's: the snapshot lists them in the order its center
    /// numbered them, and its fences' devices follow it).
    public func migrated(to newRequests: [NotificationRequest], fresh freshIdentifiers: [String] = [], polygonsValidated: Bool = false,
                         keepingDeviceOrder: Bool = false) -> StreamEvaluator {
        let fresh = Set(freshIdentifiers.map(ExactKey.init))
        var opts = options
        opts.now = defaultAddedAt.map(Timestamp.date(millis:)) ?? options.now
        let next = StreamEvaluator(requests: newRequests, options: opts, polygonsValidated: polygonsValidated,
                                   devices: keepingDeviceOrder ? deviceNames : [])
        next.stats = stats
        next.catchUpSink = catchUpSink
        next.catchUpChunk = catchUpChunk
        next.streamTime = streamTime

        // Location slots by identifier, made at the first slot to map (never when no device
        // is inside or pending anywhere and no one-shot is done: a snapshot being restored).
        var newLocationSlot: [ExactKey: Int32]?
        func map(_ slot: Int32) -> Int32? {
            // A slot removed in place shares its identifier with any request added again.
            guard !locations[Int(slot)].removed else { return nil }
            let id = ExactKey(requests[Int(locations[Int(slot)].request)].identifier)
            guard !fresh.contains(id) else { return nil }
            if newLocationSlot == nil {
                var table: [ExactKey: Int32] = [:]
                table.reserveCapacity(next.locations.count)
                for (s, e) in next.locations.enumerated() { table[ExactKey(next.requests[Int(e.request)].identifier)] = Int32(s) }
                newLocationSlot = table
            }
            return newLocationSlot?[id]
        }
        for (s, e) in locations.enumerated() where e.done && !refusedSlots.contains(Int32(s)) {
            if let n = map(Int32(s)) { next.locations[Int(n)].done = true }
        }
        for (i, name) in deviceNames.enumerated() {
            let d = Int(next.device(named: name))
            let old = devices[i]
            next.settings[d] = settings[i]
            next.devices[d] = DeviceState(
                lastAccepted: old.lastAccepted, lastUsed: old.lastUsed,
                inside: old.inside.compactMap(map).sorted(),
                pending: old.pending.compactMap { p in map(p.slot).map { PendingCrossing(slot: $0, since: p.since) } }.sorted { $0.slot < $1.slot },
                firedOnce: old.firedOnce.compactMap(map).sorted())
        }

        // Time-trigger cursors: kept for surviving requests (a finished one-shot stays
        // finished); new and fresh ones start from their addedAt.
        if let added = defaultAddedAt, let oldSchedule = schedule {
            next.start(defaultAddedAt: added)
            guard var sched = next.schedule else { return next }
            var queuedByIdentifier: [ExactKey: Int64] = [:]
            var scheduledIdentifiers = Set<ExactKey>()
            for e in oldSchedule.entries { scheduledIdentifiers.insert(ExactKey(requests[Int(e.request)].identifier)) }
            for f in oldSchedule.queuedFires {
                queuedByIdentifier[ExactKey(requests[Int(oldSchedule.entries[Int(f.slot)].request)].identifier)] = f.date
            }
            let fresh0 = Dictionary(uniqueKeysWithValues: sched.queuedFires.map { ($0.slot, $0.date) })
            var cursors: [(slot: Int32, date: Int64)] = []
            for (slot, e) in sched.entries.enumerated() {
                let id = ExactKey(newRequests[Int(e.request)].identifier)
                if scheduledIdentifiers.contains(id) && !fresh.contains(id) {
                    if let d = queuedByIdentifier[id] { cursors.append((Int32(slot), d)) }
                } else if let d = fresh0[Int32(slot)] {
                    cursors.append((Int32(slot), d))
                }
            }
            sched.restoreQueue(cursors)
            next.schedule = sched
        }
        // Fences with rules: their links by identifier (fresh ones start afresh).
        if let g = guarded, let ng = next.guarded, next.defaultAddedAt != nil {
            var newFence: [ExactKey: Int32] = [:]
            for (f, fence) in ng.fences.enumerated() { newFence[ExactKey(newRequests[Int(fence.request)].identifier)] = Int32(f) }
            var snap = g.snapshot(deviceNames: deviceNames)
            // What the devices did is kept only while a fence was live to see it. Fences all
            // done (removed, fired, expired) linger until a compaction, and whether one had
            // come first must not matter: a crossings fence added later interpolated from a
            // fix only the lingering structure had recorded, which a restored center (its
            // snapshot compacted) had not (found by a helper comparing restored and
            // uninterrupted centers). When each device was last seen comes back below.
            if !g.fences.indices.contains(where: { !g.gates[$0].done }) { snap.devices = [] }
            ng.restore(snap, device: { next.device(named: $0) }, map: { f in
                // A fence removed in place shares its identifier with a request added again
                // (in place, since fences with rules are appended): its end is not the new one's.
                guard !g.removedInPlace.contains(f) else { return nil }
                let id = ExactKey(self.requests[Int(g.fences[Int(f)].request)].identifier)
                return fresh.contains(id) ? nil : newFence[id]
            })
        }
        if let ng = next.guarded, next.defaultAddedAt != nil { ng.seedLastSeen(next.devices.map(\.lastUsed)) }
        return next
    }
}
