// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ReminderService",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Where your copy of TriggerKit lives: a path beside this package, or its Git URL
        // with `from:` and a version.
        .package(path: "../TriggerKit"),
    ],
    targets: [
        .executableTarget(
            name: "ReminderService",
            dependencies: [
                .product(name: "TriggerKit", package: "TriggerKit"),
            ]
        ),
    ]
)
