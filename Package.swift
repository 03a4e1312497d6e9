// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TriggerKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TriggerKit", targets: ["TriggerKit"]),
        .library(name: "TriggerKitStore", targets: ["TriggerKitStore"]),
        .executable(name: "triggerkit", targets: ["triggerkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"])]
        ),
        // The core: requests and validation, calendar, geofence, evaluation, the center.
        // No storage dependency.
        .target(
            name: "TriggerKit",
            dependencies: ["CGEOS"]
        ),
        // SQLite persistence (run --state, center snapshots) on top of the core.
        .target(
            name: "TriggerKitStore",
            dependencies: [
                "TriggerKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "triggerkit",
            dependencies: [
                "TriggerKit",
                "TriggerKitStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TriggerKitTests",
            dependencies: ["TriggerKit", "TriggerKitStore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
