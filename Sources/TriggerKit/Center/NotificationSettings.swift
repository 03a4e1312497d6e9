/// Whether the user allowed a device to show notifications: Apple's `UNAuthorizationStatus`.
public enum AuthorizationStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Never asked: nothing is shown, and device-scoped requests cannot be added.
    case notDetermined
    /// Refused: nothing is shown, and device-scoped requests cannot be added.
    case denied
    /// Allowed.
    case authorized
    /// Allowed quietly: delivered to the notification center only, no alert, sound or badge.
    case provisional
    /// Allowed for a limited time (App Clips); treated as authorized.
    case ephemeral

    /// Whether requests may be added for the device and fires are delivered at all.
    public var allowsDelivery: Bool { self != .notDetermined && self != .denied }
}

/// One presentation setting: Apple's `UNNotificationSetting`.
public enum NotificationSetting: String, Sendable, Hashable, Codable, CaseIterable {
    /// The device cannot present this way; the user turned it off; the user allows it.
    case notSupported, disabled, enabled
}

/// What a device lets notifications do: Apple's `UNNotificationSettings`.
public struct NotificationSettings: Sendable, Hashable {
    /// Whether the device allows notifications (provisional ones go to the notification center quietly).
    public var authorizationStatus: AuthorizationStatus
    /// Whether alerts show.
    public var alertSetting: NotificationSetting
    /// Whether sounds play.
    public var soundSetting: NotificationSetting
    /// Whether badges are set.
    public var badgeSetting: NotificationSetting
    /// Whether notifications are listed in the notification center.
    public var notificationCenterSetting: NotificationSetting
    /// Whether notifications show on the lock screen.
    public var lockScreenSetting: NotificationSetting

    /// Settings with the given status; each presentation enabled unless said otherwise.
    public init(authorizationStatus: AuthorizationStatus, alertSetting: NotificationSetting = .enabled,
                soundSetting: NotificationSetting = .enabled, badgeSetting: NotificationSetting = .enabled,
                notificationCenterSetting: NotificationSetting = .enabled, lockScreenSetting: NotificationSetting = .enabled) {
        self.authorizationStatus = authorizationStatus
        self.alertSetting = alertSetting
        self.soundSetting = soundSetting
        self.badgeSetting = badgeSetting
        self.notificationCenterSetting = notificationCenterSetting
        self.lockScreenSetting = lockScreenSetting
    }

    /// Everything allowed: what a device without settings gets.
    public static let authorized = NotificationSettings(authorizationStatus: .authorized)

    /// The presentations a fire of `content` gets on this device: the content's alert
    /// (title, subtitle or body), sound and badge intersected with the settings; provisional
    /// authorization delivers quietly (notification center only). Empty when not allowed.
    public func presentation(of content: NotificationContent) -> Presentation {
        guard authorizationStatus.allowsDelivery else { return [] }
        var p: Presentation = []
        if notificationCenterSetting == .enabled { p.insert(.notificationCenter) }
        if authorizationStatus == .provisional { return p }
        let hasAlert = content.title != nil || content.subtitle != nil || content.body != nil
        return presentation(alert: hasAlert, sound: content.sound != nil, badge: content.badge != nil, base: p)
    }

    /// ``presentation(of:)`` from what the content asks for: the stream evaluator computes
    /// these three flags once per request instead of copying the content per fire.
    func presentation(alert hasAlert: Bool, sound: Bool, badge: Bool) -> Presentation {
        guard authorizationStatus.allowsDelivery else { return [] }
        var p: Presentation = []
        if notificationCenterSetting == .enabled { p.insert(.notificationCenter) }
        if authorizationStatus == .provisional { return p }
        return presentation(alert: hasAlert, sound: sound, badge: badge, base: p)
    }

    private func presentation(alert hasAlert: Bool, sound: Bool, badge: Bool, base: Presentation) -> Presentation {
        var p = base
        if hasAlert && alertSetting == .enabled { p.insert(.alert) }
        if hasAlert && lockScreenSetting == .enabled { p.insert(.lockScreen) }
        if sound && soundSetting == .enabled { p.insert(.sound) }
        if badge && badgeSetting == .enabled { p.insert(.badge) }
        return p
    }
}

/// How a delivered notification is presented.
public struct Presentation: OptionSet, Sendable, Hashable, Codable {
    /// The presentations' bits.
    public let rawValue: UInt8
    /// Presentations from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shown as an alert.
    public static let alert = Presentation(rawValue: 1)
    /// With its sound.
    public static let sound = Presentation(rawValue: 2)
    /// Setting the badge.
    public static let badge = Presentation(rawValue: 4)
    /// Listed in the notification center.
    public static let notificationCenter = Presentation(rawValue: 8)
    /// Shown on the lock screen.
    public static let lockScreen = Presentation(rawValue: 16)

    /// Names in output order.
    package static let names: [(Presentation, String)] = [
        (.alert, "alert"), (.sound, "sound"), (.badge, "badge"), (.notificationCenter, "notificationCenter"), (.lockScreen, "lockScreen"),
    ]
}

