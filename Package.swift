// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TriggerKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TriggerKit", targets: ["TriggerKit"]),
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
        .target(
            name: "TriggerKit",
            dependencies: [
                "CGEOS",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "triggerkit",
            dependencies: [
                "TriggerKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TriggerKitTests",
            dependencies: ["TriggerKit", .product(name: "GRDB", package: "GRDB.swift")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
