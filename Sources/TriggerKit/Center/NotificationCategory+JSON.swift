import Foundation

// Categories as files and HTTP bodies give them, and the rules every list is held to.

extension NotificationCategory {
    /// Reads a JSON array of categories:
    /// `[{"identifier": "REMINDER", "actions": [{"identifier": "cancel", "title": "Cancel",
    /// "options": ["destructive"], "effect": "removeRequest"}], "dismissEffect": "none"}]`;
    /// an effect is `"none"`, `"removeRequest"` or `{"snooze": seconds}`.
    ///
    /// Refused (the error names the category, the action and the field): a field it does not
    /// know, a field of the wrong type, and whatever ``validate(_:)`` refuses (a category or an
    /// action listed twice: which one would a response mean?). This reads the shape; the
    /// rules on the values are ``validate(_:)``'s alone, the same for every way in. `null`
    /// stands for an absent field.
    public static func list(json: JSONValue) throws(SettingsError) -> [NotificationCategory] {
        guard case .array(let items) = json else { throw SettingsError("categories must be a JSON array") }
        var out: [NotificationCategory] = []
        for item in items {
            guard case .object(let o) = item, case .string(let id)? = o["identifier"] else {
                throw SettingsError("a category needs a non-empty \"identifier\"")
            }
            let category = "category \"\(id)\""
            // A misspelt field would otherwise change nothing, silently (a `dismisEffect` that
            // never applies): refused, as in the settings file.
            if let extra = o.keys.filter({ !Self.categoryFields.contains($0) }).min() {
                throw SettingsError("\(category): unknown field \"\(extra)\" (expected identifier, actions, dismissEffect)")
            }
            var actions: [NotificationAction] = []
            switch o["actions"] {
            case nil, .null?: break
            case .array(let list)?:
                for a in list {
                    guard case .object(let f) = a, case .string(let aid)? = f["identifier"] else {
                        throw SettingsError("an action of category \"\(id)\" needs a non-empty \"identifier\"")
                    }
                    let action = "\(category): action \"\(aid)\""
                    if let extra = f.keys.filter({ !Self.actionFields.contains($0) }).min() {
                        throw SettingsError("\(action): unknown field \"\(extra)\" (expected identifier, title, options, effect)")
                    }
                    var title = aid
                    switch f["title"] {
                    case nil, .null?: break
                    case .string(let t)?: title = t
                    default: throw SettingsError("\(action): \"title\" must be a string")
                    }
                    var options: ActionOptions = []
                    switch f["options"] {
                    case nil, .null?: break
                    case .array(let names)?:
                        for n in names {
                            switch n {
                            case .string("foreground"): options.insert(.foreground)
                            case .string("destructive"): options.insert(.destructive)
                            case .string("authenticationRequired"): options.insert(.authenticationRequired)
                            default:
                                throw SettingsError("\(action): unknown option \(NotificationRequest.show(n)) (foreground, destructive, authenticationRequired)")
                            }
                        }
                    default: throw SettingsError("\(action): \"options\" must be an array")
                    }
                    actions.append(NotificationAction(identifier: aid, title: title, options: options,
                                                      effect: try effect(f["effect"], "\(action): \"effect\"")))
                }
            default:
                throw SettingsError("\(category): \"actions\" must be an array")
            }
            out.append(NotificationCategory(identifier: id, actions: actions,
                                            dismissEffect: try effect(o["dismissEffect"], "\(category): \"dismissEffect\"")))
        }
        try validate(out)
        return out
    }

