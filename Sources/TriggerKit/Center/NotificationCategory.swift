import Foundation

/// A kind of notification and the actions a user can take on it: Apple's
/// `UNNotificationCategory`. Requests refer to a category by
/// ``NotificationContent/categoryIdentifier``.
public struct NotificationCategory: Sendable, Hashable, Codable {
    /// The name requests use in `content.categoryIdentifier`.
    public var identifier: String
    /// The buttons shown with the notification, in order.
    public var actions: [NotificationAction]
    /// What the center does when the user dismisses a notification of this category (Apple
    /// reports dismissals only with its `customDismissAction` option; here a dismissal
    /// response is always accepted and this says what it does).
    public var dismissEffect: ActionEffect

    /// - Parameters:
    ///   - identifier: the name requests use in `content.categoryIdentifier`.
    ///   - actions: the buttons, in order (identifiers must be unique within the category).
    ///   - dismissEffect: what a dismissal does (default: nothing but report it).
    public init(identifier: String, actions: [NotificationAction] = [], dismissEffect: ActionEffect = .none) {
        self.identifier = identifier
        self.actions = actions
        self.dismissEffect = dismissEffect
    }

    /// The action with this identifier, if the category has one. O(actions).
    public func action(withIdentifier id: String) -> NotificationAction? {
        actions.first { $0.identifier.isExactly(id) }
    }
}

/// A button on a notification: Apple's `UNNotificationAction`, plus what the center itself
/// does when the user chooses it.
public struct NotificationAction: Sendable, Hashable, Codable {
    /// The name a response carries (`actionIdentifier`).
    public var identifier: String
    /// The button's title.
    public var title: String
    /// Apple's `UNNotificationActionOptions`.
    public var options: ActionOptions
    /// What the center does with the request when this action is chosen.
    public var effect: ActionEffect

    /// An action shown as `title`, applying `effect` when chosen.
    public init(identifier: String, title: String, options: ActionOptions = [], effect: ActionEffect = .none) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.effect = effect
    }
}

/// How an action behaves on the device: Apple's `UNNotificationActionOptions`. The center
/// stores and reports them; the device acts on them.
public struct ActionOptions: OptionSet, Sendable, Hashable, Codable {
    /// The options' bits.
    public let rawValue: Int
    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The device must be unlocked to perform it.
    public static let authenticationRequired = ActionOptions(rawValue: 1 << 0)
    /// Shown in a destructive style ("Cancel", "Delete").
    public static let destructive = ActionOptions(rawValue: 1 << 1)
    /// Brings the app to the foreground.
    public static let foreground = ActionOptions(rawValue: 1 << 2)
}

/// What the center does with a request when a response chooses an action.
public enum ActionEffect: Sendable, Hashable, Codable {
    /// Nothing: the response is only passed through to the service.
    case none
    /// Removes the pending request (a "cancel" button on a repeating reminder stops it).
    case removeRequest
    /// Delivers the notification again after this many seconds: adds a one-shot
    /// time-interval request with identifier `<identifier>/snooze` (`<identifier>/snooze/<device>`
    /// when a device snoozes a shared request) and the same content and device; the original
    /// request and its schedule are left as they are. A one-shot that fired has left the
    /// center: it is snoozed with the request its delivery carries, while the history holds it.
    /// A request whose identifier is so long that its snooze's would pass
    /// ``RequestLimits/maximumIdentifierBytes`` cannot be snoozed: the outcome says so
    /// (`applied` false, a "snooze refused" warning).
    case snooze(TimeInterval)
}

/// A user's answer to a delivered notification: Apple's `UNNotificationResponse`.
public struct NotificationResponse: Sendable, Hashable, Codable {
    /// Apple's `UNNotificationDefaultActionIdentifier`: the user opened the notification.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// Apple's `UNNotificationDismissActionIdentifier`: the user dismissed it.
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

    /// The request the notification came from.
    public var requestIdentifier: String
    /// The device that answered (`nil` for a request not scoped to a device).
    public var device: String?
    /// The chosen action, or ``defaultActionIdentifier`` / ``dismissActionIdentifier``.
    public var actionIdentifier: String

    /// A response of `device` (nil: any) to request `requestIdentifier`, choosing
    /// `actionIdentifier`: an action of the request's category, ``defaultActionIdentifier`` or
    /// ``dismissActionIdentifier``. The short names `"default"` and `"dismiss"` (those of the
    /// JSON formats) mean the same two everywhere: no category may name an action so.
    public init(requestIdentifier: String, device: String? = nil, actionIdentifier: String) {
        self.requestIdentifier = requestIdentifier
        self.device = device
        self.actionIdentifier = actionIdentifier
    }
}

