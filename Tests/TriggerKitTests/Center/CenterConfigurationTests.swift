import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The center's configuration is checked as `run`'s options and `serve`'s file are (one set of
/// ranges), and a clock that reads no supported date is named, never trapped on.
@Suite("Center: configuration and clock checks")
struct CenterConfigurationTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)

    static let outOfRange: [(field: String, change: @Sendable (inout CenterConfiguration) -> Void)] = [
        ("margin", { $0.margin = .nan }), ("margin", { $0.margin = -1 }), ("margin", { $0.margin = 100_001 }),
        ("margin", { $0.margin = .infinity }),
        ("dwell", { $0.dwell = .nan }), ("dwell", { $0.dwell = -0.5 }), ("dwell", { $0.dwell = .infinity }),
        ("dwell", { $0.dwell = 1e300 }),
        ("maxAccuracy", { $0.maxAccuracy = .nan }), ("maxAccuracy", { $0.maxAccuracy = -1 }),
        ("maxAccuracy", { $0.maxAccuracy = .infinity }),
        ("catchUpWindow", { $0.catchUpWindow = .nan }), ("catchUpWindow", { $0.catchUpWindow = -1 }),
        ("catchUpWindow", { $0.catchUpWindow = 1e12 }),
        ("maxFixLead", { $0.maxFixLead = .nan }), ("maxFixLead", { $0.maxFixLead = -1 }),
        ("maxFixLead", { $0.maxFixLead = -.infinity }),
        ("deliveredLimitPerDevice", { $0.deliveredLimitPerDevice = -1 }),
        ("deliveredLimitPerDevice", { $0.deliveredLimitPerDevice = .max }),
        ("deliveryBufferLimit", { $0.deliveryBufferLimit = 0 }),
        ("deliveryBufferLimit", { $0.deliveryBufferLimit = .max }),
        ("maxDevices", { $0.maxDevices = 0 }), ("maxDevices", { $0.maxDevices = -1 }),
        ("maxDevices", { $0.maxDevices = 100_000_001 }), ("maxDevices", { $0.maxDevices = .max }),
    ]

    @Test(arguments: outOfRange.indices)
    func aValueOutOfRangeIsRefusedNamingItsField(_ k: Int) async throws {
        let (field, change) = Self.outOfRange[k]
        var c = CenterConfiguration()
        change(&c)
        let error = #expect(throws: CenterError.self) { try TriggerCenter(configuration: c, clock: ManualClock(Self.t0)) }
        guard case .invalidConfiguration(let named, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(named == field)
        #expect(reason.hasPrefix("must be"))
        // Restoring with it is refused the same way, before the snapshot is looked at.
        let snapshot = await (try TriggerCenter(clock: ManualClock(Self.t0))).snapshot()
        let again = #expect(throws: CenterError.self) { try TriggerCenter(restoring: snapshot, configuration: c, clock: ManualClock(Self.t0)) }
        #expect(again == error)
    }

    @Test func theEdgesOfEachRangeAreAccepted() async throws {
        var c = CenterConfiguration()
        c.margin = 100_000
        c.dwell = 31_622_400
        c.maxAccuracy = 0
        c.catchUpWindow = 0
        c.maxFixLead = .infinity
        c.deliveredLimitPerDevice = 0
        c.deliveryBufferLimit = 1 << 20
        try c.validate()
        _ = try TriggerCenter(configuration: c, clock: ManualClock(Self.t0))
        try CenterConfiguration().validate()
    }

    /// A NaN margin used to be skipped by the validator's `margin > 0` check and read as 0;
    /// a NaN `maxFixLead` refused every fix. Both are now refused at the center's creation.
    @Test func theOldSilentFailuresAreNowErrors() {
        var nanLead = CenterConfiguration()
        nanLead.maxFixLead = .nan
        #expect(throws: CenterError.invalidConfiguration(field: "maxFixLead", reason: "must be a number of seconds >= 0 (.infinity: no limit), not nan")) {
            try nanLead.validate()
        }
    }

    static let request = NotificationRequest(identifier: "a", content: NotificationContent(title: "a"),
                                             trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: false)))

    // (Seconds, not Dates: Foundation's `Date.description` traps on a NaN date.)
    @Test(arguments: [Double.nan, 1e12, -1e12, 1e15, -1e15])
    func aClockOutsideTheSupportedDatesIsNamed(_ start: Double) async throws {
        let center = try TriggerCenter(clock: ManualClock(Date(timeIntervalSince1970: start)))
        let refused = await #expect(throws: RequestError.self) { try await center.add(Self.request) }
        #expect(refused?.code == .invalidRequest)
        #expect(refused?.message.contains("the center's clock") == true)
        let fix = LocationFix(device: "d", date: Self.t0, latitude: 0, longitude: 0)
        let error = await #expect(throws: FixError.self) { try await center.receive(fix) }
        guard case .unsupportedClock(let seconds) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(seconds.bitPattern == start.bitPattern)
        #expect(String(describing: error).contains("the center's clock"))
        #expect(await center.pendingRequests().isEmpty)
        #expect(await center.deliverDue().isEmpty)
    }

    /// A clock moved past 9999 was clamped by `deliverDue`: every repeating trigger fired
    /// out its catch-up at 9999-12-31 and the center was stuck there. Now nothing moves.
    @Test func aClockMovedPastTheSupportedDatesDeliversNothing() async throws {
        let clock = ManualClock(Self.t0)
        let center = try TriggerCenter(clock: clock)
        try await center.add(NotificationRequest(identifier: "r", content: NotificationContent(title: "r"),
                                                 trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true))))
        clock.advance(to: Date(timeIntervalSince1970: 1e15))
        #expect(await center.deliverDue().isEmpty)
        #expect(await center.upcomingFires(limit: 1).first?.date == Self.t0.addingTimeInterval(60))
        await #expect(throws: RequestError.self) { try await center.add(Self.request) }
    }

    /// A fix dated NaN passed the date check (`ClosedRange<Date>.contains` holds NaN) and was
    /// refused as "from the future", an error whose description traps on the NaN date.
    @Test func aFixDatedNaNIsInvalidAndDescribable() async throws {
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        let fix = LocationFix(device: "d", date: Date(timeIntervalSince1970: .nan), latitude: 0, longitude: 0)
        let error = await #expect(throws: FixError.self) { try await center.receive(fix) }
        guard case .invalid(let field, let why) = error else { Issue.record("not .invalid"); return }
        #expect(field == .date)
        #expect(why.contains("within the supported dates"))
        #expect(!RequestLimits.isSupported(Date(timeIntervalSince1970: .nan)))
    }

    /// `WallClock.sleep(until:)` with a NaN deadline trapped (`Int64(NaN)`); now it waits,
    /// like a deadline that is never reached, until cancelled. `ManualClock` likewise.
    @Test(.timeLimit(.minutes(1)))
    func aNaNDeadlineSleepsUntilCancelled() async throws {
        let nan = Date(timeIntervalSince1970: .nan)
        for clock in [WallClock(), ManualClock(Self.t0)] as [any TriggerClock] {
            let sleeper = Task { try await clock.sleep(until: nan) }
            try await Task.sleep(for: .milliseconds(50))
            (clock as? ManualClock)?.advance(by: 86_400 * 365)
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
        }
    }

    /// The library took any categories: a category or an action twice collapsed silently, and
    /// a snooze of NaN or 0 s showed only when a user answered. Now the file's rules.
    @Test func categoriesAreHeldToTheFilesRules() async throws {
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        let ok = NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "later", title: "Later", effect: .snooze(300))])
        try await center.setNotificationCategories([ok])
        let bad: [([NotificationCategory], String)] = [
            ([ok, ok], "category \"R\" is listed twice"),
            ([NotificationCategory(identifier: "", actions: [])], "non-empty"),
            ([NotificationCategory(identifier: "S", actions: [ok.actions[0], ok.actions[0]])], "action \"later\" is listed twice"),
            ([NotificationCategory(identifier: "S", actions: [NotificationAction(identifier: "x", title: "x", effect: .snooze(.nan))])], "snooze"),
            ([NotificationCategory(identifier: "S", actions: [NotificationAction(identifier: "x", title: "x", effect: .snooze(0))])], "snooze"),
            ([NotificationCategory(identifier: "S", actions: [], dismissEffect: .snooze(-5))], "dismissEffect"),
        ]
        // An action a response could never choose (its name means opening or dismissing the
        // notification): accepted, it silently did nothing (found by a helper).
        let reserved = ["default", "dismiss", NotificationResponse.defaultActionIdentifier, NotificationResponse.dismissActionIdentifier].map {
            ([NotificationCategory(identifier: "S", actions: [NotificationAction(identifier: $0, title: "x", effect: .removeRequest)])],
             "action \"\($0)\": the name is reserved")
        }
        for (list, message) in bad + reserved {
            let error = await #expect(throws: SettingsError.self) { try await center.setNotificationCategories(list) }
            #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        }
        // Nothing changed: the good list stays.
        #expect(await center.notificationCategories() == [ok])
    }

    /// A device id over 1,024 bytes is refused in settings as in fixes and requests (settings
    /// took any, and the device was registered all the same).
    @Test func settingsHoldDeviceIdsToTheSameBound() async throws {
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        let long = String(repeating: "d", count: RequestLimits.maximumIdentifierBytes + 1)
        await #expect(throws: SettingsError.self) { try await center.setNotificationSettings(.authorized, forDevice: long) }
        #expect(throws: SettingsError.self) { try NotificationSettings.table(json: .object([long: .object(["authorizationStatus": .string("denied")])])) }
        try await center.setNotificationSettings(NotificationSettings(authorizationStatus: .denied),
                                                 forDevice: String(repeating: "d", count: RequestLimits.maximumIdentifierBytes))
    }
}
