import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

@Suite("Authorization and presentation")
struct AuthorizationTests {
    static let content = NotificationContent(title: "t", sound: "default", badge: 1)

    @Test(arguments: AuthorizationStatus.allCases)
    func presentationPerStatus(status: AuthorizationStatus) {
        let p = NotificationSettings(authorizationStatus: status).presentation(of: Self.content)
        switch status {
        case .notDetermined, .denied: #expect(p == [])
        case .provisional: #expect(p == [.notificationCenter])
        case .authorized, .ephemeral: #expect(p == [.alert, .sound, .badge, .notificationCenter, .lockScreen])
        }
    }

    @Test func contentIsIntersectedWithSettings() {
        let s = NotificationSettings(authorizationStatus: .authorized, soundSetting: .disabled, lockScreenSetting: .notSupported)
        #expect(s.presentation(of: Self.content) == [.alert, .badge, .notificationCenter])
        #expect(s.presentation(of: NotificationContent(badge: 3)) == [.badge, .notificationCenter])
    }

    @Test func settingsJSON() throws {
        let s = try NotificationSettings(json: try JSONValue.parse(#"{"authorizationStatus": "provisional", "soundSetting": false, "badgeSetting": "notSupported"}"#))
        #expect(s == NotificationSettings(authorizationStatus: .provisional, soundSetting: .disabled, badgeSetting: .notSupported))
        #expect(try NotificationSettings(json: s.json) == s)
        #expect(throws: SettingsError.self) { try NotificationSettings(json: try JSONValue.parse(#"{"authorizationStatus": "maybe"}"#)) }
        #expect(throws: SettingsError.self) { try NotificationSettings(json: try JSONValue.parse(#"{"soundSetting": "enabled"}"#)) }
        #expect(throws: SettingsError.self) { try NotificationSettings(json: try JSONValue.parse(#"{"authorizationStatus": "denied", "colour": 1}"#)) }
        let table = try NotificationSettings.table(json: try JSONValue.parse(#"{"*": {"authorizationStatus": "denied"}, "d1": {"authorizationStatus": "authorized"}}"#))
        #expect(table.others.authorizationStatus == .denied)
        #expect(table.devices["d1"]?.authorizationStatus == .authorized)
    }

    @Test func deviceScopedRequestsForUnauthorizedDevicesAreRefused() {
        let text = [circleRequest("ok", device: "yes"), circleRequest("no", device: "nope"), circleRequest("never", device: "unknown"), circleRequest("shared")]
            .joined(separator: "\n")
        let options = ValidationOptions(deviceSettings: ["yes": .authorized, "nope": NotificationSettings(authorizationStatus: .denied)],
                                        defaultSettings: NotificationSettings(authorizationStatus: .notDetermined))
        let set = RequestsFile.parse(text, file: "f", options: options)
        #expect(set.requests.map(\.identifier) == ["ok", "shared"])
        #expect(set.diagnostics.map(\.description) == [
            "error: f:2: no: notificationsNotAllowed: device \"nope\" has not authorized notifications (authorizationStatus denied)",
            "error: f:3: never: notificationsNotAllowed: device \"unknown\" has not authorized notifications (authorizationStatus notDetermined)",
        ])
    }

    @Test func settingsChangeMidStreamSuppressAndRestoreDelivery() {
        var h = StreamHarness(requests: circleRequest("a"), options: StreamOptions(
            deviceSettings: ["d": NotificationSettings(authorizationStatus: .provisional)]))
        let out = h.feed([
            fix("d", 0, north: 300),
            fix("d", 10, north: 0),                                                        // enter, provisional
            "{\"device\": \"d\", \"t\": \"\(at(15))\", \"settings\": {\"authorizationStatus\": \"denied\"}}",
            fix("d", 20, north: 300),                                                      // exit, suppressed
            "{\"device\": \"d\", \"t\": \"\(at(25))\", \"settings\": {\"authorizationStatus\": \"authorized\", \"alertSetting\": \"disabled\"}}",
            fix("d", 30, north: 0),                                                        // enter, authorized
        ])
        #expect(out.count == 2)
        #expect(out[0].contains("\"event\":\"enter\"") && out[0].contains("\"presentation\":[\"notificationCenter\"]"))
        #expect(out[1].contains("\"date\":\"\(at(30))\"") && out[1].contains("\"presentation\":[\"notificationCenter\",\"lockScreen\"]"))
        #expect(h.evaluator.stats.suppressed == 1)
        #expect(h.evaluator.stats.fires == 2)
        #expect(h.evaluator.settings(forDevice: "d").alertSetting == .disabled)
    }

    @Test func settingsLineErrorsNameTheField() {
        do {
            _ = try StreamLineParser.parse(#"{"device": "d", "t": 1, "settings": {"authorizationStatus": "sure"}}"#)
            Issue.record("accepted")
        } catch {
            #expect(error.reason.contains("unknown authorizationStatus \"sure\""))
        }
    }

    /// A status of the wrong type is named as such (a helper: it read as missing).
    @Test(arguments: [("5", "a number"), (#"["denied"]"#, "an array"), ("null", "null")])
    func aStatusOfTheWrongTypeIsNamed(value: String, type: String) {
        #expect(throws: SettingsError.self) { try NotificationSettings(json: JSONValue.parse(#"{"authorizationStatus": \#(value)}"#)) }
        do {
            _ = try NotificationSettings(json: JSONValue.parse(#"{"authorizationStatus": \#(value)}"#))
        } catch let error as SettingsError {
            #expect(error.description.hasPrefix(#""authorizationStatus" must be a string (notDetermined, denied, authorized, provisional, ephemeral), not "#), "\(error)")
            #expect(error.description.hasSuffix("not \(type)"), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }
}

@Suite("Settings packing")
struct SettingsPackingTests {
    @Test func everySettingsValueRoundTripsThroughItsPackedForm() {
        var seen = Set<Int>()
        for st in AuthorizationStatus.allCases {
            for a in NotificationSetting.allCases {
                for n in NotificationSetting.allCases {
                    let s = NotificationSettings(authorizationStatus: st, alertSetting: a, soundSetting: n, badgeSetting: a,
                                                 notificationCenterSetting: n, lockScreenSetting: a)
                    #expect(NotificationSettings(packed: s.packed) == s)
                    seen.insert(s.packed)
                }
            }
        }
        #expect(seen.count == AuthorizationStatus.allCases.count * 9)
        #expect(NotificationSettings(packed: -1) == nil)
        #expect(NotificationSettings(packed: 7) == nil)
    }
}