/// What the center did with a response.
public struct ResponseOutcome: Sendable, Hashable, Codable {
    /// The response as received.
    public var response: NotificationResponse
    /// The matched action's effect (``ActionEffect/none`` for the default action, an
    /// action of a category the center does not know, or a request without category).
    public var effect: ActionEffect
    /// Whether the effect changed the center (a removal of a request that was still
    /// pending, a snooze that was scheduled).
    public var applied: Bool
    /// Notes for the caller: an unknown category or action (Apple ignores both; so does the
    /// center, and says so here).
    public var warnings: [String]
}

extension NotificationResponse {
    /// The formats' short names of Apple's two actions, and the identifiers they stand for.
    package static let shortActionNames = ["default": defaultActionIdentifier, "dismiss": dismissActionIdentifier]

    /// `name`, or the identifier it is the short name of.
    package static func fullActionIdentifier(_ name: String) -> String { shortActionNames[name] ?? name }
}

extension NotificationCategory {
    /// Categories by identifier (one given twice counts as its last): what a center, a
    /// stream and a restore hold.
    package static func table(_ list: [NotificationCategory]) -> [ExactKey: NotificationCategory] {
        Dictionary(list.map { (ExactKey($0.identifier), $0) }, uniquingKeysWith: { $1 })
    }

    /// What a response does, given the request it answers and the registered categories:
    /// the effect and notes for the caller. Shared by ``TriggerCenter/respond(_:)`` and
    /// `triggerkit run`'s respond lines.
    package static func resolveResponse(_ response: NotificationResponse, request: NotificationRequest?,
                        categories: [ExactKey: NotificationCategory]) -> (effect: ActionEffect, warnings: [String]) {
        guard let request else { return (.none, ["no pending request \"\(response.requestIdentifier)\""]) }
        // A device answers only what it was shown: a request of one device is not another's to
        // cancel or snooze.
        if let own = request.device, let from = response.device, !own.isExactly(from) {
            return (.none, ["request \"\(request.identifier)\" belongs to device \"\(own)\": a response from device \"\(from)\" ignored"])
        }
        // The short names mean the same in a library call as on the wire: a category may not
        // name an action so (``validate(_:)``).
        let chosen = NotificationResponse.fullActionIdentifier(response.actionIdentifier)
        let isDefault = chosen == NotificationResponse.defaultActionIdentifier
        let isDismiss = chosen == NotificationResponse.dismissActionIdentifier
        guard let name = request.content.categoryIdentifier else {
            return (.none, isDefault || isDismiss ? [] : ["request \"\(request.identifier)\" has no category: action \"\(response.actionIdentifier)\" ignored"])
        }
        guard let category = categories[ExactKey(name)] else {
            return (.none, ["category \"\(name)\" is not registered: response ignored"])
        }
        if isDefault { return (.none, []) }
        if isDismiss { return (category.dismissEffect, []) }
        guard let action = category.action(withIdentifier: response.actionIdentifier) else {
            return (.none, ["category \"\(name)\" has no action \"\(response.actionIdentifier)\": response ignored"])
        }
        return (action.effect, [])
    }

    /// The request a snooze adds: the same content and device, a one-shot interval, named
    /// `<identifier>/snooze`, or `<identifier>/snooze/<device>` when a device snoozes a shared
    /// request (each device's snooze its own: one device's no longer replaced another's).
    package static func snoozedRequest(_ request: NotificationRequest, device: String?, delay: TimeInterval, at date: Date) -> NotificationRequest {
        let name = request.device == nil && device != nil ? request.identifier + "/snooze/" + device! : request.identifier + "/snooze"
        return NotificationRequest(identifier: name, content: request.content,
                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: delay, repeats: false)),
                            device: request.device ?? device, addedAt: date)
    }
}

@_spi(Engine) extension ActionEffect {
    /// The JSON ``NotificationCategory/list(json:)`` reads.
    public var json: JSONValue {
        switch self {
        case .none: .string("none")
        case .removeRequest: .string("removeRequest")
        case .snooze(let s): .object(["snooze": .number(s)])
        }
    }
}

@_spi(Engine) extension NotificationCategory {
    /// The JSON ``list(json:)`` reads back to the same category.
    public var json: JSONValue {
        .object([
            "identifier": .string(identifier),
            "actions": .array(actions.map { a in
                var names: [JSONValue] = []
                if a.options.contains(.foreground) { names.append(.string("foreground")) }
                if a.options.contains(.destructive) { names.append(.string("destructive")) }
                if a.options.contains(.authenticationRequired) { names.append(.string("authenticationRequired")) }
                return .object(["identifier": .string(a.identifier), "title": .string(a.title), "options": .array(names), "effect": a.effect.json])
            }),
            "dismissEffect": dismissEffect.json,
        ])
    }
}

@_spi(Engine) extension ResponseOutcome {
    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "identifier": .string(response.requestIdentifier),
            "action": .string(response.actionIdentifier),
            "effect": effect.json,
            "applied": .bool(applied),
            "warnings": .array(warnings.map(JSONValue.string)),
        ]
        if let d = response.device { o["device"] = .string(d) }
        return .object(o)
    }
}
