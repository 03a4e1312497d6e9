import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A request's `timeZone` is an IANA name (contract, "Triggers"). Foundation also takes ICU's
/// legacy three-letter IDs, which name other zones than the abbreviations users mean: `BST`
/// was read as Asia/Dhaka (UTC+6), `AST` as Alaska, `NST` as New Zealand, and the trigger fired
/// hours off without a word. They are refused, by every way in, on every machine.
@Suite("Zone names")
struct ZoneNameTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_770_000)  // 2026-11-27T09:00:00Z

    static func calendarLine(_ zone: String) -> String {
        #"{"identifier": "z", "content": {"title": "x"}, "trigger": {"type": "calendar", "dateMatching": {"hour": 9, "timeZone": "\#(zone)"}, "repeats": true}}"#
    }

    static func windowLine(_ zone: String) -> String {
        #"{"identifier": "w", "content": {"title": "x"}, "trigger": {"type": "location", "region": {"identifier": "w", "center": {"latitude": 40, "longitude": -74}, "radius": 100}, "repeats": true, "window": {"weekdays": [2], "opens": "08:00", "closes": "18:00", "timeZone": "\#(zone)"}}}"#
    }

    @Test(arguments: ZoneNames.legacyIDs.sorted() + ["SystemV/AST4", "SystemV/EST5EDT"])
    func aLegacyIDIsRefusedInEveryField(_ name: String) throws {
        // Foundation does take it: the refusal is ours.
        #expect(TimeZone(identifier: name) != nil, "\(name): Foundation no longer takes it")
        #expect(ZoneNames.zone(named: name) == nil)
        let set = RequestsFile.parse(Self.calendarLine(name) + "\n" + Self.windowLine(name), file: "f", options: ValidationOptions(now: Self.t0))
        #expect(set.requests.isEmpty)
        let messages = set.diagnostics.map(\.message)
        #expect(messages.count == 2, "\(messages)")
        for (m, field) in zip(messages, ["trigger.dateMatching.timeZone", "trigger.window.timeZone"]) {
            #expect(m.hasPrefix("\"\(name)\" is not an IANA time zone name (Foundation reads it as ICU's legacy ID for UTC"), "\(m)")
            #expect(m.hasSuffix("in \"\(field)\""), "\(m)")
        }
        #expect(set.diagnostics.allSatisfy { $0.code == .invalidTrigger })
    }

    /// The message names what the abbreviation usually means, where Foundation knows it.
    @Test func theRefusalSaysWhatWasMeantAndWhatItWouldHaveBeen() {
        let bst = ZoneNames.refusal("BST", field: "trigger.dateMatching.timeZone")
        #expect(bst == #""BST" is not an IANA time zone name (Foundation reads it as ICU's legacy ID for UTC+06:00); for the abbreviation BST give its zone, e.g. "Europe/London" in "trigger.dateMatching.timeZone""#)
        let nst = ZoneNames.refusal("NST", field: "f")
        #expect(nst.contains("UTC+12:00") && nst.contains("\"America/St_Johns\""), "\(nst)")
        #expect(ZoneNames.refusal("Mars/Olympus", field: "f") == #"unknown time zone "Mars/Olympus" in "f" (expected an IANA name such as "Europe/Paris")"#)
    }

    /// IANA's own short names, aliases and Foundation's offset names stay accepted.
    @Test(arguments: ["EST", "MST", "HST", "CET", "EET", "WET", "MET", "UTC", "GMT", "EST5EDT", "Europe/London", "Asia/Dhaka",
                      "America/Anchorage", "GMT+5", "GMT-03:30"])
    func iANANamesAndOffsetsStayAccepted(_ name: String) {
        #expect(ZoneNames.zone(named: name) != nil, "\(name)")
        let set = RequestsFile.parse(Self.calendarLine(name) + "\n" + Self.windowLine(name), file: "f", options: ValidationOptions(now: Self.t0))
        #expect(set.requests.count == 2, "\(name): \(set.diagnostics.map(\.message))")
    }

    /// What earlier versions accepted and stored with a legacy ID reads back with the zone it
    /// always had: a snapshot, a state file's or journal's request record (the stored reader
    /// refused it, and a tenant with such a snapshot would not open: a reviewer's find). Only
    /// new input is refused.
    @Test func storedRequestsWithALegacyIDStillReadBack() async throws {
        let line = Self.calendarLine("BST")
        let record = try Array(line.utf8).withUnsafeBufferPointer { try NotificationRequest(contractRecord: $0) }
        guard case .calendar(let t) = record.trigger else { Issue.record("\(record.trigger)"); return }
        #expect(t.dateComponents.timeZone?.identifier == "BST")
        // A snapshot holding one (as an earlier version wrote it) restores, and the trigger
        // fires where it always did (09:00 in ICU's BST, UTC+6: 03:00Z).
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        var ok = record
        ok.trigger = .calendar(CalendarTrigger(dateMatching: DateComponents(timeZone: TimeZone(identifier: "Asia/Dhaka"), hour: 9), repeats: true))
        try await center.add(ok)
        var snap = await center.snapshot()
        snap.requests[0].trigger = record.trigger
        snap.evaluator.requestsFingerprint = StreamEvaluator.fingerprint(snap.requests[...], continuing: StreamEvaluator.fingerprintSeed)
        let restored = try TriggerCenter(restoring: CenterSnapshot(serialized: try snap.serialized()), clock: ManualClock(Self.t0))
        #expect(await restored.pendingRequests().map(\.identifier) == ["z"])
        let next = try #require(await restored.nextTriggerDate(forIdentifier: "z"))
        #expect(Timestamp.string(millis: Timestamp.millis(next)) == "2026-11-28T03:00:00Z")
        // New input with it is refused, by the validator.
        #expect(throws: RequestError.self) { try RequestValidation.checkValue(record) }
    }

    /// A zone made in code is held to the same rule: its name is what a snapshot, `pending`
    /// and the fingerprint write, and reading that back refused it.
    @Test func aLegacyZoneMadeInCodeIsRefusedByTheLibrary() async throws {
        let zone = try #require(TimeZone(identifier: "AST"))
        let calendar = NotificationRequest(identifier: "c", content: NotificationContent(title: "t"), trigger: .calendar(CalendarTrigger(
            dateMatching: DateComponents(timeZone: zone, hour: 9), repeats: true)))
        let e = #expect(throws: RequestError.self) { try RequestValidation.checkValue(calendar) }
        #expect(e?.code == .invalidTrigger)
        #expect(e?.message.contains("\"AST\" is not an IANA time zone name") == true, "\(String(describing: e))")
        let center = try TriggerCenter(clock: ManualClock(Self.t0))
        await #expect(throws: RequestError.self) { try await center.add(calendar) }
        #expect(await center.pendingRequests().isEmpty)
        var fence = LocationTrigger(region: .circular(CircularRegion(identifier: "f", center: Coordinate(latitude: 40, longitude: -74), radius: 100)), repeats: true)
        fence.rules.window = FenceWindow(schedule: .weekly(weekdays: [2], opens: .init(hour: 8), closes: .init(hour: 18)), timeZone: TimeZone(identifier: "IST"))
        let w = #expect(throws: RequestError.self) {
            try RequestValidation.checkValue(NotificationRequest(identifier: "f", content: NotificationContent(title: "t"), trigger: .location(fence)))
        }
        #expect(w?.message.hasSuffix("in \"trigger.window.timeZone\"") == true, "\(String(describing: w))")
        // A zone made from an offset in code writes a name the reader takes.
        let offset = NotificationRequest(identifier: "o", content: NotificationContent(title: "t"), trigger: .calendar(CalendarTrigger(
            dateMatching: DateComponents(timeZone: TimeZone(secondsFromGMT: 5 * 3600 + 1800), hour: 9), repeats: true)))
        try await center.add(offset)
        #expect(await center.pendingRequests().map(\.identifier) == ["o"])
    }
}
