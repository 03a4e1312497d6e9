import Foundation
@_spi(Engine) import TriggerKit

// What a tenant refuses before applying an input: its limits (requests, devices) and, on the
// stream clock, a jump past its bound.

extension Tenant {
    /// The tenant's limits on requests and devices: a refusal, or nil.
    /// `catchUp`: the fires the step's accepted adds will deliver at once (an `addedAt` in
    /// the past catches up); an add within ``TenantLimits/maxStepFires`` with them sets
    /// `adding` to its own, which the step sums once the center accepted it.
    func overLimit(_ input: TenantInput, on c: isolated TriggerCenter, catchUp: Int, adding: inout Int) -> APIError? {
        let device: String?
        switch input {
        case .change(.add(let r)):
            if c.requestCount >= limits.maxRequests, c.request(withIdentifier: r.identifier) == nil {
                return APIError(.tooManyRequests, "tooManyRequests", "the tenant has \(limits.maxRequests) requests, its limit")
            }
            if mode == .stream {
                let most = limits.maxStepFires
                let n = c.catchUpFireCount(of: r, limit: most - catchUp + 1)
                if catchUp + n > most {
                    return APIError(.unprocessableContent, "invalidRequest", "adding it\(catchUp > 0 ? " with the batch's other requests" : "") would deliver more than \(most) time fires at once (the tenant's maxStepFires: an addedAt in the past catches up, fires within the catch-up window one by one, and a request without a trigger fires once): add it with a later addedAt, or fewer at a time")
                }
                adding = n
            }
            device = r.device
        case .change(.settings(let d, _)): device = d
        case .change(.respond(let response)):
            // A snooze adds a request (for the responding device): held to both limits.
            // Only a snooze adds anything: a request, for the request's device (counted) or,
            // for a shared request, the responding one. Other responses are not limited (a
            // cancel at the limit still works) and count no device.
            let (request, effect, _) = c.resolve(response)
            guard case .snooze = effect, let request else { return nil }
            let snooze = NotificationCategory.snoozedRequest(request, device: response.device, delay: 1, at: clock.now)
            if c.requestCount >= limits.maxRequests, c.request(withIdentifier: snooze.identifier) == nil {
                return APIError(.tooManyRequests, "tooManyRequests", "the tenant has \(limits.maxRequests) requests, its limit: the snooze would add one")
            }
            device = request.device == nil ? response.device : nil
        case .fix(let f, _):
            if let jump = clockJumpRefusal(to: f.date, code: "invalidFix") ?? stepRefusal(to: f.date, code: "invalidFix", on: c) { return jump }
            device = f.device
        case .change(.clock(let d)):
            return clockJumpRefusal(to: d, code: "invalidClock") ?? stepRefusal(to: d, code: "invalidClock", on: c)
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
        default: device = nil
        }
        if let device { devices.withLock { _ = $0.insert(device) } }
    }

    /// On the stream clock, once input has moved it: a date more than the tenant's
    /// ``TenantLimits/maxClockJump`` after the clock is refused, by `run`'s rule
    /// (``ClockJumpRule``). (One fix dated 9999 moved the clock there for good: everything repeating fired
    /// out its catch-up and ended, and the clock cannot go back.)
    func clockJumpRefusal(to date: Date, code: String) -> APIError? {
        guard mode == .stream, clockMoved.withLock({ $0 }) else { return nil }
        let limit = ClockJumpRule.limitMillis(limits.maxClockJump)
        guard let why = ClockJumpRule.refusal(from: Timestamp.millis(clock.now), to: Timestamp.millis(date), limit: limit,
                                              limitName: "the tenant's maxClockJumpSeconds",
                                              what: code == "invalidClock" ? "clock" : "fix") else { return nil }
        return APIError(.unprocessableContent, code, why)
    }

    /// On the stream clock: a step to `date` that would deliver more time fires than the
    /// tenant's ``TenantLimits/maxStepFires`` is refused before anything changes (one step
    /// of 10 million fires held the server for over 10 minutes and 6 GB).
    func stepRefusal(to date: Date, code: String, on c: isolated TriggerCenter) -> APIError? {
        guard mode == .stream, date > clock.now else { return nil }
        let most = limits.maxStepFires
        guard c.dueFireCount(at: date, limit: most + 1) > most else { return nil }
        let what = code == "invalidClock" ? "moving the clock" : "the fix, moving the clock,"
        return APIError(.unprocessableContent, code, "\(what) from \(Timestamp.string(millis: Timestamp.millis(clock.now))) to \(Timestamp.string(millis: Timestamp.millis(date))) would deliver more than \(most) time fires at once (the tenant's maxStepFires; fires within the catch-up window come one by one): move it in smaller steps")
    }
}
