// swift-tools-version: 6.1
// The library fuzzer (issue 8): its own package so the main build and `make test` stay lean.
//   cd tools/fuzz && swift build -c release && .build/release/triggerkit-fuzz --seconds 60
import PackageDescription

let package = Package(
    name: "TriggerKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "TriggerKit", path: "../..")],
    targets: [
        .executableTarget(name: "triggerkit-fuzz", dependencies: [.product(name: "TriggerKit", package: "TriggerKit")]),
    ],
    swiftLanguageModes: [.v6]
)
