import Foundation
import HeapModule

// The clock of fences with rules: expiries, window openings and closings, dwells falling
// due. Each acts at its exact instant, whether or not a fix arrives then.

extension GuardedFences {
    /// Called when the stream starts (its first line, at `now`): each fence's `addedAt` and
    /// device, each window's state at `now`, the expiries.
    ///
    /// Called again (``StreamEvaluator/restore(_:)`` on an evaluator already started: a
    /// restored center did so until its restore started the stream only once; any caller that
    /// restores a started evaluator still does), it re-plans: the windows' changes queued by
    /// the earlier start are dropped (dwell timers are kept: they check their link when they
    /// come up). Left queued, a plan made at an earlier `now` (the clock at the restore, behind
    /// the saved stream time after a jump back or a fix leading the clock) replayed every
    /// opening and closing between the two at the next step: exits and enters at window
    /// bounds, outside dwells started from a past opening, for devices as the snapshot had
    /// them later (found by a helper comparing restored and uninterrupted centers).
    func start(addedAt: (Int32) -> Int64, device: (Int32) -> Int32, now: Int64) {
        if started { timers = Heap(timers.unordered.filter { $0.phase == Timer.dwell }) }
        startGeometry(addedAt: addedAt, device: device)
        for f in fences.indices { planWindow(f, at: now) }
        expiries = expiresAt.enumerated().filter { $0.element != .max }.map { (date: $0.element, request: Int32($0.offset)) }
            .sorted { ($0.date, $0.request) < ($1.date, $1.request) }
        nextExpiry = 0
    }

