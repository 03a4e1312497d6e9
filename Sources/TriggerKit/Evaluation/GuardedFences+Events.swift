import Foundation
import HeapModule

// What a step of fences with rules sets off: dwell clocks and their timers, events (as each
// fence's flags, window and expiry allow), and the window's state at a date.

extension GuardedFences {
    /// Starts the dwell clock of a link whose side is the fence's dwell side, if the fence is
    /// armed then (else it starts at the next opening).
    func startDwell(_ l: inout Link, device d: Int32, from s: Int64) {
        let f = Int(l.fence)
        guard let side = fences[f].dwell, (side == .inside) == l.inside, armed(f, at: s) else { return }
        let (due, overflow) = s.addingReportingOverflow(fences[f].dwellMillis)
        guard !overflow, due <= RequestLimits.latestMillis else { return }
        l.due = due
        timers.insert(Timer(date: due, phase: Timer.dwell, fence: l.fence, device: d))
        if timers.count > timerBound { compactTimers() }
    }

    /// Rebuilds the timer heap from what is live: every pending dwell and each window's next
    /// change. A cancelled dwell leaves its timer in the heap until its date (a heap cannot
    /// remove from the middle); this bounds them: the heap never holds more than twice what
    /// is live plus 65,536, at an amortised O(1) per timer.
    func compactTimers() {
        var live: [Timer] = []
        for d in links.indices {
            for l in links[d] where l.due != Self.noDwell && l.due != Self.dwellFired && !gates[Int(l.fence)].done {
                live.append(Timer(date: l.due, phase: Timer.dwell, fence: l.fence, device: Int32(d)))
            }
        }
        for f in fences.indices where !gates[f].done {
            guard let w = windows[f], let next = w.state(at: fences[f].armedSince).next else { continue }
            live.append(Timer(date: next, phase: fences[f].armed ? Timer.close : Timer.open, fence: Int32(f), device: -1))
        }
        timers = Heap(live)
        timerBound = 2 * live.count + timerSlack
        compactions += 1
    }

    /// Appends an event of fence `l.fence` for device `d` when the fence wants it: not done or
    /// expired at `date`, armed then (unless `anyWindow`, for the closing exit), notifying on
    /// that crossing; a one-shot ends with it.
    func emit(_ l: inout Link, _ kind: Crossing, device d: Int32, date: Int64, anyWindow: Bool = false, into out: inout [FiredEvent]) {
        let f = Int(l.fence)
        let fence = fences[f]
        guard !gates[f].done, !(l.firedOnce && !fence.repeats), date < expiresAt[Int(fence.request)],
              anyWindow || armed(f, at: date) else { return }
        switch kind {
        case .enter: guard fence.notifyOnEntry else { return }
        case .exit: guard fence.notifyOnExit else { return }
        case .dwellInside, .dwellOutside: break
        }
        out.append(FiredEvent(request: fence.request, date: date, kind: .location, crossing: kind, device: d))
        if !fence.repeats {
            if gates[f].device >= 0 {
                gates[f].done = true
                ended.append(fence.request)
            } else {
                l.firedOnce = true
            }
        }
    }

    /// Whether fence `f` is armed at `date`: its window's state, known without a search
    /// from the last transition the clock processed on.
    func armed(_ f: Int, at date: Int64) -> Bool {
        guard let w = windows[f] else { return true }
        if date >= fences[f].armedSince { return fences[f].armed }
        return w.state(at: date).armed
    }
}
