import Foundation

// A wall-clock tenant's ticks: time fires delivered as the wall clock reaches them.

extension Tenant {
    /// Delivers time fires as the wall clock reaches them, until cancelled.
    func runTicks() async {
        guard mode == .wall else { return }
        while !Task.isCancelled {
            // Every clock event, not only time fires: a dwell, a window, an expiry (an expired
            // request stayed, counted against the limit, until some input came).
            // A tenant whose store failed changes nothing until the restart: with a fire due,
            // its tick was refused at once and the loop spun (found by a reviewer).
            if failure != nil {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            let next = await withCenter { $0.nextClockInstant }
            let now = Date()
            let wait = next.map { max(0, min(1, $0.timeIntervalSince(now))) } ?? 1
            if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64(wait * 1000) + 1)) }
            if Task.isCancelled { break }
            if let next, next <= Date() { _ = await apply([.tick]) }
        }
    }
}