    /// Adds the expiry of a request appended in place (no fence of its own: a time-based
    /// request, or a location request without rules), acted on as a build's: the request is
    /// removed at that instant, and ends (``ended``). Its place among the expiries still to
    /// come is found by binary search; one due already is acted on at the next advance.
    /// - Complexity: O(log e) to find the place, O(e) to make room (e expiries pending).
    func appendExpiry(request: Int32, at date: Int64) {
        let i = Int(request)
        if expiresAt.count <= i { expiresAt += repeatElement(.max, count: i + 1 - expiresAt.count) }
        if fenceOfRequest.count <= i { fenceOfRequest += repeatElement(-1, count: i + 1 - fenceOfRequest.count) }
        expiresAt[i] = date
        var lo = nextExpiry, hi = expiries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if (expiries[mid].date, expiries[mid].request) < (date, request) { lo = mid + 1 } else { hi = mid }
        }
        expiries.insert((date: date, request: request), at: lo)
    }

    /// Re-plans floating weekly windows (no `timeZone` of their own) in `zone`, from `now`
    /// on; the timer heap is rebuilt for their new changes. A window that the change opens
    /// or closes at once fires no enter or exit for it.
    func setFloatingTimeZone(_ zone: TimeZone, requests: [NotificationRequest], now: Int64?) {
        var changed = false
        for f in fences.indices {
            guard case .location(let t) = requests[Int(fences[f].request)].trigger, let w = t.rules.window, w.timeZone == nil,
                  case .weekly = w.schedule else { continue }
            let plan = FenceWindowPlan(w, floatingTimeZone: zone)
            windows[f] = plan
            if started, let now {
                fences[f].armed = plan.state(at: now).armed
                fences[f].armedSince = now
            }
            changed = true
        }
        if changed && started { compactTimers() }
    }

    /// Sets a window's state at `t` and queues its next change.
    func planWindow(_ f: Int, at t: Int64) {
        guard let w = windows[f] else { return }
        let (armed, next) = w.state(at: t)
        fences[f].armed = armed
        fences[f].armedSince = t
        if let next { timers.insert(Timer(date: next, phase: armed ? Timer.close : Timer.open, fence: Int32(f), device: -1)) }
    }

    /// Acts on everything due at or before `t`, in instant order: appends the events (dated
    /// when they happen, unfiltered by settings) to `out`, and the requests without a fence
    /// here whose expiry passed to `expired` (the evaluator removes those).
    func advance(to t: Int64, into out: inout [FiredEvent], expired: inout [Int32]) {
        while true {
            let e = nextExpiry < expiries.count ? expiries[nextExpiry] : (date: Int64.max, request: -1)
            if e.date <= t, e.date <= timers.min?.date ?? .max {
                nextExpiry += 1
                let f = fenceOfRequest[Int(e.request)]
                if f >= 0 { gates[Int(f)].done = true } else { expired.append(e.request) }
                ended.append(e.request)
                continue
            }
            guard let timer = timers.min, timer.date <= t else { return }
            _ = timers.removeMin()
            let f = Int(timer.fence)
            guard !gates[f].done else { continue }
            switch timer.phase {
            case Timer.close: close(f, at: timer.date, into: &out)
            case Timer.open: open(f, at: timer.date, into: &out)
            default: dwell(f, device: timer.device, at: timer.date, into: &out)
            }
        }
    }

    private func close(_ f: Int, at date: Int64, into out: inout [FiredEvent]) {
        let exits = fences[f].exitAtClosing
        forEachLink(of: f) { l, d in
            if exits && l.inside { emit(&l, .exit, device: d, date: date, anyWindow: true, into: &out) }
            if l.due != Self.noDwell && l.due != Self.dwellFired { l.due = Self.noDwell }
        }
        // A window that opens again at the instant it closes (back-to-back intervals, weekly
        // hours that close at their opening time): the closing, then the opening, with its
        // enters and dwells. (Planned from the closing instant, where the window is armed, the
        // opening was skipped: two exits in a row and no dwell, found by a helper.)
        if let w = windows[f], w.state(at: date).armed {
            open(f, at: date, into: &out)
        } else {
            planWindow(f, at: date)
        }
    }

    private func open(_ f: Int, at date: Int64, into out: inout [FiredEvent]) {
        planWindow(f, at: date)
        let enters = fences[f].enterAtOpening
        let fence = fences[f]
        forEachLink(of: f) { l, d in
            if enters && l.inside { emit(&l, .enter, device: d, date: date, into: &out) }
            if fence.dwell == .inside && l.inside && l.due == Self.noDwell { startDwell(&l, device: d, from: date) }
        }
        guard fence.dwell == .outside else { return }
        // Every device known to be outside starts its outside dwell at the opening.
        let gate = gates[f]
        for d in links.indices where lastSeen[d] >= gate.addedAt && (gate.device < 0 || gate.device == Int32(d)) {
            let i = linkIndex(f, device: d)
            if let i {
                if !links[d][i].inside && links[d][i].due == Self.noDwell { startDwell(&links[d][i], device: Int32(d), from: date) }
            } else {
                var l = Link(fence: Int32(f), inside: false, since: date, due: Self.noDwell, firedOnce: false)
                startDwell(&l, device: Int32(d), from: date)
                if l.due != Self.noDwell { insert(l, device: d) }
            }
        }
    }

    private func dwell(_ f: Int, device d: Int32, at date: Int64, into out: inout [FiredEvent]) {
        guard Int(d) < links.count, let i = linkIndex(f, device: Int(d)), links[Int(d)][i].due == date else { return }
        var l = links[Int(d)][i]
        emit(&l, l.inside ? .dwellInside : .dwellOutside, device: d, date: date, into: &out)
        l.due = Self.dwellFired
        links[Int(d)][i] = l
    }

    /// Calls `body` with each device's link to fence `f` (mutable), in device order.
    private func forEachLink(of f: Int, _ body: (inout Link, Int32) -> Void) {
        for d in links.indices {
            guard let i = linkIndex(f, device: d) else { continue }
            body(&links[d][i], Int32(d))
        }
    }

    func linkIndex(_ f: Int, device d: Int) -> Int? {
        var lo = 0, hi = links[d].count
        while lo < hi {
            let mid = (lo + hi) / 2
            if links[d][mid].fence < Int32(f) { lo = mid + 1 } else { hi = mid }
        }
        return lo < links[d].count && links[d][lo].fence == Int32(f) ? lo : nil
    }

    func insert(_ l: Link, device d: Int) {
        var lo = 0, hi = links[d].count
        while lo < hi {
            let mid = (lo + hi) / 2
            if links[d][mid].fence < l.fence { lo = mid + 1 } else { hi = mid }
        }
        links[d].insert(l, at: lo)
    }
}
