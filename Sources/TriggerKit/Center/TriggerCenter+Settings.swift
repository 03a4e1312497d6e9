import Foundation

// Per-device notification settings and the zone floating triggers follow.

extension TriggerCenter {
    /// A device's notification settings.
    public func notificationSettings(forDevice device: String) -> NotificationSettings {
        evaluator.settings(forDevice: device)
    }

    /// Changes a device's notification settings from now on.
    /// - Throws: ``SettingsError`` for a device id longer than
    ///   ``RequestLimits/maximumIdentifierBytes`` (as a fix's or a request's), or naming a
    ///   device the center does not know when it knows ``CenterConfiguration/maxDevices``
    ///   already; nothing changes.
    public func setNotificationSettings(_ settings: NotificationSettings, forDevice device: String) throws(SettingsError) {
        guard !isShutDown else { return }
        try NotificationSettings.checkDevice(device)
        let e = evaluator
        if e.isNewDevice(device, pastLimit: configuration.maxDevices) {
            throw SettingsError("device is new and the center keeps state for \(configuration.maxDevices) device\(configuration.maxDevices == 1 ? "" : "s"), its limit (maxDevices)")
        }
        e.setSettings(settings, forDevice: device)
    }

    /// Changes the zone floating calendar triggers follow: those pending are re-planned from
    /// now, and every request added later follows it too. ``configuration`` keeps the zone the
    /// center was made with, and a snapshot does not hold the zone: restore with the zone in
    /// the restoring center's configuration. The zone is taken as given: unlike
    /// ``CenterConfiguration/validate()``, this does not refuse ICU's legacy IDs (`BST` is
    /// Asia/Dhaka there); make the zone from an IANA name.
    public func setFloatingTimeZone(_ zone: TimeZone) {
        guard !isShutDown else { return }
        evaluator.setFloatingTimeZone(zone)
        wake()
    }
}
