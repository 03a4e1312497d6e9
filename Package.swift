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
    ],
    targets: [
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"])]
        ),
        .target(
            name: "TriggerKit",
            dependencies: ["CGEOS"]
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
            dependencies: ["TriggerKit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
