import Foundation
import GRDB
import Testing
@_spi(Engine) @testable import TriggerKit
@_spi(Engine) @testable import TriggerKitStore

/// The state of fences with rules as `run --state` saves it with every batch: a binary blob,
/// read back exactly, refused when damaged, and the JSON of earlier releases still read.
@Suite("store: the fence state's binary blob")
struct FenceStateBlobTests {
    static func snapshot(_ rng: inout SeededGenerator, devices: Int) -> FenceSnapshot {
        let names = ["", "d", "é", "e\u{301}", "🚀 rocket", "nul\u{0}inside", String(repeating: "x", count: 1024)]
        let extremes: [Int64] = [.min, .max, 0, -1, 1_795_770_000_000]
        func int64() -> Int64 { rng.chance(0.3) ? extremes[rng.below(extremes.count)] : Int64(rng.below(1 << 40)) - (1 << 39) }
        func coordinate() -> Double? { rng.chance(0.2) ? nil : rng.uniform(-180, 180) }
        return FenceSnapshot(
            doneFences: (0..<rng.below(5)).map { _ in rng.chance(0.2) ? Int32.max : Int32(rng.below(10_000)) },
            devices: (0..<devices).map { k in
                FenceSnapshot.Device(
                    name: names[k % names.count] + "\(k)", lastSeen: int64(), lastLatitude: coordinate(), lastLongitude: coordinate(),
                    lastFixTime: rng.chance(0.3) ? nil : int64(),
                    links: (0..<rng.below(6)).map { _ in
                        FenceSnapshot.LinkState(fence: Int32(rng.below(10_000)), inside: rng.chance(0.5), since: int64(), due: int64(),
                                                firedOnce: rng.chance(0.5))
                    })
            })
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyFieldRoundTrips(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for devices in [0, 1, 7, 40] {
            let s = Self.snapshot(&rng, devices: devices)
            #expect(FenceSnapshot(binary: s.binary) == s)
        }
        // Doubles are kept bit for bit, NaN and the sign of zero included.
        let odd = FenceSnapshot(doneFences: [], devices: [
            .init(name: "z", lastSeen: 0, lastLatitude: -0.0, lastLongitude: .nan, lastFixTime: nil, links: [])])
        let back = try #require(FenceSnapshot(binary: odd.binary))
        #expect(back.devices[0].lastLatitude?.bitPattern == (-0.0).bitPattern)
        #expect(back.devices[0].lastLongitude?.isNaN == true)
    }

    @Test func damagedBlobsAreRefused() {
        var rng = SeededGenerator(seed: 9)
        let blob = Self.snapshot(&rng, devices: 5).binary
        #expect(blob.count > 100)
        // Every truncation, and a byte too many.
        for n in 0..<blob.count { #expect(FenceSnapshot(binary: blob.prefix(n)) == nil, "truncated to \(n) bytes") }
        #expect(FenceSnapshot(binary: blob + [0]) == nil)
        // A count far beyond the blob (no memory is reserved for it).
        var huge = blob
        huge.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(FenceSnapshot(binary: huge) == nil)
        // Not the magic: not read as binary (the store reads JSON then).
        #expect(FenceSnapshot(binary: Data("{\"doneFences\":[],\"devices\":[]}".utf8)) == nil)
        // A name that is not UTF-8, an unknown flag, a Boolean byte that is neither 0 nor 1.
        let one = FenceSnapshot(doneFences: [], devices: [
            .init(name: "ab", lastSeen: 5, lastLatitude: nil, lastLongitude: nil, lastFixTime: nil,
                  links: [.init(fence: 3, inside: true, since: 1, due: 2, firedOnce: false)])]).binary
        // magic 4, done count 4, device count 4, name length 4: the name starts at 16; then
        // lastSeen 8 and the flags at 26; the link count 4, then fence 4 and `inside` at 35.
        for (offset, byte) in [(16, UInt8(0xFF)), (26, UInt8(8)), (35, UInt8(2))] {
            var bad = one
            bad[offset] = byte
            #expect(FenceSnapshot(binary: bad) == nil, "byte \(offset) set to \(byte)")
        }
        #expect(FenceSnapshot(binary: one) != nil)
    }

    /// A state file from before the binary blob (schema version 3, its fence state as JSON)
    /// is migrated and resumes as saved.
    @Test func aStateFileWithJSONFenceStateStillLoads() throws {
        let tmp = TempStorePath(); defer { tmp.cleanup() }
        let evaluator = makeEvaluator(FenceRulesContractTests.requests)
        let run = try DurableRun(evaluator: evaluator, store: StateStore(path: tmp.path), batchLines: 1000)
        _ = try feedDurable(run, FenceRulesContractTests.lines[...5])
        try run.commit()
        let saved = try #require(try StateStore(path: tmp.path).loadRun(fingerprint: evaluator.requestsFingerprint))
        let fences = try #require(saved.snapshot.fences)
        #expect(fences.devices.contains { !$0.links.isEmpty })
        let queue = try DatabaseQueue(path: tmp.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE meta SET fences = ? WHERE id = 1", arguments: [try JSONEncoder().encode(fences)])
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4'")
            try db.execute(sql: "UPDATE schema_info SET version = 3")
        }
        let migrated = try StateStore(path: tmp.path)
        #expect(try migrated.storedSchemaVersion() == 4)
        let reloaded = try #require(try migrated.loadRun(fingerprint: evaluator.requestsFingerprint))
        #expect(reloaded.snapshot.fences == fences)
        // And a damaged blob is a damaged store, not an empty state.
        try queue.write { db in try db.execute(sql: "UPDATE meta SET fences = ? WHERE id = 1", arguments: [Data("TKF1".utf8)]) }
        #expect(throws: StateStoreError.self) { try StateStore(path: tmp.path).loadRun(fingerprint: evaluator.requestsFingerprint) }
    }
}