extension NotificationSettings: Codable {
    enum CodingKeys: String, CodingKey {
        case authorizationStatus, alertSetting, soundSetting, badgeSetting, notificationCenterSetting, lockScreenSetting
    }

    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do throws(SettingsError) { self = try NotificationSettings(json: json) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

    /// Reads settings JSON: `authorizationStatus` (required) and the five `...Setting` keys
    /// (`"enabled"`, `"disabled"`, `"notSupported"`, or true/false; default enabled).
    public init(json: JSONValue) throws(SettingsError) {
        guard case .object(let o) = json else { throw SettingsError("settings must be an object, not \(json.typeName)") }
        guard case .string(let s)? = o["authorizationStatus"] else {
            let names = AuthorizationStatus.allCases.map(\.rawValue).joined(separator: ", ")
            // Present but not a string: named as such (it read as missing).
            if let other = o["authorizationStatus"] {
                throw SettingsError("\"authorizationStatus\" must be a string (\(names)), not \(other.typeName)")
            }
            throw SettingsError("settings need \"authorizationStatus\" (\(names))")
        }
        guard let status = AuthorizationStatus(rawValue: s) else {
            throw SettingsError("unknown authorizationStatus \"\(s)\" (expected \(AuthorizationStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        func setting(_ key: CodingKeys) throws(SettingsError) -> NotificationSetting {
            switch o[key.rawValue] {
            case nil, .null?: return .enabled
            case .bool(let b)?: return b ? .enabled : .disabled
            case .string(let v)?:
                guard let x = NotificationSetting(rawValue: v) else {
                    throw SettingsError("\"\(key.rawValue)\" must be enabled, disabled or notSupported, not \"\(v)\"")
                }
                return x
            case let other?: throw SettingsError("\"\(key.rawValue)\" must be a string or Boolean, not \(other.typeName)")
            }
        }
        for key in o.keys where CodingKeys(rawValue: key) == nil {
            throw SettingsError("unknown settings field \"\(key)\"")
        }
        self.init(authorizationStatus: status, alertSetting: try setting(.alertSetting), soundSetting: try setting(.soundSetting),
                  badgeSetting: try setting(.badgeSetting), notificationCenterSetting: try setting(.notificationCenterSetting),
                  lockScreenSetting: try setting(.lockScreenSetting))
    }

    /// The settings as JSON.
    public var json: JSONValue {
        .object([
            "authorizationStatus": .string(authorizationStatus.rawValue), "alertSetting": .string(alertSetting.rawValue),
            "soundSetting": .string(soundSetting.rawValue), "badgeSetting": .string(badgeSetting.rawValue),
            "notificationCenterSetting": .string(notificationCenterSetting.rawValue), "lockScreenSetting": .string(lockScreenSetting.rawValue),
        ])
    }

    /// A device id as every way in takes it: at most ``RequestLimits/maximumIdentifierBytes``
    /// UTF-8 bytes (fixes, stream lines and requests held to it; settings were not).
    package static func checkDevice(_ device: String) throws(SettingsError) {
        if let v = FixRules.deviceViolation(utf8Count: device.utf8.count) { throw SettingsError("a device id \(v.reason)") }
    }

    /// Reads a settings file: a JSON object mapping device id to settings; the key `"*"`
    /// gives the settings of devices not listed (default: authorized, everything enabled).
    public static func table(json: JSONValue) throws(SettingsError) -> (devices: [String: NotificationSettings], others: NotificationSettings) {
        guard case .object(let o) = json else { throw SettingsError("a settings file must be a JSON object mapping device ids to settings") }
        var out: [String: NotificationSettings] = [:]
        var others = NotificationSettings.authorized
        for (device, v) in o {
            try checkDevice(device)
            let s: NotificationSettings
            do throws(SettingsError) { s = try NotificationSettings(json: v) } catch {
                throw SettingsError("device \"\(device)\": \(error.reason)")
            }
            if device == "*" { others = s } else { out[device] = s }
        }
        return (out, others)
    }
}

/// Malformed settings.
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the device, category, action or field.
    public var reason: String
    /// An error with this reason.
    public init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}

extension NotificationSettings {
    /// The settings in one integer (3 bits of status, 2 bits per setting), for compact storage.
    package var packed: Int {
        func code(_ s: NotificationSetting) -> Int { NotificationSetting.allCases.firstIndex(of: s) ?? 0 }
        let status = AuthorizationStatus.allCases.firstIndex(of: authorizationStatus) ?? 0
        return status | code(alertSetting) << 3 | code(soundSetting) << 5 | code(badgeSetting) << 7
            | code(notificationCenterSetting) << 9 | code(lockScreenSetting) << 11
    }

    /// Settings from ``packed``; `nil` for a value no settings pack to.
    package init?(packed: Int) {
        let statuses = AuthorizationStatus.allCases, settings = NotificationSetting.allCases
        func setting(_ shift: Int) -> NotificationSetting? {
            let i = packed >> shift & 3
            return i < settings.count ? settings[i] : nil
        }
        let s = packed & 7
        guard packed >= 0, packed < 1 << 13, s < statuses.count, let a = setting(3), let so = setting(5), let b = setting(7),
              let n = setting(9), let l = setting(11) else { return nil }
        self.init(authorizationStatus: statuses[s], alertSetting: a, soundSetting: so, badgeSetting: b,
                  notificationCenterSetting: n, lockScreenSetting: l)
    }
}
