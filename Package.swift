// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "librunway",
    products: [
        // Built as librunway.so: the C ABI declared in include/runway.h.
        .library(name: "runway", type: .dynamic, targets: ["Runway"]),
    ],
    targets: [
        // cJSON from Debian's libcjson-dev.
        .systemLibrary(name: "CJSON", path: "Sources/CJSON", pkgConfig: "libcjson",
                       providers: [.apt(["libcjson-dev"])]),
        // The public header, so the exports use the very types it declares.
        .systemLibrary(name: "CRunwayABI", path: "Sources/CRunwayABI"),
        // The deterministic engine: no C ABI, no threads.
        .target(name: "RunwayCore", dependencies: ["CJSON"],
                swiftSettings: [.enableUpcomingFeature("StrictConcurrency")]),
        // The C ABI, sessions, fan-out hub and delivery threads.
        .target(name: "Runway", dependencies: ["RunwayCore", "CRunwayABI", "CJSON"]),
        .testTarget(name: "RunwayCoreTests", dependencies: ["RunwayCore"]),
        .testTarget(name: "RunwayTests", dependencies: ["Runway", "RunwayCore", "CRunwayABI"]),
    ],
    swiftLanguageModes: [.v6]
)
