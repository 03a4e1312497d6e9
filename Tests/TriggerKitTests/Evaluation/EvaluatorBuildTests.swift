import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The evaluator's build reads each request once in file order, while its location slots
/// follow the identifiers' order: with identifiers in no order, among location requests with
/// and without fence rules, each way of notifying and other triggers, slot k holds the k-th
/// plain location request by identifier, with its own flags, device, `addedAt` and region.
@Suite struct EvaluatorBuildTests {
    @Test func slotsFollowTheIdentifiersWithTheirOwnFlagsAndRegions() {
        var g = SeededGenerator(s: 77)
        var requests: [NotificationRequest] = []
        for i in 0..<20_000 {
            let id = String(g.below(1 << 40), radix: 36) + "-\(i)"
            let lat = 40 + g.unit(), lon = -74 + g.unit()
            let region = CircularRegion(identifier: "r\(i)", center: Coordinate(latitude: lat, longitude: lon), radius: 50 + Double(g.int(500)),
                                        notifyOnEntry: g.int(3) != 0, notifyOnExit: g.int(3) != 0)
            var trigger = LocationTrigger(region: .circular(region), repeats: g.int(2) == 0)
            let trig: NotificationTrigger
            switch g.int(10) {
            case 0: trig = .timeInterval(TimeIntervalTrigger(timeInterval: 60 + Double(g.int(600)), repeats: true))
            case 1:
                trigger.rules.dwell = FenceDwell(side: .inside, duration: 120)
                trig = .location(trigger)
            default: trig = .location(trigger)
            }
            requests.append(NotificationRequest(identifier: id, content: NotificationContent(title: "t"), trigger: trig,
                                                device: g.int(4) == 0 ? "d\(g.int(50))" : nil,
                                                addedAt: g.int(3) == 0 ? Date(timeIntervalSince1970: 1_795_000_000 + Double(g.int(100_000))) : nil))
        }
        let evaluator = StreamEvaluator(requests: requests)
        let defaultAdded: Int64 = 1_796_000_000_000
        evaluator.start(defaultAddedAt: defaultAdded)
        let plain = requests.indices.filter { if case .location(let t) = requests[$0].trigger { !t.hasRules } else { false } }
            .sorted { requests[$0].identifier.utf8.lexicographicallyPrecedes(requests[$1].identifier.utf8) }
        #expect(plain.count > 15_000)
        #expect(evaluator.locations.map { Int($0.request) } == plain)
        var wrong = 0
        for (k, entry) in evaluator.locations.enumerated() {
            guard case .location(let t) = requests[Int(entry.request)].trigger, case .circular(let c) = t.region else { wrong += 1; continue }
            if entry.notifyOnEntry != c.notifyOnEntry || entry.notifyOnExit != c.notifyOnExit || entry.repeats != t.repeats { wrong += 1 }
            // Its device and, once started, its own addedAt or the default.
            let r = requests[Int(entry.request)]
            if (entry.device >= 0 ? evaluator.deviceNames[Int(entry.device)] : nil) != r.device { wrong += 1 }
            if entry.addedAt != (r.addedAt.map(Timestamp.millis) ?? defaultAdded) { wrong += 1 }
            // The index's slot k is this request's circle: hit at its centre, missed just beyond it.
            let inside = evaluator.regionIndex.hits(c.center.latitude, c.center.longitude).contains { Int($0.slot) == k && $0.contains }
            let beyond = evaluator.regionIndex.hits(c.center.latitude + (c.radius + 5) / 111_000, c.center.longitude)
                .contains { Int($0.slot) == k && $0.contains }
            if !inside || beyond { wrong += 1 }
        }
        #expect(wrong == 0)
    }
}
