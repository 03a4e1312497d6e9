import Foundation

// Categories, actions and the responses that apply them.

extension TriggerCenter {
    /// Registers the categories requests may name (replacing the ones registered before),
    /// as Apple's `setNotificationCategories`.
    /// - Throws: ``SettingsError`` for a list ``NotificationCategory/validate(_:)`` refuses (a
    ///   category or an action twice, an empty identifier, a snooze of NaN or 0 s); nothing
    ///   changes then. (It took any list: duplicates collapsed silently, and a bad snooze
    ///   surfaced only when a user answered, found by a helper.)
    public func setNotificationCategories(_ list: [NotificationCategory]) throws(SettingsError) {
        guard !isShutDown else { return }
        try NotificationCategory.validate(list)
        categories = NotificationCategory.table(list)
    }

    /// The registered categories, by identifier.
    public func notificationCategories() -> [NotificationCategory] {
        categories.keys.sorted().compactMap { categories[$0] }
    }

    /// The request a response answers and what it would do, without doing it (a service
    /// checks its limits first: a snooze adds a request).
    package func resolve(_ response: NotificationResponse) -> (request: NotificationRequest?, effect: ActionEffect, warnings: [String]) {
        // What the device was shown: the request of its newest delivery with that identifier,
        // as it was then (its category, content and device; a one-shot that fired has left
        // the center, and a request replaced since is another one), as Apple hands an app the
        // delivered notification's request. Answering the pending request instead applied a
        // response to a notification never shown to that device (before the first fire, a
        // fire suppressed, another device's shared fire) and, after a replacement, took the
        // replacement's category and device (found by a helper). Without a history
        // (`deliveredLimitPerDevice` 0) the pending request is answered, as `run` does.
        // Where the history may have dropped the delivery (a list it would be in is full: the
        // shared fires' list fills with every shared fire; a reviewer's find), the pending
        // request is answered, as without a history.
        var request = history.latestRequest(identifier: response.requestIdentifier, device: response.device)
        if request == nil {
            guard history.mayHaveDropped(device: response.device) else {
                let whom = response.device.map { "device \"\($0)\"" } ?? "any device"
                return (nil, .none, ["no notification of request \"\(response.requestIdentifier)\" delivered to \(whom) is in the history: response ignored"])
            }
            request = engine.request(identifier: response.requestIdentifier)
        }
        let (effect, warnings) = NotificationCategory.resolveResponse(response, request: request, categories: categories)
        return (request, effect, warnings)
    }

    /// Applies a user's response to a delivered notification: the chosen action's
    /// ``ActionEffect`` (remove the request, snooze it) takes effect now.
    ///
    /// The default action and unknown categories or actions change nothing (Apple ignores
    /// them too); the outcome says so.
    ///
    /// The request answered is the one of the newest delivery with that identifier the
    /// response's device was shown (its own or a shared one; at one instant its own), as it
    /// was delivered: its category names the actions, and a snooze repeats its content. A
    /// response naming no device takes the newest delivery to any device or to none, and among
    /// deliveries at one instant the greatest device identifier's. A request that finished, was
    /// removed or was replaced since is so answered (`removeRequest` removes the pending request
    /// with its identifier, if any), as Apple hands an app the delivered notification's
    /// request. A response to a notification the history does not hold for that device (never
    /// delivered to it, or suppressed by its settings) is ignored with a warning. Where the
    /// history may have dropped it (the device's list, or the list of fires that concern no
    /// device, holds ``CenterConfiguration/deliveredLimitPerDevice`` entries), and with no
    /// history (that limit 0), the pending request with the identifier is answered, as
    /// `triggerkit run`, which keeps no deliveries, does. A device id longer than 1,024 UTF-8
    /// bytes is ignored with a warning.
    public func respond(_ response: NotificationResponse) -> ResponseOutcome {
        guard !isShutDown else {
            return ResponseOutcome(response: response, effect: .none, applied: false, warnings: ["the center is shut down"])
        }
        // The bound every device id is held to (as the wire's reader holds it).
        if let device = response.device, let v = FixRules.deviceViolation(utf8Count: device.utf8.count) {
            return ResponseOutcome(response: response, effect: .none, applied: false, warnings: ["a device id \(v.reason): response ignored"])
        }
        let (request, effect, warnings) = resolve(response)
        var outcome = ResponseOutcome(response: response, effect: effect, applied: false, warnings: warnings)
        guard let request else { return outcome }
        switch effect {
        case .none:
            break
        case .removeRequest:
            outcome.applied = engine.remove(identifiers: [request.identifier]) > 0
        case .snooze(let delay):
            let snoozed = NotificationCategory.snoozedRequest(request, device: response.device, delay: delay, at: addInstant(clock.now))
            // Said as `run` says it of the add its snooze amounts to.
            let replacing = engine.request(identifier: snoozed.identifier) != nil
            do throws(RequestError) {
                try add(snoozed)
                outcome.applied = true
                if replacing { outcome.warnings.append("\(snoozed.identifier): \(StreamSession.replacementNote)") }
            } catch {
                outcome.warnings.append("snooze refused: \(error)")
            }
        }
        return outcome
    }
}

extension TriggerCenter {
    /// Runs `body` on the center's actor with no other call interleaved: several changes,
    /// and whatever the caller records about them (a journal, an outbox), as one step.
    ///
    /// `body` must not block for long: the center answers nothing else meanwhile.
    public func atomically<T: Sendable, E: Error>(_ body: @Sendable (isolated TriggerCenter) throws(E) -> T) throws(E) -> T {
        try body(self)
    }
}
