import Foundation
@_spi(Engine) import TriggerKit

// What a tenant refuses before applying an input: its limits (requests, devices) and, on the
// stream clock, a jump past its bound.

extension Tenant {
    /// The tenant's limits on requests and devices: a refusal, or nil.
    func overLimit(_ input: TenantInput, on c: isolated TriggerCenter) -> APIError? {
        let device: String?
        switch input {
        case .change(.add(let r)):
            if c.requestCount >= limits.maxRequests, c.request(withIdentifier: r.identifier) == nil {
                return APIError(.tooManyRequests, "tooManyRequests", "the tenant has \(limits.maxRequests) requests, its limit")
            }
            device = r.device
        case .change(.settings(let d, _)): device = d
        case .change(.respond(let response)):
            // A snooze adds a request (for the responding device): held to both limits.
            // (The snooze's device is the request's, counted, or the responding one.)
            let (request, effect, _) = c.resolve(response)
            if case .snooze = effect, request != nil, c.requestCount >= limits.maxRequests {
                return APIError(.tooManyRequests, "tooManyRequests", "the tenant has \(limits.maxRequests) requests, its limit: the snooze would add one")
            }
            device = response.device
        case .fix(let f, _):
            if let jump = clockJumpRefusal(to: f.date, code: "invalidFix") { return jump }
            device = f.device
        case .change(.clock(let d)):
            return clockJumpRefusal(to: d, code: "invalidClock")
        default: device = nil
        }
        guard let device else { return nil }
        let full = devices.withLock { set in !set.contains(device) && set.count >= limits.maxDevices }
        return full ? APIError(.tooManyRequests, "tooManyDevices", "the tenant has \(limits.maxDevices) devices, its limit") : nil
    }

    /// Counts the device an applied input names (after it was accepted: a refused request
    /// for a new device used up a place, found by a helper).
    func countDevice(of input: TenantInput) {
        let device: String?
        switch input {
        case .change(.add(let r)): device = r.device
        case .change(.settings(let d, _)): device = d
        case .fix(let f, _): device = f.device
        case .change(.respond(let response)): device = response.device
        default: device = nil
        }
        if let device { devices.withLock { _ = $0.insert(device) } }
    }

    /// On the stream clock, once input has moved it: a date more than the tenant's
    /// ``TenantLimits/maxClockJumpSeconds`` after the clock is refused, as `run` refuses such a
    /// line. (One fix dated 9999 moved the clock there for good: everything repeating fired
    /// out its catch-up and ended, and the clock cannot go back.)
    func clockJumpRefusal(to date: Date, code: String) -> APIError? {
        guard mode == .stream, limits.maxClockJumpSeconds > 0, clockMoved.withLock({ $0 }) else { return nil }
        let now = clock.now
        let jump = date.timeIntervalSince(now)
        guard jump > Double(limits.maxClockJumpSeconds) else { return nil }
        return APIError(.unprocessableContent, code,
                        "clock jump of \(jump) s (from \(Timestamp.string(millis: Timestamp.millis(now))) to \(Timestamp.string(millis: Timestamp.millis(date)))) "
                        + "exceeds the tenant's maxClockJumpSeconds \(limits.maxClockJumpSeconds) s; not applied")
    }
}
