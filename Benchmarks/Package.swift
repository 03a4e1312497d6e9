// swift-tools-version: 6.1
// Benchmarks of TriggerKit, kept out of the main package so `make test` stays fast. One package,
// plain release-built executables (ordo-one/benchmark's plugin is not used); `make bench` in the
// repository root runs them all through tools/bench.py.
//   swift run -c release CalendarBench            next-date cost vs Foundation, no-date cases,
//                                                 FireSchedule build / soonest(64) / bytes per trigger
//   swift run -c release CalendarDifferential N S  N random cases against Foundation, seed S
//   swift run -c release GeoBench                 RegionIndex queries in-process (no parsing)
//   swift run -c release StreamBench ...          the `run` pipeline in-process vs a parse-only pass
//   swift run -c release CenterBench [N] [CHANGES] TriggerCenter at N requests: changes while fixes stream, memory, many fires vs batch
//   swift run -c release RestartBench [N] [--mixed] [--json]  a center's snapshot saved and restored (byte form vs JSON)
//   swift run -c release FoundationNext --requests F --count N   `triggerkit next` written with plain Foundation
//                                                 (no TriggerKit): the yardstick of tools/calendar-mix-bench.py
import PackageDescription

let triggerKit: Target.Dependency = .product(name: "TriggerKit", package: "TriggerKit")

let package = Package(
    name: "TriggerKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TriggerKit", path: ".."),
    ],
    targets: [
        .target(name: "BenchSupport", dependencies: [triggerKit]),
        .executableTarget(name: "CalendarBench", dependencies: ["BenchSupport", triggerKit]),
        .executableTarget(name: "CalendarDifferential", dependencies: ["BenchSupport", triggerKit]),
        .executableTarget(name: "GeoBench", dependencies: ["BenchSupport", triggerKit]),
        .executableTarget(name: "StreamBench", dependencies: ["BenchSupport", triggerKit]),
        .executableTarget(name: "CenterBench", dependencies: [triggerKit, "BenchSupport"]),
        .executableTarget(name: "RestartBench", dependencies: ["BenchSupport", triggerKit, .product(name: "TriggerKitStore", package: "TriggerKit")]),
        // Plain Foundation on purpose: what a user would write instead of TriggerKit.
        .executableTarget(name: "FoundationNext"),
    ],
    swiftLanguageModes: [.v6]
)
