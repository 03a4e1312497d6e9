import Foundation

/// Paths of the repository's `Fixtures/` folder, found from this file's location so tests
/// run from any working directory.
enum Fixture {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }
}

/// SplitMix64: a tiny seeded generator so randomised tests are repeatable.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    init(s: UInt64) { self.init(seed: s) }
    init(state: UInt64) { self.init(seed: state) }
    /// Uniform in [0, 1), 53 random bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
    mutating func uniform() -> Double { unit() }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }
    /// 0..<n from `unit()`.
    mutating func int(_ n: Int) -> Int { Int(unit() * Double(n)) }
    /// 0..<n as `next() % n`.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
}
