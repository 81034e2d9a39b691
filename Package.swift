// swift-tools-version:6.0
import PackageDescription

// RUNWAY_OPTIMISED_TESTS=1 (what `make test` sets, building in .build-tests): the engine and the
// simulator are compiled optimised (-O) in the debug build the tests use, as the release is; the
// suite then runs in about a third of the time (most of it replays simulated flights through the
// engine). Plain `swift build` / `swift test` leave them unoptimised for debugging, and a package
// that depends on this one does not get the flag (unless its own build sets the variable too).
let optimised: [SwiftSetting] = Context.environment["RUNWAY_OPTIMISED_TESTS"] == "1" ? [.unsafeFlags(["-O"])] : []

let package = Package(
    name: "librunway",
    products: [
        // Built as librunway.so: the C ABI declared in include/runway.h.
        .library(name: "runway", type: .dynamic, targets: ["Runway"]),
        // A GPS run simulator with known truth, for tests and benchmarks (not in the .so).
        .library(name: "RunwaySim", targets: ["RunwaySim"]),
        .executable(name: "runway-sim", targets: ["runway-sim"]),
    ],
    targets: [
        // cJSON from Debian's libcjson-dev.
        .systemLibrary(name: "CJSON", path: "Sources/CJSON", pkgConfig: "libcjson",
                       providers: [.apt(["libcjson-dev"])]),
        // SQLite (libsqlite3-dev) for the flight store; expat (libexpat1-dev) for GPX/TCX import;
        // libxml2 (libxml2-dev) only in the tests, to read exported XML back independently.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CXML", path: "Sources/CXML", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CExpat", path: "Sources/CExpat", pkgConfig: "expat",
                       providers: [.apt(["libexpat1-dev"])]),
        // The public header, so the exports use the very types it declares.
        .systemLibrary(name: "CRunwayABI", path: "Sources/CRunwayABI"),
        // The deterministic engine: no C ABI, no threads.
        .target(name: "RunwayCore", dependencies: ["CJSON", "CExpat"],
                swiftSettings: [.enableUpcomingFeature("StrictConcurrency")] + optimised),
        // Flights journaled to SQLite: durable inputs, recovery, history.
        .target(name: "RunwayStore", dependencies: ["RunwayCore", "CSQLite"]),
        // The C ABI, sessions, fan-out hub and delivery threads.
        .target(name: "Runway", dependencies: ["RunwayCore", "RunwayStore", "CRunwayABI", "CJSON"]),
        .target(name: "RunwaySim", swiftSettings: optimised),
        .executableTarget(name: "runway-sim", dependencies: ["RunwaySim"]),
        .testTarget(name: "RunwayCoreTests", dependencies: ["RunwayCore", "RunwaySim", "CXML"]),
        .testTarget(name: "RunwaySimTests", dependencies: ["RunwaySim"]),
        .testTarget(name: "RunwayStoreTests", dependencies: ["RunwayStore", "RunwayCore", "RunwaySim"]),
        .testTarget(name: "RunwayTests", dependencies: ["Runway", "RunwayCore", "CRunwayABI", "RunwaySim"]),
    ],
    swiftLanguageModes: [.v6]
)
