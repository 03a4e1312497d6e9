import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// Inputs that had two readers, one per way in, which disagreed (found by a review of every
/// way in): each now has one.
@Suite("One reader for responses, categories in snapshots, stream adds")
struct OneReaderTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)

    /// A `respond` line whose `device` was not a string read as no device, and a response
    /// without a device answers any device's request: a line could cancel another device's
    /// reminder. `POST /v1/responses` refused it. Now both use one reader, which refuses it.
    @Test func aRespondLineWithADeviceThatIsNoStringIsRefused() {
        let line = #"{"t": 1795770000, "respond": {"identifier": "r", "action": "cancel", "device": 7}}"#
        let error = #expect(throws: StreamLineError.self) { try StreamLineParser.parse(line) }
        #expect(error?.reason == #""respond": "device" must be a string, not 7"#)
        let body: JSONValue = .object(["identifier": .string("r"), "action": .string("cancel"), "device": .number(7)])
        let http = #expect(throws: SettingsError.self) { try NotificationResponse(json: body) }
        #expect(http?.reason == #""device" must be a string, not 7"#)
    }

    /// A response's device is held to the bound of every device id (1,024 UTF-8 bytes) on
    /// the wire and in a library call: a longer one was taken, and its cancel applied
    /// (found by a helper).
    @Test func aResponsesDeviceIsHeldToTheDeviceBound() async throws {
        let long = String(repeating: "d", count: RequestLimits.maximumIdentifierBytes + 1)
        let line = #"{"t": 1795770000, "respond": {"identifier": "r", "action": "cancel", "device": "\#(long)"}}"#
        let error = #expect(throws: StreamLineError.self) { try StreamLineParser.parse(line) }
        #expect(error?.reason.hasPrefix(#""respond": a device id is longer than"#) == true, "\(String(describing: error))")
        let c = Center()
        try await c.center.setNotificationCategories([NotificationCategory(identifier: "R", actions: [
            NotificationAction(identifier: "cancel", title: "Cancel", effect: .removeRequest)])])
        try await c.add(NotificationRequest(identifier: "r", content: NotificationContent(title: "r", categoryIdentifier: "R"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)), addedAt: Center.t0))
        // Delivered to every device (a shared time fire): a response answers a delivery.
        #expect(await c.advance(to: Center.t0.addingTimeInterval(60)).count == 1)
        let o = await c.center.respond(NotificationResponse(requestIdentifier: "r", device: long, actionIdentifier: "cancel"))
        #expect(!o.applied && o.warnings.first?.hasPrefix("a device id is longer than") == true, "\(o.warnings)")
        #expect(await c.center.pendingRequests().map(\.identifier) == ["r"])
        let ok = await c.center.respond(NotificationResponse(requestIdentifier: "r", device: String(long.dropLast()), actionIdentifier: "cancel"))
        #expect(ok.applied)
    }

    /// A library call's `"dismiss"` and `"default"` mean what the wire's do (a category may
    /// not name an action so): the library chose an action named `"dismiss"` where the wire
    /// applied the dismiss effect (found by a reviewer).
    @Test func theShortNamesMeanTheSameInALibraryCall() async throws {
        let c = Center()
        try await c.center.setNotificationCategories([NotificationCategory(identifier: "R", dismissEffect: .removeRequest)])
        try await c.add(NotificationRequest(identifier: "r", content: NotificationContent(title: "r", categoryIdentifier: "R"),
                                            trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)), addedAt: Center.t0))
        #expect(await c.advance(to: Center.t0.addingTimeInterval(60)).count == 1)
        let opened = await c.center.respond(NotificationResponse(requestIdentifier: "r", actionIdentifier: "default"))
        #expect(opened.effect == .none && opened.warnings.isEmpty, "\(opened)")
        let dismissed = await c.center.respond(NotificationResponse(requestIdentifier: "r", actionIdentifier: "dismiss"))
        #expect(dismissed.effect == .removeRequest && dismissed.applied, "\(dismissed)")
        #expect(await c.center.pendingRequests().isEmpty)
    }

    @Test(arguments: [("default", NotificationResponse.defaultActionIdentifier),
                      ("dismiss", NotificationResponse.dismissActionIdentifier), ("cancel", "cancel")])
    func theWiresShortNamesAreReadOnce(_ action: String, _ full: String) throws {
        let line = #"{"t": 1795770000, "respond": {"identifier": "r", "action": "\#(action)", "device": "phone"}}"#
        let expected = NotificationResponse(requestIdentifier: "r", device: "phone", actionIdentifier: full)
        #expect(try StreamLineParser.parse(line) == .control(t: 1_795_770_000_000, .respond(expected)))
        let body: JSONValue = .object(["identifier": .string("r"), "action": .string(action), "device": .string("phone")])
        #expect(try NotificationResponse(json: body) == expected)
    }

    /// A stream `add` dropped the reader's warnings (an unknown field ignored), which a
    /// requests file and `POST /v1/requests` report.
    @Test func aStreamAddKeepsItsWarnings() throws {
        let line = #"{"t": 1795770000, "add": {"identifier": "a", "content": {"title": "x", "tilte": "y"}, "trigger": {"type": "timeInterval", "timeInterval": 60}}}"#
        guard case .control(_, .add(let r, let warnings)) = try StreamLineParser.parse(line) else {
            Issue.record("not an add"); return
        }
        #expect(r.identifier == "a")
        #expect(warnings == [#"unknown field "content.tilte" ignored"#])
    }

    /// A snapshot's categories are restored as saved, even where `setNotificationCategories`
    /// now refuses the list: earlier builds saved such lists, and refusing them made a center
    /// (a `serve` tenant) fail to restart after an upgrade (found by a review). A category
    /// listed twice counts as its last, as before.
    @Test func aSnapshotsCategoriesRestoreAsSaved() async throws {
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        var snapshot = await center.snapshot()
        snapshot.categories = [NotificationCategory(identifier: "R"),
                               NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "later", title: "Later", effect: .snooze(0))])]
        #expect(throws: SettingsError.self) { try NotificationCategory.validate(snapshot.categories) }
        let restored = try TriggerCenter(restoring: snapshot, clock: ManualClock(Self.t0))
        #expect(await restored.notificationCategories() == [snapshot.categories[1]])
    }
}
