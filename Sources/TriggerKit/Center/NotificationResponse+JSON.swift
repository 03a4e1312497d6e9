import Foundation

extension NotificationResponse {
    /// A response as the formats write it (`{"identifier": "water", "device": "phone",
    /// "action": "cancel"}`): the one reader of a `respond` line of `run`'s stream and of the
    /// body of `POST /v1/responses`. `"default"` and `"dismiss"` are the wire's short names of
    /// ``defaultActionIdentifier`` and ``dismissActionIdentifier``. Fields other than these
    /// three are ignored, as in a fix line.
    ///
    /// - Throws: ``SettingsError`` naming the field: not an object, `identifier` or `action`
    ///   missing or not a string, `device` present and not a string (a number there once read
    ///   as no device on the stream, which answered any device's request), or longer than a
    ///   device id may be (1,024 UTF-8 bytes).
    package init(json: JSONValue) throws(SettingsError) {
        guard case .object(let o) = json else {
            throw SettingsError("a response must be a JSON object, not \(json.typeName)")
        }
        guard case .string(let id)? = o["identifier"], case .string(let action)? = o["action"] else {
            throw SettingsError("a response needs \"identifier\" and \"action\" (strings); \"device\" is optional")
        }
        var device: String?
        if let d = o["device"], d != .null {
            guard case .string(let s) = d else {
                throw SettingsError("\"device\" must be a string, not \(NotificationRequest.show(d))")
            }
            // Held to the bound every device id is (fixes, settings, requests): a longer one
            // was taken, and a cancel from it applied (found by a helper).
            try NotificationSettings.checkDevice(s)
            device = s
        }
        let full = Self.fullActionIdentifier(action)
        self.init(requestIdentifier: id, device: device, actionIdentifier: full)
    }
}
