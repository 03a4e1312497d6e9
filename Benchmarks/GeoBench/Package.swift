// swift-tools-version: 6.1
// Geofence benchmark: `swift run -c release GeoBench` from this folder. A package of its own so
// the main package's build and tests never compile it.
import PackageDescription

let package = Package(
    name: "GeoBench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "TriggerKit", path: "../..")],
    targets: [
        .executableTarget(name: "GeoBench", dependencies: [.product(name: "TriggerKit", package: "TriggerKit")]),
    ],
    swiftLanguageModes: [.v6]
)
