// swift-tools-version: 6.1
// Benchmarks of TriggerKit, kept out of the main package so `make test` stays fast.
// Plain release-built executables (ordo-one/benchmark's plugin is not used):
//   swift run -c release CalendarBench            next-date cost, TriggerKit vs Foundation
//   swift run -c release CalendarDifferential N S  N random cases against Foundation, seed S
import PackageDescription

let package = Package(
    name: "TriggerKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TriggerKit", path: ".."),
    ],
    targets: [
        .target(name: "BenchSupport", dependencies: [.product(name: "TriggerKit", package: "TriggerKit")]),
        .executableTarget(name: "CalendarBench", dependencies: ["BenchSupport", .product(name: "TriggerKit", package: "TriggerKit")]),
        .executableTarget(name: "CalendarDifferential", dependencies: ["BenchSupport", .product(name: "TriggerKit", package: "TriggerKit")]),
    ],
    swiftLanguageModes: [.v6]
)
