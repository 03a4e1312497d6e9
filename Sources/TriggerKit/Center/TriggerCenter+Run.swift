import Foundation

// The run loop that fires time triggers as the clock reaches them, and shutdown.

extension TriggerCenter {
    /// Delivers time fires as the clock reaches them, until the task is cancelled or the
    /// center shuts down. Changes that bring a fire forward wake it at once.
    ///
    /// One loop is all a center needs; several at once (from different tasks) share the work,
    /// each fire delivered once, and each returns when its task is cancelled or at shutdown.
    public func run() async {
        while !isShutDown && !Task.isCancelled {
            deliverDue()
            // A clock outside the supported dates delivers nothing (``deliverDue()``): wait for
            // a change or the shutdown instead of a deadline long past (a busy loop).
            let deadline = !RequestLimits.isSupported(clock.now) ? Date(timeIntervalSince1970: .nan)
                : engine.soonestFireDate.map(Timestamp.date(millis:)) ?? clock.now.addingTimeInterval(3600)
            await sleep(until: deadline)
        }
    }

    /// The soonest instant the clock has something to deliver: a time trigger's fire, or a
    /// fence's dwell, window change or expiry (nil: nothing queued).
    package var nextClockInstant: Date? { engine.soonestFireDate.map(Timestamp.date(millis:)) }

    private func sleep(until deadline: Date) async {
        let clock = self.clock
        // The timer wakes the loop only when its deadline came: a timer cancelled because a
        // change woke the loop first used to wake it once more, which set `wakePending` for
        // the next sleep, whose cancelled timer set it again: `run()` spun a core for ever
        // after the first change (found by a helper).
        let timer = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            guard !Task.isCancelled else { return }
            await self?.wake()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                if wakePending || isShutDown {
                    wakePending = false
                    c.resume()
                } else {
                    waiters.append(c)
                }
            }
        } onCancel: {
            Task { await self.wake() }
        }
        timer.cancel()
    }

    /// Wakes every sleeping ``run()`` loop, or the next one to sleep when none is.
    func wake() {
        guard !waiters.isEmpty else {
            wakePending = true
            return
        }
        let sleeping = waiters
        waiters.removeAll()
        for w in sleeping { w.resume() }
    }

    /// Stops the center: ``run()`` returns, every ``deliveries(bufferLimit:)`` feed finishes,
    /// and later changes are refused: ``add(_:)`` and ``receive(_:)`` throw, the other changes
    /// (removals of requests or delivered ones, settings, zone, categories, responses) do
    /// nothing. Idempotent.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        feed.finish()
        wake()
    }
}