    /// The rules every list of categories is held to, however it arrives (a file, HTTP,
    /// ``TriggerCenter/setNotificationCategories(_:)``): non-empty identifiers of at most
    /// ``RequestLimits/maximumIdentifierBytes`` UTF-8 bytes, no category
    /// and no action of one category twice, no action named as a response names opening or
    /// dismissing a notification (`default`, `dismiss` and Apple's identifiers of the two),
    /// snoozes of (0, 100 years] seconds.
    /// - Throws: ``SettingsError`` naming the category, the action and what is wrong.
    public static func validate(_ list: [NotificationCategory]) throws(SettingsError) {
        var seen = Set<ExactKey>()
        for c in list {
            guard !c.identifier.isEmpty else { throw SettingsError("a category needs a non-empty \"identifier\"") }
            guard c.identifier.utf8.count <= RequestLimits.maximumIdentifierBytes else {
                throw SettingsError("category \"\(DiagnosticText.clipped(c.identifier, limit: 64))\": \"identifier\" is longer than \(RequestLimits.maximumIdentifierBytes) UTF-8 bytes")
            }
            let category = "category \"\(c.identifier)\""
            guard seen.insert(ExactKey(c.identifier)).inserted else { throw SettingsError("\(category) is listed twice") }
            try checkEffect(c.dismissEffect, "\(category): \"dismissEffect\"")
            var actions = Set<ExactKey>()
            for a in c.actions {
                guard !a.identifier.isEmpty else { throw SettingsError("an action of \(category) needs a non-empty \"identifier\"") }
                guard a.identifier.utf8.count <= RequestLimits.maximumIdentifierBytes else {
                    throw SettingsError("\(category): action \"\(DiagnosticText.clipped(a.identifier, limit: 64))\": \"identifier\" is longer than \(RequestLimits.maximumIdentifierBytes) UTF-8 bytes")
                }
                let action = "\(category): action \"\(a.identifier)\""
                guard actions.insert(ExactKey(a.identifier)).inserted else { throw SettingsError("\(action) is listed twice") }
                // A response with such an action means the user opened or dismissed the
                // notification, never this action: its effect could never happen.
                if reservedActions.contains(a.identifier) {
                    throw SettingsError("\(action): the name is reserved (a response naming it means the user opened or dismissed the notification): use \"dismissEffect\" for a dismissal, or another name")
                }
                try checkEffect(a.effect, "\(action): \"effect\"")
            }
        }
    }

    /// Action names a response reads as Apple's default and dismiss actions (the wire's short
    /// names too), never as a category's own action.
    private static let reservedActions = Set(NotificationResponse.shortActionNames.keys).union(NotificationResponse.shortActionNames.values)

    private static func checkEffect(_ e: ActionEffect, _ field: String) throws(SettingsError) {
        if case .snooze(let s) = e, !(s.isFinite && s > 0 && s <= RequestLimits.maximumTimeInterval) {
            throw SettingsError("\(field): \"snooze\" must be a number of seconds in (0, 100 years], not \(FixRules.show(s))")
        }
    }

    /// The fields a category and an action may have (anything else is refused).
    private static let categoryFields: Set<String> = ["identifier", "actions", "dismissEffect"]
    private static let actionFields: Set<String> = ["identifier", "title", "options", "effect"]

    /// An effect's shape (its snooze's range is ``validate(_:)``'s).
    private static func effect(_ v: JSONValue?, _ field: String) throws(SettingsError) -> ActionEffect {
        switch v {
        case nil, .null?, .string("none")?: return .none
        case .string("removeRequest")?: return .removeRequest
        case .object(let o)?:
            // A misspelt or extra member is named (it read as a bad "snooze").
            if let other = o.keys.sorted().first(where: { $0 != "snooze" }) {
                throw SettingsError("\(field): unknown member \"\(other)\": an effect object is {\"snooze\": seconds}")
            }
            guard case .number(let s)? = o["snooze"] else {
                throw SettingsError("\(field): \"snooze\" must be a number of seconds in (0, 100 years]" + (o["snooze"].map { ", not \($0.typeName)" } ?? ""))
            }
            return .snooze(s)
        default:
            throw SettingsError("\(field): an effect is \"none\", \"removeRequest\" or {\"snooze\": seconds}")
        }
    }
}
