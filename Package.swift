// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TriggerKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TriggerKit", targets: ["TriggerKit"]),
        .library(name: "TriggerKitStore", targets: ["TriggerKitStore"]),
        .library(name: "TriggerKitServer", targets: ["TriggerKitServer"]),
        .executable(name: "triggerkit", targets: ["triggerkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"])]
        ),
        // A SIGBUS guard for reading a mapped requests file that another process shrinks
        // (C: a signal handler).
        .target(name: "CFileGuard"),
        // Checks the executable makes before the Swift runtime starts (C: a constructor).
        .target(name: "CStartup"),
        // The core: requests and validation, calendar, geofence, evaluation, the center.
        // No storage dependency.
        .target(
            name: "TriggerKit",
            dependencies: [
                "CGEOS",
                "CFileGuard",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // SQLite persistence (run --state, center snapshots) on top of the core.
        .target(
            name: "TriggerKitStore",
            dependencies: [
                "TriggerKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // `triggerkit serve`: tenants, HTTP API, durable journal and outbox, on top of the
        // core (and its own SQLite files through GRDB).
        .target(
            name: "TriggerKitServer",
            dependencies: [
                "TriggerKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.embedInCode("openapi.json")]
        ),
        .executableTarget(
            name: "triggerkit",
            dependencies: [
                "CStartup",
                "TriggerKit",
                "TriggerKitStore",
                "TriggerKitServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TriggerKitTests",
            dependencies: [
                "TriggerKit", "TriggerKitStore", "TriggerKitServer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
