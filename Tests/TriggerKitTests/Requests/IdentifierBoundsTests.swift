import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit
@testable import TriggerKitServer

/// What a helper embedding the library found taken without a word: identifiers of categories,
/// actions and content past the 1,024-byte bound every other identifier has, and a region that
/// notifies neither entry nor exit (the JSON reader warned of it; code was told nothing).
@Suite("Identifier bounds and silent regions")
struct IdentifierBoundsTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)
    static let long = String(repeating: "c", count: RequestLimits.maximumIdentifierBytes + 1)

    @Test func longCategoryAndActionIdentifiersAreRefused() async throws {
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        let category = await #expect(throws: SettingsError.self) {
            try await center.setNotificationCategories([NotificationCategory(identifier: Self.long, actions: [])])
        }
        #expect(category?.description.contains("\"identifier\" is longer than 1024 UTF-8 bytes") == true, "\(String(describing: category))")
        let action = await #expect(throws: SettingsError.self) {
            try await center.setNotificationCategories([NotificationCategory(identifier: "R", actions: [
                NotificationAction(identifier: Self.long, title: "t", effect: .removeRequest)])])
        }
        #expect(action?.description.hasPrefix("category \"R\": action \"ccc") == true, "\(String(describing: action))")
        #expect(await center.notificationCategories().isEmpty)
        // At the bound: taken.
        let atBound = String(Self.long.dropFirst())
        try await center.setNotificationCategories([NotificationCategory(identifier: atBound, actions: [
            NotificationAction(identifier: atBound, title: "t", effect: .removeRequest)])])
    }

    @Test(arguments: ["categoryIdentifier", "threadIdentifier"])
    func longContentIdentifiersAreRefusedByEveryWayIn(_ field: String) async throws {
        var content = NotificationContent(title: "t")
        if field == "categoryIdentifier" { content.categoryIdentifier = Self.long } else { content.threadIdentifier = Self.long }
        let r = NotificationRequest(identifier: "r", content: content, trigger: .timeInterval(TimeIntervalTrigger(timeInterval: 60, repeats: true)))
        let e = #expect(throws: RequestError.self) { try RequestValidation.checkValue(r) }
        #expect(e?.code == .invalidRequest && e?.message == "\"content.\(field)\" is longer than 1024 UTF-8 bytes", "\(String(describing: e))")
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        await #expect(throws: RequestError.self) { try await center.add(r) }
        let line = #"{"identifier": "r", "content": {"title": "t", "\#(field)": "\#(Self.long)"}, "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": true}}"#
        let set = RequestsFile.parse(line, file: "f", options: ValidationOptions(now: Self.t0))
        #expect(set.requests.isEmpty && set.diagnostics.first?.message == e?.message)
    }

    static let silent = NotificationRequest(identifier: "quiet", content: NotificationContent(title: "t"), trigger: .location(LocationTrigger(
        region: .circular(CircularRegion(identifier: "hq", center: Coordinate(latitude: 40, longitude: -74), radius: 100,
                                         notifyOnEntry: false, notifyOnExit: false)), repeats: true)))
    static let warning = "region \"hq\" has notifyOnEntry and notifyOnExit both false: it never fires"

    @Test func aSilentRegionIsWarnedOfOnceByEveryWayIn() async throws {
        // The library.
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        #expect(try await center.add(Self.silent) == [Self.warning])
        // With a dwell it fires (dwellInside): no warning.
        guard case .location(var t) = Self.silent.trigger else { return }
        t.rules.dwell = FenceDwell(side: .inside, duration: 60)
        var dwelling = Self.silent
        dwelling.trigger = .location(t)
        #expect(try await center.add(dwelling).isEmpty)
        // A file.
        let json = String(decoding: try JSONEncoder().encode(Self.silent.json), as: UTF8.self)
        let set = RequestsFile.parse(json, file: "f", options: ValidationOptions(now: Self.t0))
        #expect(set.diagnostics.map(\.message) == [Self.warning])
        // A reader's warnings and the center's, said once.
        #expect(RequestValidation.uniqueWarnings([Self.warning, "x"], [Self.warning, "y"]) == [Self.warning, "x", "y"])
    }

    /// `serve` reads the JSON (which warns) and adds to its center (which warns): once.
    @Test func serveSaysItOnce() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let body = #"{"identifier": "quiet", "content": {"title": "t"}, "trigger": {"type": "location", "region": {"identifier": "hq", "center": {"latitude": 40, "longitude": -74}, "radius": 100, "notifyOnEntry": false, "notifyOnExit": false}, "repeats": true}}"#
            let one = try await c.call(.post, "/v1/requests", body: body)
            #expect(one.json?.objectValue?["warnings"] == .array([.string(Self.warning)]), "\(one.body)")
            let batch = try await c.call(.post, "/v1/requests", body: "[\(body)]")
            let item = batch.json?.objectValue?["results"]?.arrayValue?.first?.objectValue
            #expect(item?["warnings"] == .array([.string(Self.warning)]), "\(batch.body)")
        }
    }
}
