import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The center keeps state for at most ``CenterConfiguration/maxDevices`` devices: past it, a
/// fix or a settings change naming a new device is refused, typed, changing nothing, while the
/// devices it knows go on (a stream of made-up device ids grew it without end).
@Suite("Center: the bound on devices")
struct DeviceBoundTests {
    static let t0 = TriggerCenterTests.t0

    static func center(maxDevices: Int) throws -> (TriggerCenter, ManualClock) {
        try Center.configured { $0.maxDevices = maxDevices }
    }

    static func fix(_ device: String, _ s: Int, north: Double) -> LocationFix {
        TriggerCenterTests.fixAt(s, north: north, device: device)
    }

    @Test func aFixFromANewDeviceIsRefusedAtTheBoundAndKnownDevicesGoOn() async throws {
        let (center, clock) = try Self.center(maxDevices: 3)
        // "owner" is known through its own region; the shared circle fires for any device.
        try await center.add(TriggerCenterTests.circle("owned", device: "owner"))
        try await center.add(TriggerCenterTests.circle("shared"))
        for (k, d) in ["d1", "d2", "owner"].enumerated() {
            clock.advance(to: Self.t0.addingTimeInterval(Double(k + 1)))
            _ = try await center.receive(Self.fix(d, k + 1, north: 500))
        }
        clock.advance(to: Self.t0.addingTimeInterval(10))
        let error = await #expect(throws: FixError.self) { try await center.receive(Self.fix("d3", 10, north: 0)) }
        #expect(error == .tooManyDevices(limit: 3))
        #expect(error?.description == "invalid fix: device is new and the center keeps state for 3 devices, its limit (maxDevices)")
        #expect(await center.statistics.rejectedFixes == 1)
        #expect(await center.statistics.fixes == 3)
        #expect(await center.deliveredNotifications(device: "d3").isEmpty)
        #expect(await center.snapshot().evaluator.devices.map(\.name).sorted() == ["d1", "d2", "owner"])
        // Known devices, the one a request named included, still move in and out.
        let entered = try await center.receive(Self.fix("d1", 10, north: 0))
        #expect(entered.map(\.request.identifier) == ["shared"])
        let owner = try await center.receive(Self.fix("owner", 10, north: 0))
        #expect(owner.map(\.request.identifier).sorted() == ["owned", "shared"])
        // Refused again, as often as it comes.
        await #expect(throws: FixError.tooManyDevices(limit: 3)) { try await center.receive(Self.fix("d3", 10, north: 0)) }
        #expect(await center.statistics.rejectedFixes == 2)
    }

    /// Devices named by requests were kept without a check: one-shot requests for ever new
    /// devices, each fired and gone, grew the devices and their delivered histories without
    /// bound while the center never held more than one request (a helper's find). A request
    /// naming a new device is refused once the bound is reached; known devices and shared
    /// requests still come in.
    @Test func aRequestNamingANewDeviceIsRefusedAtTheBound() async throws {
        let (center, clock) = try Self.center(maxDevices: 2)
        for (k, d) in ["d1", "d2"].enumerated() {
            try await center.add(TriggerCenterTests.interval("r\(k)", 1, device: d))
            clock.advance(to: Self.t0.addingTimeInterval(Double(2 * k + 2)))
            #expect(await center.deliverDue().map(\.request.identifier) == ["r\(k)"])
        }
        #expect(await center.snapshot().evaluator.devices.count == 2)
        let error = await #expect(throws: RequestError.self) { try await center.add(TriggerCenterTests.interval("r2", 1, device: "d3")) }
        #expect(error?.code == .tooManyDevices)
        #expect(error?.message == #"device "d3" is new and 2 devices are kept, past the limit of 2 (maxDevices)"#)
        #expect(await center.pendingRequests().isEmpty)
        try await center.add(TriggerCenterTests.interval("again", 1, device: "d1"))
        try await center.add(TriggerCenterTests.interval("shared", 1))
        clock.advance(to: Self.t0.addingTimeInterval(10))
        #expect(await center.deliverDue().map(\.request.identifier).sorted() == ["again", "shared"])
        #expect(await center.snapshot().evaluator.devices.count == 2)
    }

    @Test func settingsForANewDeviceAreRefusedAtTheBound() async throws {
        let (center, clock) = try Self.center(maxDevices: 2)
        clock.advance(to: Self.t0.addingTimeInterval(1))
        _ = try await center.receive(Self.fix("d1", 1, north: 500))
        let denied = NotificationSettings(authorizationStatus: .denied)
        try await center.setNotificationSettings(denied, forDevice: "d2")
        let error = await #expect(throws: SettingsError.self) {
            try await center.setNotificationSettings(denied, forDevice: "d3")
        }
        #expect(error?.reason == "device is new and the center keeps state for 2 devices, its limit (maxDevices)")
        #expect(await center.notificationSettings(forDevice: "d3") == .authorized)
        // A known device's settings still change.
        try await center.setNotificationSettings(denied, forDevice: "d1")
        #expect(await center.notificationSettings(forDevice: "d1") == denied)
    }

    @Test func aCenterRestoredWithMoreDevicesKeepsThemAll() async throws {
        let (center, clock) = try Self.center(maxDevices: 10)
        try await center.add(TriggerCenterTests.circle("shared"))
        let devices = (0..<5).map { "d\($0)" }
        for (k, d) in devices.enumerated() {
            clock.advance(to: Self.t0.addingTimeInterval(Double(k + 1)))
            _ = try await center.receive(Self.fix(d, k + 1, north: 500))
        }
        var tighter = CenterConfiguration()
        tighter.maxDevices = 2
        let restored = try TriggerCenter(restoring: await center.snapshot(), configuration: tighter, clock: clock)
        clock.advance(to: Self.t0.addingTimeInterval(20))
        for d in devices {
            let fired = try await restored.receive(Self.fix(d, 20, north: 0))
            #expect(fired.map(\.request.identifier) == ["shared"], "\(d)")
        }
        await #expect(throws: FixError.tooManyDevices(limit: 2)) { try await restored.receive(Self.fix("new", 20, north: 0)) }
    }

    @Test func theDefaultBoundIsAMillionDevices() {
        #expect(CenterConfiguration().maxDevices == 1_000_000)
    }
}
