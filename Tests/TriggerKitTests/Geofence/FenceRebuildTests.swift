import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// A fence with rules added mid-stream (an `add` line rebuilds the evaluator) knows a device
/// seen at or after its `addedAt` as a plain fence does, whatever other fences with rules did:
/// before, it knew the device only when another fence with rules had been there to see it
/// (a live one, or an ended one not yet compacted away), and the center's restore differed.
@Suite("fences with rules: what a rebuild keeps of the devices")
struct FenceRebuildTests {
    /// d0's own one-shot crossings fence, repeating or not (ended by its fire); d1 seen
    /// outside at 20 s; then `toll` (crossings) added at 20 s and plain `gate` beside it; d1
    /// inside at 30 s.
    static func output(onceRepeats: Bool) throws -> [String] {
        let dir = TempStorePath(); defer { dir.cleanup() }
        let requests = dir.directory.appendingPathComponent("r.ndjson").path, input = dir.directory.appendingPathComponent("s.ndjson").path
        try circleRequest("once", repeats: onceRepeats, device: "d0", rules: "\"crossings\": true")
            .write(toFile: requests, atomically: true, encoding: .utf8)
        let add: (String) -> String = { request in "{\"t\": \"\(at(20))\", \"add\": \(request)}" }
        try [fix("d0", 0, north: 500), fix("d0", 10, north: 0), fix("d1", 20, north: 500),
             add(circleRequest("toll", radius: 200, rules: "\"crossings\": true")), add(circleRequest("gate", radius: 200)),
             fix("d1", 30, north: 0)].joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let r = try SessionReplayTests.run(["run", "--requests", requests], input: input)
        #expect(r.status == 0, "\(r.err)")
        return r.out.compactMap { line in
            guard case .object(let o)? = try? JSONValue.parse(line), let id = o["identifier"]?.stringValue,
                  let device = o["device"]?.stringValue, let date = o["date"]?.stringValue else { return nil }
            return "\(id) \(device) \(date)"
        }
    }

    @Test func aFenceAddedLaterKnowsADeviceSeenAtItsAddedAt() throws {
        let ended = try Self.output(onceRepeats: false), live = try Self.output(onceRepeats: true)
        // d0's fence fires in both; the plain fence and the crossings fence both fire for d1.
        for out in [ended, live] {
            #expect(out.filter { $0.hasPrefix("once d0") }.count == 1, "\(out)")
            #expect(out.contains("gate d1 \(at(30))"), "\(out)")
            #expect(out.filter { $0.hasPrefix("toll d1") }.count == 1, "\(out)")
        }
        // And the same for d1 either way (enters are dated at the fix).
        #expect(ended.filter { $0.contains(" d1 ") } == live.filter { $0.contains(" d1 ") })
        #expect(ended.contains("toll d1 \(at(30))"), "\(ended)")
    }
}
